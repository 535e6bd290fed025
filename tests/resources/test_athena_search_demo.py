"""Searching the demo's catalog and running its saved questions, IAM and Lake Formation enforced: what a caller
finds is what that caller may see, and a saved query runs through the same guard and cutoff as any SQL.
One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest
from mcp import Client
from moto.athena.models import athena_backends
from moto.iam.models import iam_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_athena import SAVED_QUERIES, SAVED_QUERIES_WORKGROUP
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS, caller_read_policy
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
SETTINGS = Settings(mode="demo", query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20)


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20)
    with ServerThread(settings) as running:
        yield running


async def _read(server: ServerThread, uri: str) -> dict[str, Any]:
    async with Client(server.url, mode="2026-07-28") as client:
        return json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[no-any-return]


async def test_the_demo_catalog_answers_where_the_data_about_something_is(server: ServerThread,
                                                                         demo_caller: DemoAccount) -> None:
    email = await _read(server, "athena://search?q=email")
    tables = [(h["database"], h["table"], h["matched"]) for h in email["hits"] if h["kind"] == "table"]
    assert tables[0] == ("marketing", "email_sends", "name")  # a name before a column
    assert ("sales", "customers", "column") in tables
    customers = next(h for h in email["hits"] if h.get("table") == "customers")
    assert [c["name"] for c in customers["columns"]] == ["email_sha256"] and customers["description"]
    assert all(h["description"] for h in email["hits"] if h["kind"] == "table")
    nothing = await _read(server, "athena://search?q=zeppelin")
    assert nothing["hits"] == []


async def test_saved_questions_are_listed_searched_and_run_by_id(server: ServerThread,
                                                                demo_caller: DemoAccount) -> None:
    saved = await _read(server, f"athena://named-queries?workgroup={SAVED_QUERIES_WORKGROUP}")
    by_name = {q["name"]: q for q in saved["named_queries"]}
    assert {name: (q["database"], q["sql"]) for name, q in by_name.items()} == {
        s["Name"]: (s["Database"], s["QueryString"]) for s in SAVED_QUERIES}
    found = await _read(server, "athena://search?q=conversions")
    assert "campaign conversions in February" in [h["name"] for h in found["hits"] if h["kind"] == "named_query"]
    for name, entry in by_name.items():
        result = await query(server, "2026-07-28", named_query_id=entry["id"], database=None)
        got = answer(result)
        assert not result.is_error and got["state"] == "SUCCEEDED" and got["results"]["rows"], (name, got)
        assert got["statement"] == "SELECT" and got["cutoff_bytes"]


async def test_a_saved_query_is_guarded_as_any_sql(server: ServerThread, demo_caller: DemoAccount) -> None:
    backend = athena_backends[demo_caller.account_id][demo_caller.region]  # the analyst may not save queries
    write = backend.create_named_query("drop orders", "", "sales", "DROP TABLE orders", SAVED_QUERIES_WORKGROUP)
    refused = await query(server, "legacy", named_query_id=write, database=None)
    assert refused.is_error and answer(refused)["error"] == "invalid_argument"  # the read-only guard's refusal
    some_id = (await _read(server, "athena://named-queries"))["named_queries"][0]["id"]
    both = await query(server, "legacy", named_query_id=some_id, sql="SELECT 1")
    assert both.is_error and "not both" in answer(both)["message"]
    unknown = await query(server, "legacy", named_query_id="00000000-0000-0000-0000-000000000000", database=None)
    assert unknown.is_error and answer(unknown)["error"] == "not_found"
    neither = await query(server, "legacy", database=None)
    assert neither.is_error and answer(neither)["error"] == "invalid_argument"


NO_ML = "search-no-ml"
"""A second caller: the analysts' allow-list, and no Glue table of ml_features."""


def _second_caller(demo: DemoAccount) -> Caller:
    """Made on moto's IAM backend directly: the demo caller may not create users, and no key goes through a logged
    API."""
    iam = iam_backends[demo.account_id]["aws"]
    if NO_ML not in iam.users:
        iam.create_user(demo.region, NO_ML)
        iam.put_user_policy(NO_ML, "read", caller_read_policy())
        iam.put_user_policy(NO_ML, "no-ml", json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Action": "glue:GetTable",
            "Resource": f"arn:aws:glue:{demo.region}:{demo.account_id}:table/ml_features/*"}]}))
    key = iam.create_access_key(NO_ML)
    session = boto3.Session(aws_access_key_id=key.access_key_id, aws_secret_access_key=key.secret_access_key,
                            region_name=demo.region)
    return Caller("local", session, demo.region, principal_arn=f"arn:aws:iam::{demo.account_id}:user/{NO_ML}",
                  account=demo.account_id)


def test_each_caller_finds_only_what_they_may_see_through_one_cache(demo: DemoAccount) -> None:
    """The analyst finds the feature tables Lake Formation grants them (not churn_labels, the admins' only); a
    caller denied ml_features' tables finds none of them. One reader, one cache: neither answer reaches the other."""
    analyst = Caller("local", demo.caller_session(), demo.region, principal_arn=demo.caller_arn,
                     account=demo.account_id)
    other = _second_caller(demo)
    reader = ResourceReader(registry, SETTINGS)

    def tables(caller: Caller) -> set[tuple[str, str]]:
        reading = anyio.run(reader.read, "athena://search?q=customer", lambda: caller)
        return {(h["database"], h["table"]) for h in json.loads(reading.text)["hits"] if h["kind"] == "table"}

    first_analyst, first_other = tables(analyst), tables(other)
    assert ("ml_features", "customer_features") in first_analyst
    assert ("ml_features", "churn_labels") not in first_analyst
    assert ("sales", "customers") in first_other and not {t for t in first_other if t[0] == "ml_features"}
    assert tables(analyst) == first_analyst and tables(other) == first_other
