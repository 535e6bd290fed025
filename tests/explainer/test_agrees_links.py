"""A resource link's explainer agrees with what Athena does, for each demo caller: `enterprise.shared_invoices`
names the lake account's `finance.invoices`, shared through Lake Formation.

alice, bob and the plain demo's caller may DESCRIBE the link and SELECT the target: the query reads the target's
rows. carol may DESCRIBE both but not SELECT the target: Lake Formation refuses her query, and the explainer names
that link with its grant. The link's table resource shows the target's columns and location for each caller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from aws_data_mcp_demo.account import enterprise
from aws_data_mcp_demo.account.emulated import DemoAccount
from support.queries import answer, query
from support.reading import read_everywhere
from support.servers import ServerThread, demo_query_server, start_demo

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
LINK = f"athena://databases/{enterprise.DATABASE}/tables/{enterprise.LINK}"
EXPLAIN = f"permissions://tables/{enterprise.DATABASE}/{enterprise.LINK}"
SQL = f"SELECT * FROM {enterprise.LINK}"
TARGET = {"account": enterprise.LAKE_ACCOUNT, "database": "finance", "table": "invoices"}
COLUMNS = ["invoice_id", "customer_id", "issued_on", "amount_usd", "status"]
READS = {"alice": True, "bob": True, "carol": False}


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The oidc hosted demo: its URL and each caller's token."""
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("links"))
    names = re.findall(r"^== (\w+):", banner, re.M)
    yield url, dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    process.terminate()
    process.wait(10)


async def _as(url: str, token: str, mode: str) -> tuple[dict[str, Any], dict[str, Any], tuple[bool, Any]]:
    """The link's resource and explainer read as the caller, then athena_query on the link where it says."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
            Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        table = json.loads((await client.read_resource(LINK)).contents[0].text)
        explained = json.loads((await client.read_resource(EXPLAIN)).contents[0].text)
        result = await client.call_tool("athena_query", {"sql": SQL, "database": enterprise.DATABASE,
                                                         "workgroup": explained["workgroup"]})
    return table, explained, (bool(result.is_error), json.loads(result.content[0].text))


def _link_of(table: dict[str, Any]) -> dict[str, Any]:
    shared = table["resource_link"]
    assert shared["target"] == TARGET and "error" not in shared, table
    assert [c["name"] for c in shared["columns"]] == COLUMNS, shared
    assert shared["location"] == "s3://acme-finance-lake/finance/invoices/", shared
    assert table["column_access"]["decided_by"] == "lake_formation" and table["columns"] == [], table
    return shared


def _agrees(explained: dict[str, Any], failed: bool, got: dict[str, Any]) -> None:
    """The explainer's query verdict is what athena_query did; a refusal is Lake Formation's, at SELECT."""
    assert explained["query"] == ("denied" if failed else "allowed"), (explained["summary"], got)
    checks = {entry["check"]: entry for entry in explained["links"]}
    assert checks["lakeformation:DESCRIBE"]["verdict"] == "allowed", checks
    assert checks["glue:GetTable"]["verdict"] == "allowed", checks
    storage = checks["s3:GetObject"]
    assert storage["governed_by"] == "lake_formation" and storage["verdict"] == "unknown", storage
    if not failed:
        assert got["results"]["columns"] and len(got["results"]["rows"]) == 120, got
        assert explained["resource_link"]["refused_at"] is None and explained["read_columns"] == COLUMNS
        return
    assert got["error"]["error"] == "access_denied", got
    assert "Insufficient Lake Formation permission(s) on invoices" in got["error"]["message"], got
    assert explained["resource_link"]["refused_at"] == "lakeformation:SELECT", explained
    select = checks["lakeformation:SELECT"]
    assert select["verdict"] == "denied", select
    fix = select["fix"][0]
    assert fix["kind"] == "lake_formation_grant" and fix["request"]["Resource"] == {"Table": {
        "CatalogId": enterprise.LAKE_ACCOUNT, "DatabaseName": "finance", "Name": "invoices"}}, fix
    assert fix["request"]["Permissions"] == ["SELECT"] and '"CatalogId":"111122223333"' in fix["command"], fix


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("caller", sorted(READS))
async def test_each_hosted_callers_link_verdict_is_what_athena_query_does(
        hosted: tuple[str, dict[str, str]], caller: str, mode: str) -> None:
    url, tokens = hosted
    table, explained, (failed, got) = await _as(url, tokens[caller], mode)
    shared = _link_of(table)
    assert shared["uri"] == "athena://databases/finance/tables/invoices?account=lake", shared  # a listed account
    assert failed is not READS[caller], (caller, got)
    _agrees(explained, failed, got)


async def test_carols_first_query_of_the_link_is_refused_as_a_structured_error(
        hosted: tuple[str, dict[str, str]]) -> None:
    """Her estimate meets Lake Formation's SELECT refusal: an access_denied read, on every path, not `internal`."""
    url, tokens = hosted
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens['carol']}"}, timeout=60) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        with pytest.raises(MCPError) as failed:
            await client.read_resource(f"{LINK}/first-query")
        tool = await client.call_tool("get_resource", {"uri": f"{LINK}/first-query"})
    for data in (failed.value.error.data, tool.structured_content):  # each read asks Athena again: its own id
        assert data["error"] == "access_denied" and "Lake Formation permission(s) on invoices" in data["message"]
        assert f"{EXPLAIN} says which check refuses, with its fix." in data["details"], data
    assert tool.is_error


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(query_wait_seconds=20) as server:
        yield server


async def test_the_plain_demo_callers_link_read_every_way_agrees_with_athena_query(
        query_server: ServerThread, demo_query_lambda: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount) -> None:
    table = await read_everywhere(query_server.url, demo_query_lambda, LINK)
    _link_of(table)
    explained = await read_everywhere(query_server.url, demo_query_lambda, EXPLAIN)
    result = await query(query_server, "2026-07-28", sql=SQL, database=enterprise.DATABASE,
                         workgroup=explained["workgroup"])
    _agrees(explained, bool(result.is_error), answer(result))
    assert explained["decided_by"] == "lake_formation" and explained["location"] == _link_of(table)["location"]

