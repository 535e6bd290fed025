"""athena://search and athena://named-queries across listed accounts, through the Lambda path as hosted callers:
`?account=<name>` searches that account as the caller, `?account=*` every one side by side, each hit labelled with
its account and linking to where it was found; no account's hits reach another's answer.
"""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from support.servers import lambda_container

from .hosted_support import ACCOUNT, error_of, iam_event, read, status_of
from .test_accounts import DATABASES, IAM_ACCOUNTS, _in, estate_fixture

__all__ = ["estate_fixture"]
COLUMN = "shipment_ref"


@pytest.fixture(scope="module", name="tables")
def tables_fixture(estate: None) -> None:
    """In each account's database, one table with a `shipment_ref` column, named after its account."""
    for account, database in DATABASES.items():
        session = boto3.Session(region_name="us-east-1") if account == ACCOUNT else _in(account)
        glue = session.client("glue")
        if f"shipments_{account}" in [t["Name"] for t in glue.get_tables(DatabaseName=database)["TableList"]]:
            continue
        glue.create_table(DatabaseName=database, TableInput={
            "Name": f"shipments_{account}", "Description": f"shipments booked in {account}",
            "StorageDescriptor": {"Columns": [{"Name": COLUMN, "Type": "string", "Comment": "carrier reference"}],
                                  "Location": f"s3://{database.replace('_', '-')}/shipments/"}})


def _hits(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for h in status_of(answer)["hits"] if h["kind"] == "table"]


def test_search_reads_the_named_account_only(tables: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    for name, account in IAM_ACCOUNTS.accounts:
        answer = read(invoke, iam_event("DataAnalyst", "alice", uri=f"athena://search?q={COLUMN}&account={name}"))
        hits = _hits(answer)
        assert [(h["database"], h["table"]) for h in hits] == [(DATABASES[account], f"shipments_{account}")], name
        assert hits[0]["uri"].endswith(f"?account={name}") and hits[0]["explain"].endswith(f"?account={name}")
        assert status_of(answer)["from_account"]["id"] == account
    home = _hits(read(invoke, iam_event("DataAnalyst", "alice", uri=f"athena://search?q={COLUMN}")))
    assert [h["table"] for h in home] == [f"shipments_{ACCOUNT}"] and "?" not in home[0]["uri"]


def test_search_every_account_side_by_side(tables: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    answer = status_of(read(invoke, iam_event("DataAnalyst", "alice", uri=f"athena://search?q={COLUMN}&account=*")))
    assert sorted((h["account"], h["table"]) for h in answer["hits"] if h["kind"] == "table") == sorted(
        (name, f"shipments_{account}") for name, account in IAM_ACCOUNTS.accounts)
    assert [(a["name"], a["count"]) for a in answer["accounts"]] == [(n, 1) for n, _ in IAM_ACCOUNTS.accounts]
    named = status_of(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://named-queries?account=*")))
    assert [a["name"] for a in named["accounts"]] == [n for n, _ in IAM_ACCOUNTS.accounts]


def test_a_cursor_of_one_accounts_search_does_not_page_another(tables: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    for name, _ in IAM_ACCOUNTS.accounts:
        error = error_of(read(invoke, iam_event("DataAnalyst", "alice",
                                                uri=f"athena://search?q={COLUMN}&account={name}&cursor=eyJvZmZzZXQiOjB9")))
        assert error["error"] == "invalid_argument", name  # a home-account cursor ({"offset": 0}) pages no other
