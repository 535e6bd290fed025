"""The Athena resources for the demo caller against the seeded demo account, IAM enforced: exactly what was
seeded, and completion with the demo's own names (tests/demo reads the same account through the `demo` command).

One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.lakehouse import DATABASE as LAKEHOUSE
from aws_data_mcp_demo.account.seed_data import DENIED_WORKGROUP, QUERY_CUTOFF_BYTES, QUERY_WORKGROUPS
from support.demo_access import REFUSED
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio

TESTED_ELSEWHERE = ("enterprise", LAKEHOUSE)
"""Databases whose tables are not Hive tables of the lake's files: test_enterprise_demo_access.py (its access cases),
test_athena_iceberg_demo.py (the Iceberg table's snapshots)."""


@pytest.fixture(scope="module")
def demo_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="demo", port=free_port())) as server:
        yield server


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20)
    with ServerThread(settings) as server:
        yield server


def unsigned(text: str) -> str:
    """`text` with each presigned URL's signature and expiry left out: both come from the second it was signed in."""
    return re.sub(r"(Signature|Expires)=[^&\"]*", r"\1=...", text)


async def read(client: Client, uri: str) -> Any:
    text = (await client.read_resource(uri)).contents[0].text
    tool = await client.call_tool("get_resource", {"uri": uri})
    assert not tool.is_error and unsigned(tool.content[0].text) == unsigned(text), uri
    return json.loads(text)


async def test_the_demo_caller_sees_exactly_the_seeded_estate(demo_server: ServerThread,
                                                               demo_caller: DemoAccount) -> None:
    inventory = demo_caller.inventory
    async with Client(demo_server.url, mode="2026-07-28") as client:
        workgroups = await read(client, "athena://workgroups")
        databases = await read(client, "athena://databases")
        history = await read(client, "athena://query/history")
        sales = await read(client, "athena://databases/sales/tables")
        succeeded = [e for e in history["executions"] if e["state"] == "SUCCEEDED" and e["statement_type"] == "DML"]
        query = await read(client, f"athena://queries/{succeeded[0]['execution_id']}")

    by_name = {w["name"]: w for w in workgroups["workgroups"]}
    assert sorted(by_name) == sorted(inventory.workgroups)
    assert by_name[DENIED_WORKGROUP]["error"]["action"] == "athena:GetWorkGroup"
    assert by_name["analytics"]["bytes_scanned_cutoff"] == 10_000_000
    listed = {d["name"]: d["tables"] for d in databases["databases"]}
    assert listed == {name: f"athena://databases/{name}/tables" for name in inventory.databases}
    assert len(history["executions"]) == len(inventory.query_execution_ids) and history["workgroup_errors"] == []
    assert Counter(e["state"] for e in history["executions"]) == Counter(inventory.query_states)
    assert {e["workgroup"] for e in history["executions"]} == set(inventory.query_workgroups)
    assert {t["name"]: t["format"] for t in sales["tables"]} == {
        "orders": "parquet", "order_items": "parquet", "customers": "parquet", "products": "parquet",
        "exchange_rates": "csv", "raw_orders": "csv", "orders_by_channel": "view", "returns_summary": "view"}
    assert all(t["description"] for t in sales["tables"])  # an agent picks its tables from the list alone
    columns = [c["name"] for c in query["results"]["columns"]]
    assert query["results"]["rows"] and len(query["results"]["rows"][0]) == len(columns)
    assert query["results"]["rows"][0] != columns  # the header row is dropped


async def test_completion_offers_the_demo_names(demo_server: ServerThread, demo_caller: DemoAccount) -> None:
    tables = ResourceTemplateReference(uri="athena://databases/{database}/tables/{table}")
    async with Client(demo_server.url, mode="legacy") as client:
        databases = await client.complete(tables, {"name": "database", "value": "s"})
        chosen = await client.complete(tables, {"name": "table", "value": "order"}, {"database": "sales"})
        executions = await client.complete(ResourceTemplateReference(uri="athena://queries/{execution_id}"),
                                           {"name": "execution_id", "value": ""})
    assert databases.completion.values == ["sales"]
    assert chosen.completion.values == ["order_items", "orders", "orders_by_channel"]
    assert set(executions.completion.values) == set(demo_caller.inventory.query_execution_ids)


@pytest.mark.usefixtures("quick_queries")
async def test_every_table_of_the_demo_catalog_answers_with_the_rows_its_files_hold(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    async with Client(query_server.url, mode="2026-07-28") as client:
        catalog = {database: [t["name"] for t in (await read(client, f"athena://databases/{database}/tables"))["tables"]
                              if t["type"] != "VIRTUAL_VIEW"]  # views: test_athena_table_facts_demo.py
                   for database in demo_caller.inventory.databases
                   if database not in TESTED_ELSEWHERE}
    files = lake_files()
    assert sorted(f"{d}.{t}" for d, tables in catalog.items() for t in tables) == sorted(files)
    for name, lake in files.items():
        if name in REFUSED["demo-analyst"]:  # as Athena would: test_athena_demo_access.py
            continue
        partition, rows = min(lake.rows.items())  # a partitioned table's first partition: under the cutoff
        where = f" WHERE {partition.split('=')[0]} = '{partition.split('=')[1]}'" if partition else ""
        got = answer(await query(query_server, "2026-07-28", sql=f"SELECT count(*) AS n FROM {name}{where}"))
        assert got["state"] == "SUCCEEDED" and got["results"]["rows"] == [[rows]], (name, got)
        assert 0 < got["statistics"]["data_scanned_bytes"] < QUERY_CUTOFF_BYTES, name


@pytest.mark.usefixtures("quick_queries")
async def test_a_four_table_join_answers_in_one_call_and_the_lines_add_up_to_the_orders(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    sql = ("SELECT c.country, p.category, count(DISTINCT o.order_id) AS orders, "
           "sum(oi.quantity * oi.unit_price - oi.discount) AS line_total "
           "FROM sales.orders o JOIN sales.customers c ON o.customer_id = c.customer_id "
           "JOIN sales.order_items oi ON oi.order_id = o.order_id "
           "JOIN sales.products p ON p.product_id = oi.product_id "
           "WHERE o.order_date = '2026-03-01' AND oi.order_date = '2026-03-01' GROUP BY 1, 2")
    totals = ("SELECT count(*) AS orders, sum(total_amount) AS total FROM sales.orders "
              "WHERE order_date = '2026-03-01'")
    got = answer(await query(query_server, "2026-07-28", sql=sql))
    expected = answer(await query(query_server, "2026-07-28", sql=totals))["results"]["rows"]
    assert got["state"] == "SUCCEEDED" and got["statistics"]["data_scanned_bytes"] < QUERY_CUTOFF_BYTES, got
    rows = got["results"]["rows"]
    assert {row[1] for row in rows} == {"footwear", "apparel", "accessories", "outdoor", "electronics"}
    assert sum(Decimal(row[3]) for row in rows) == Decimal(expected[0][1])  # every line found its customer, product


@pytest.mark.usefixtures("quick_queries")
async def test_a_careless_scan_of_the_biggest_tables_is_stopped_by_the_cutoff(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    for sql in ("SELECT * FROM sales.orders", "SELECT count(*) FROM marketing.web_sessions"):
        got = answer(await query(query_server, "2026-07-28", sql=sql))
        assert got["state"] == "CANCELLED" and got["results"] is None, got
        assert f"{QUERY_CUTOFF_BYTES:,}" in json.dumps(got), got
        assert got["statistics"]["data_scanned_bytes"] > 0 and got["statistics"]["cost_usd"] > 0, "Athena bills it"
