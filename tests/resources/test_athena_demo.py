"""The Athena resources for the demo caller against the seeded demo account, IAM enforced: exactly what was
seeded, and completion with the demo's own names (tests/demo reads the same account through the `demo` command).

One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference

from aws_data_mcp.config import Settings
from aws_data_mcp.demo.account import DemoAccount
from aws_data_mcp.demo.seed_data import DENIED_WORKGROUP
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def demo_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="demo", port=free_port())) as server:
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
    counts = {d["name"]: d["table_count"] for d in databases["databases"]}
    assert counts == {name: len(tables) for name, tables in inventory.databases.items()}
    assert len(history["executions"]) == len(inventory.query_execution_ids) and history["workgroup_errors"] == []
    assert Counter(e["state"] for e in history["executions"]) == Counter(inventory.query_states)
    assert {e["workgroup"] for e in history["executions"]} == set(inventory.query_workgroups)
    assert {t["name"]: t["format"] for t in sales["tables"]} == {
        "orders": "parquet", "order_items": "parquet", "customers": "parquet", "products": "parquet",
        "raw_orders": "csv"}
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
    assert chosen.completion.values == ["order_items", "orders"]
    assert set(executions.completion.values) == set(demo_caller.inventory.query_execution_ids)
