"""The demo's S3 table as an independent oracle reads it: every snapshot of
``"s3tablescatalog/acme-analytics".sales.daily_orders``, through ``athena_query``'s time travel, holds what
pyiceberg's own scan of that snapshot holds, and its metadata tables are pyiceberg's ``inspect`` tables.

The oracle is pyiceberg as a platform team runs it against the account: its GlueCatalog over the demo caller's
Glue client in the table bucket's catalog (``<account>:s3tablescatalog/acme-analytics``), its PyArrow FileIO reading
S3 through the endpoint with the caller's keys (IAM enforced), nothing of the demo's own reading code. Answers come
through the MCP protocol on both revisions, with the catalog in the SQL and as the query context; and, in the
hosted demo, as bob, whose role may not read the table's data. Search and tabulator://buckets list the table
bucket through the demo's endpoint; carol, who may not list it, keeps her other results beside the error.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pyiceberg.catalog.glue import GlueCatalog, _register_glue_catalog_id_with_glue_client
from pyiceberg.table import Table

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.lakehouse import APPENDED_DAY, LOAD_DAYS
from aws_data_mcp_demo.account.s3_tables import CATALOG, NAMESPACE, TABLE
from support.events import load_event
from support.queries import answer, query, query_as
from support.reading import read_everywhere
from support.servers import ServerThread, demo_query_server, free_port, lambda_container, start_demo

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]

REVISIONS = ("legacy", "2026-07-28")
METADATA_TABLES = ("snapshots", "history", "files", "manifests", "partitions", "refs")
QUALIFIED = f'"{CATALOG}".{NAMESPACE}.{TABLE}'
STATIC_EVENT = "http-api-v2/resources-read-static.json"
Handler = Callable[[dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(query_wait_seconds=20) as server:
        yield server


@pytest.fixture(scope="module")
def demo_handler(demo: DemoAccount) -> Handler:
    """The Lambda path in demo mode, over the module's demo account."""
    return lambda_container(Settings(mode="demo", allowed_hosts=(load_event(STATIC_EVENT)["headers"]["host"],)))


@pytest.fixture(scope="module")
def oracle(demo: DemoAccount) -> Table:
    """The table as pyiceberg loads it from the bucket's Glue catalog, as the demo caller: S3 over HTTP."""
    environment = demo.caller_environment()
    glue = demo.caller_client("glue")
    account = demo.caller_client("sts").get_caller_identity()["Account"]
    _register_glue_catalog_id_with_glue_client(glue, f"{account}:{CATALOG}")
    catalog = GlueCatalog("oracle", client=glue, **{
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO", "s3.endpoint": demo.endpoint_url,
        "s3.region": demo.region, "s3.access-key-id": environment["AWS_ACCESS_KEY_ID"],
        "s3.secret-access-key": environment["AWS_SECRET_ACCESS_KEY"]})
    return catalog.load_table((NAMESPACE, TABLE))


async def _athena(server: ServerThread, mode: str, sql: str, **context: str) -> dict[str, Any]:
    got = answer(await query(server, mode, sql=sql, **({"database": NAMESPACE} | context)))
    assert got["state"] == "SUCCEEDED", (sql, got)
    return got


def _scanned(oracle: Table, snapshot_id: int) -> tuple[int, Decimal, int]:
    scan = oracle.scan(snapshot_id=snapshot_id)
    rows = scan.to_arrow()
    return rows.num_rows, pc.sum(rows["revenue_usd"]).as_py(), sum(t.file.file_size_in_bytes
                                                                   for t in scan.plan_files())


def _athena_timestamp(epoch_ms: int) -> str:
    return f"{datetime.fromtimestamp(epoch_ms // 1000, UTC):%Y-%m-%d %H:%M:%S}.{epoch_ms % 1000:03d} UTC"


def test_the_table_is_the_lakes_usd_orders_by_day(oracle: Table) -> None:
    """Two snapshots (the load, the append of a day), each row what sales.orders' own files say of its day."""
    assert [s.summary.operation.value for s in oracle.snapshots()] == ["append", "append"]
    rows = oracle.scan().to_arrow().sort_by("order_date").to_pylist()
    assert [str(row["order_date"]) for row in rows] == [*LOAD_DAYS, APPENDED_DAY]
    files = lake_files()["sales.orders"].files
    for row in rows:
        day = pa.concat_tables([_parquet(body) for key, body in files.items()
                                if key.startswith(f"order_date={row['order_date']}/")])
        usd = day.filter(pc.equal(day["currency"], "USD"))
        assert row["orders"] == usd.num_rows
        assert row["revenue_usd"] == sum(usd["total_amount"].to_pylist(), Decimal("0.00"))


def _parquet(body: bytes) -> pa.Table:
    import pyarrow.parquet as pq

    return pq.read_table(pa.BufferReader(body))


@pytest.mark.parametrize("mode", REVISIONS)
async def test_every_snapshot_answers_time_travel_as_pyiceberg_scans_it(
        query_server: ServerThread, demo_caller: DemoAccount, oracle: Table, mode: str) -> None:
    history = {entry.snapshot_id: entry.timestamp_ms for entry in oracle.history()}
    for snapshot in oracle.snapshots():
        rows, total, scanned = _scanned(oracle, snapshot.snapshot_id)
        for clause in (f"FOR VERSION AS OF {snapshot.snapshot_id}",
                       f"FOR TIMESTAMP AS OF TIMESTAMP '{_athena_timestamp(history[snapshot.snapshot_id])}'"):
            got = await _athena(query_server, mode, f"SELECT count(*), sum(revenue_usd) FROM {QUALIFIED} {clause}")
            assert got["results"]["rows"] == [[rows, str(total)]], clause
            assert got["statistics"]["data_scanned_bytes"] == scanned, clause
            in_context = await _athena(query_server, mode, f"SELECT count(*), sum(revenue_usd) FROM {NAMESPACE}."
                                                           f"{TABLE} {clause}", catalog=CATALOG)
            assert in_context["results"]["rows"] == got["results"]["rows"], clause
    current = _scanned(oracle, oracle.current_snapshot().snapshot_id)
    got = await _athena(query_server, mode, f"SELECT count(*), sum(revenue_usd) FROM {TABLE}", catalog=CATALOG)
    assert got["results"]["rows"] == [[current[0], str(current[1])]]


def _as_answered(value: Any) -> Any:
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%dT%H:%M:%S}.{value.microsecond // 1000:03d} UTC"
    return value


def _scalar(field: pa.Field) -> bool:
    kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
    return not pa.types.is_nested(kind)


@pytest.mark.parametrize("kind", METADATA_TABLES)
async def test_every_metadata_table_is_pyiceberg_inspect_table(
        query_server: ServerThread, demo_caller: DemoAccount, oracle: Table, kind: str) -> None:
    expected = getattr(oracle.inspect, kind)()
    name = f'"{CATALOG}".{NAMESPACE}."{TABLE}${kind}"'
    counted = await _athena(query_server, REVISIONS[0], f"SELECT count(*) FROM {name}")
    assert counted["results"]["rows"] == [[expected.num_rows]]
    scalars = [field.name for field in expected.schema if _scalar(field)]
    got = await _athena(query_server, REVISIONS[1], f"SELECT {', '.join(scalars)} FROM \"{TABLE}${kind}\"",
                        catalog=CATALOG)
    assert Counter(map(tuple, got["results"]["rows"])) == Counter(
        tuple(_as_answered(row[column]) for column in scalars) for row in expected.select(scalars).to_pylist())
    assert got["statistics"]["data_scanned_bytes"] == 0


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The oidc hosted demo: its URL and each caller's token."""
    process, url, banner = start_demo("oidc", Path(tmp_path_factory.mktemp("s3tables")))
    names = re.findall(r"^== (\w+):", banner, re.M)
    tokens = dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    yield url, tokens
    process.terminate()
    process.wait(10)


async def test_bob_is_refused_the_tables_data_as_athena_refuses_it(hosted: tuple[str, dict[str, str]]) -> None:
    """alice's role reads the table; bob's lacks s3tables:GetTableData on it: access_denied naming the action and
    the table's ARN, with the one statement that grants it and the table's resource."""
    url, tokens = hosted
    arguments = {"sql": f"SELECT count(*) FROM {QUALIFIED}"}
    failed, alice = await query_as(url, tokens["alice"], arguments)
    assert not failed and alice["state"] == "SUCCEEDED", alice
    failed, answered = await query_as(url, tokens["bob"], arguments)
    bob = answered["error"]
    assert failed and answered["state"] == "FAILED" and bob["error"] == "access_denied", answered
    assert "s3tables:GetTableData" in bob["message"] and f"bucket/acme-analytics/table/{TABLE}" in bob["message"]
    assert bob["action"] == "s3tables:GetTableData"
    grant = next(d for d in bob["details"] if d.startswith("Grant"))
    assert '"Action": "s3tables:GetTableData"' in grant and f'table/{TABLE}"' in grant
    assert any(f"athena://catalogs/s3tablescatalog%2Facme-analytics/databases/{NAMESPACE}/tables/{TABLE}" in d
               for d in bob["details"])


@pytest.mark.parametrize("mode", REVISIONS)
async def test_the_table_is_found_where_people_look(query_server: ServerThread, demo_caller: DemoAccount,
                                                    oracle: Table, mode: str) -> None:
    """athena://catalogs lists the bucket's catalog, and the catalog-named resource (read directly and through
    get_resource) is the table pyiceberg reads: its columns, current snapshot and the bucket's ARN."""
    encoded = CATALOG.replace("/", "%2F")
    uri = f"athena://catalogs/{encoded}/databases/{NAMESPACE}/tables/{TABLE}"
    async with Client(query_server.url, mode=mode) as client:
        catalogs = await _read(client, "athena://catalogs")
        resource = await _read(client, uri)
        through_tool = json.loads((await client.call_tool("get_resource", {"uri": uri})).content[0].text)
    listed = {entry["name"]: entry for entry in catalogs["catalogs"]}
    assert listed[CATALOG]["kind"] == "s3_tables" and listed[CATALOG]["databases"] == f"athena://catalogs/{encoded}/databases"
    assert through_tool == resource
    assert [column["name"] for column in resource["columns"]] == [field.name for field in oracle.schema().fields]
    assert resource["table_bucket"].endswith(f":bucket/{CATALOG.split('/', 1)[1]}")
    assert str(oracle.current_snapshot().snapshot_id) in json.dumps(resource)


async def _read(client: Client, uri: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(uri)).contents[0].text)


async def test_search_and_the_buckets_list_the_table_bucket(demo_handler: Handler, demo_caller: DemoAccount) -> None:
    """As demo-analyst, on every path: search finds the S3 table in its catalog, and tabulator://buckets names the
    table bucket with its namespace and table, with no listing error."""
    with ServerThread(Settings(mode="demo", port=free_port())) as server:
        search = await read_everywhere(server.url, demo_handler, "athena://search?q=daily")
        buckets = await read_everywhere(server.url, demo_handler, "tabulator://buckets")
    hits = [(h["catalog"], h["database"], h["table"]) for h in search["hits"] if h["kind"] == "table"]
    assert (CATALOG, NAMESPACE, TABLE) in hits
    assert CATALOG in search["catalogs_searched"] and search["catalog_errors"] == []
    table_bucket = next(b for b in buckets["buckets"] if b["kind"] == "table bucket")
    assert table_bucket["bucket"] == CATALOG.split("/", 1)[1] and table_bucket["catalog"] == CATALOG
    assert table_bucket["databases"] == [{"database": NAMESPACE, "tables": [TABLE]}]
    assert "table_buckets_error" not in buckets and "table_bucket_errors" not in buckets


async def test_a_caller_denied_the_listing_keeps_the_other_results(hosted: tuple[str, dict[str, str]]) -> None:
    """carol's role lists no table bucket: tabulator://buckets names the denied action beside her Glue buckets.
    (Her search is refused as a whole: she may not call glue:SearchTables either.)"""
    url, tokens = hosted
    buckets = await _read_as(url, tokens["carol"], "tabulator://buckets")
    assert buckets["table_buckets_error"]["error"] == "access_denied"
    assert buckets["table_buckets_error"]["action"] == "s3tables:ListTableBuckets"
    assert buckets["buckets"] and all(b["kind"] == "bucket" for b in buckets["buckets"])
    alice = await _read_as(url, tokens["alice"], "tabulator://buckets")
    assert "table_buckets_error" not in alice
    assert [b["bucket"] for b in alice["buckets"] if b["kind"] == "table bucket"] == [CATALOG.split("/", 1)[1]]


async def _read_as(url: str, token: str, uri: str) -> dict[str, Any]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode=REVISIONS[1]) as client:
        return await _read(client, uri)
