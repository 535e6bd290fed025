"""athena://search and the listings whose cost does not grow with the tables, against an estate of 10,000 tables in
40 databases (11 columns each, a comment on every column and a description on every table), seeded straight into
the suite's moto (in this process: creating 10,000 tables through the API would take minutes).

moto has no SearchTables: the demo's (demo/moto_search.py, installed with the suite's moto extensions) answers it
as AWS documents it. Saved queries live in the primary workgroup. A second account shares a table with this one
through Lake Formation, so a search shows it with its owner.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from mcp import Client
from moto.glue.models import glue_backends
from moto.lakeformation.models import lakeformation_backends

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.emulator import search as moto_search
from support.faults import AwsFaults
from support.reading import direct_read, read_everywhere, reset_moto
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio

ACCOUNT, OTHER, REGION = "123456789012", "210987654321", "us-east-1"
DATABASES = [f"zone_{n:02d}" for n in range(40)]
TABLES_EACH = 250
EMAIL_TABLES = {(DATABASES[n % 40], f"t_{n:04d}") for n in range(7, 10_000, 333)}
"""30 tables with a `contact_email` column."""
PEPPER_TABLES = {(DATABASES[n % 40], f"t_{n:04d}") for n in range(11, 10_000, 401)}
"""25 tables whose `user_key` column comment says it is hashed with the rotating pepper."""
LEDGER_TABLES = {(DATABASES[n % 40], f"t_{n:04d}") for n in range(13, 10_000, 487)}
"""21 tables whose description says they are reconciled nightly against the ledger."""
PAGE_CHARS = 20_000
SHARED = ("partner_zone", "partner_contacts")
"""A table of OTHER, granted to this account through Lake Formation, with a contact_email column."""


def _table(database: str, name: str) -> dict[str, Any]:
    key = (database, name)
    columns = [{"Name": f"c{n}", "Type": "string", "Comment": f"measure {n} of the {name} rows"} for n in range(10)]
    if key in EMAIL_TABLES:
        columns[3] = {"Name": "contact_email", "Type": "string", "Comment": "where the customer asked to be written"}
    if key in PEPPER_TABLES:
        columns[5] = {"Name": "user_key", "Type": "string", "Comment": "user id hashed with the rotating pepper"}
    description = f"Facts of {name} in {database}, one row per event"
    if key in LEDGER_TABLES:
        description += "; reconciled nightly against the ledger"
    return {"Name": name, "Description": description, "TableType": "EXTERNAL_TABLE",
            "Parameters": {"classification": "parquet"},
            "PartitionKeys": [{"Name": "dt", "Type": "string", "Comment": "day of the event"}],
            "StorageDescriptor": {"Columns": columns, "Location": f"s3://lake/{database}/{name}/",
                                  "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                                  "SerdeInfo": {"SerializationLibrary":
                                                "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"}}}


@pytest.fixture(scope="module")
def estate(moto_endpoint: str) -> Iterator[dict[str, str]]:
    reset_moto()
    glue = glue_backends[ACCOUNT][REGION]
    for database in DATABASES:
        glue.create_database(database, {"Name": database, "Description": f"the {database} zone"})
    for n in range(len(DATABASES) * TABLES_EACH):
        glue.create_table(DATABASES[n % 40], f"t_{n:04d}", _table(DATABASES[n % 40], f"t_{n:04d}"))
    glue.create_table("zone_05", "contact_email", _table("zone_05", "contact_email"))
    other = glue_backends[OTHER][REGION]
    other.create_database(SHARED[0], {"Name": SHARED[0]})
    other.create_table(*SHARED, _table(*SHARED) | {"StorageDescriptor": {
        **_table(*SHARED)["StorageDescriptor"],
        "Columns": [{"Name": "contact_email", "Type": "string", "Comment": "the partner's contact"}]}})
    lakeformation_backends[OTHER][REGION].grant_permissions(
        OTHER, {"DataLakePrincipalIdentifier": ACCOUNT}, {"Table": {"DatabaseName": SHARED[0], "Name": SHARED[1]}},
        ["SELECT", "DESCRIBE"], [])
    athena = boto3.client("athena", region_name=REGION)
    ids = {
        "contacts to write to": athena.create_named_query(
            Name="contacts to write to", Description="every customer's contact_email, newest first",
            Database="zone_07", QueryString="SELECT contact_email FROM t_0007 ORDER BY dt DESC", WorkGroup="primary",
        )["NamedQueryId"],
        "daily ledger check": athena.create_named_query(
            Name="daily ledger check", Description="rows per day, for the reconciliation", Database="zone_13",
            QueryString="SELECT dt, count(*) FROM t_0013 GROUP BY dt", WorkGroup="primary")["NamedQueryId"],
    }
    yield ids
    reset_moto()


@pytest.fixture(scope="module")
def server(estate: dict[str, str]) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port())) as running:
        yield running


def _tables(answer: dict[str, Any]) -> set[tuple[str, str]]:
    return {(hit["database"], hit["table"]) for hit in answer["hits"] if hit["kind"] == "table"}


def test_databases_make_a_bounded_number_of_calls_for_10_000_tables(estate: dict[str, str],
                                                                    aws_faults: AwsFaults) -> None:
    direct_read("athena://databases")  # the caller and clients warm: what is counted is the read's own
    aws_faults.calls.clear()
    answer = direct_read("athena://databases")
    assert sum(aws_faults.calls.values()) <= 12, aws_faults.calls
    assert aws_faults.calls["glue.GetTables"] == 0
    assert {d["name"] for d in answer["databases"]} == set(DATABASES)
    assert answer["databases"][0]["tables"] == f"athena://databases/{answer['databases'][0]['name']}/tables"


async def test_every_table_with_a_column_name_in_one_read_every_path(server: ServerThread, estate: dict[str, str],
                                                                     local_lambda_handler: Any) -> None:
    answer = await read_everywhere(server.url, local_lambda_handler, "athena://search?q=contact_email")
    async with Client(server.url, mode="2026-07-28") as client:
        text = (await client.read_resource("athena://search?q=contact_email")).contents[0].text
    assert len(text) <= PAGE_CHARS and answer["page"]["next_uri"] is None
    assert _tables(answer) == EMAIL_TABLES | {("zone_05", "contact_email"), SHARED}
    first = answer["hits"][0]
    assert (first["table"], first["matched"]) == ("contact_email", "exact name")  # an exact name first
    hit = next(h for h in answer["hits"] if (h["database"], h["table"]) == ("zone_07", "t_0007"))
    assert hit | {"matched": "column", "format": "parquet", "partition_keys": ["dt"],
                  "location": "s3://lake/zone_07/t_0007/", "uri": "athena://databases/zone_07/tables/t_0007",
                  "explain": "permissions://tables/zone_07/t_0007",
                  "columns": [{"name": "contact_email", "type": "string",
                               "comment": "where the customer asked to be written"}]} == hit
    shared = next(h for h in answer["hits"] if h["table"] == SHARED[1])
    assert shared["owner"] == OTHER and "uri" not in shared  # another account's: its owner said
    saved = [h for h in answer["hits"] if h["kind"] == "named_query"]
    assert [(h["name"], h["id"]) for h in saved] == [("contacts to write to", estate["contacts to write to"])]
    ranks = [h["matched"] for h in answer["hits"]]
    assert ranks.index("exact name") < ranks.index("column") < ranks.index("description")


@pytest.mark.parametrize(("q", "expected", "reason"), [
    ('"hashed with the rotating pepper"', PEPPER_TABLES, "comment"),
    ('"reconciled nightly against the ledger"', LEDGER_TABLES, "description"),
])
def test_a_phrase_of_a_comment_or_a_description_in_one_read(estate: dict[str, str], q: str,
                                                           expected: set[tuple[str, str]], reason: str) -> None:
    settings = Settings(mode="local", response_char_budget=PAGE_CHARS)
    answer = direct_read(f"athena://search?q={q}", settings)
    assert _tables(answer) == expected and answer["page"]["next_uri"] is None
    assert {h["matched"] for h in answer["hits"] if h["kind"] == "table"} == {reason}


def test_narrowed_to_a_database_and_nothing_found_is_an_empty_list(estate: dict[str, str]) -> None:
    narrowed = direct_read("athena://search?q=contact_email&database=zone_07")
    assert _tables(narrowed) == {t for t in EMAIL_TABLES if t[0] == "zone_07"}
    assert [h["name"] for h in narrowed["hits"] if h["kind"] == "named_query"] == ["contacts to write to"]
    nothing = direct_read("athena://search?q=no_such_column_anywhere")
    assert nothing["hits"] == [] and nothing["page"]["total"] == 0 and nothing["more"] is False


def test_a_search_matching_everything_pages_and_says_there_is_more(estate: dict[str, str],
                                                                   aws_faults: AwsFaults) -> None:
    settings = Settings(mode="local", response_char_budget=PAGE_CHARS)
    direct_read("athena://search?q=measure", settings)
    aws_faults.calls.clear()
    first = direct_read("athena://search?q=measure", settings)
    assert aws_faults.calls["glue.SearchTables"] == 1  # one page of Glue's 1,000 at most
    assert first["more"] is True and first["page"]["total"] == 1_000 and first["page"]["next_uri"]
    seen = [h["table"] for h in first["hits"]]
    uri = first["page"]["next_uri"]
    while uri:
        page = direct_read(uri, settings)
        seen += [h["table"] for h in page["hits"]]
        uri = page["page"]["next_uri"]
    assert len(seen) == len(set(seen)) == 1_000


def test_bad_searches_are_refused_before_any_call(estate: dict[str, str], aws_faults: AwsFaults) -> None:
    for uri in ("athena://search", "athena://search?q=", "athena://search?q=x&database=a%20b",
                "athena://search?q=x&table=y", f"athena://search?q={'x' * 300}"):
        aws_faults.calls.clear()
        reader_answer = _failure(uri)
        assert reader_answer == "invalid_argument", uri
        assert not any(k.startswith(("glue.", "athena.")) for k in aws_faults.calls), (uri, aws_faults.calls)


def _failure(uri: str) -> str:
    from aws_data_mcp.errors import ResourceFailure

    try:
        direct_read(uri)
    except ResourceFailure as failure:
        return failure.code.value
    return "answered"


async def test_named_queries_listed_with_their_sql(server: ServerThread, estate: dict[str, str],
                                                   local_lambda_handler: Any) -> None:
    answer = await read_everywhere(server.url, local_lambda_handler, "athena://named-queries?workgroup=primary")
    assert [(q["name"], q["database"], q["workgroup"]) for q in answer["named_queries"]] == [
        ("contacts to write to", "zone_07", "primary"), ("daily ledger check", "zone_13", "primary")]
    assert answer["named_queries"][1]["sql"] == "SELECT dt, count(*) FROM t_0013 GROUP BY dt"
    async with Client(server.url, mode="legacy") as client:
        every = json.loads((await client.read_resource("athena://named-queries")).contents[0].text)
    assert [q["id"] for q in every["named_queries"]] == [estate["contacts to write to"], estate["daily ledger check"]]


async def test_search_is_in_discovery_and_completes_its_account(server: ServerThread, estate: dict[str, str]) -> None:
    async with Client(server.url, mode="legacy") as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        listed = json.loads((await client.call_tool("get_resource", {})).content[0].text)
        capabilities = json.loads((await client.read_resource("info://capabilities")).contents[0].text)
        completed = await client.complete({"type": "ref/resource", "uri": "athena://search{?q,database,account,cursor}"},
                                          {"name": "database", "value": "zone_3"})
    assert "athena://search{?q,database,account,cursor}" in templates
    assert "athena://search{?q,database,account,cursor}" in json.dumps(listed)
    assert "athena://named-queries" in json.dumps(capabilities)
    assert completed.completion.values == [f"zone_3{n}" for n in range(10)]


def test_moto_search_pages_as_glue_does(estate: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moto_search, "SEARCH_PAGE_LIMIT", 7)
    glue = boto3.client("glue", region_name=REGION)
    first = glue.search_tables(SearchText="contact_email", MaxResults=50)
    second = glue.search_tables(SearchText="contact_email", NextToken=first["NextToken"])
    assert len(first["TableList"]) == 7 and {t["Name"] for t in second["TableList"]}.isdisjoint(
        {t["Name"] for t in first["TableList"]})
    local = glue.search_tables(SearchText="contact_email", MaxResults=100)["TableList"]
    assert SHARED[1] not in {t["Name"] for t in local}  # LOCAL unless asked: shared tables only with FOREIGN/ALL
    foreign = glue.search_tables(SearchText="contact_email", ResourceShareType="FOREIGN")["TableList"]
    assert [(t["CatalogId"], t["Name"]) for t in foreign] == [(OTHER, SHARED[1])]
