"""MCP Apps views through the real protocol, both revisions: a client that negotiates `io.modelcontextprotocol/ui`
gets the `ui://` documents, the bound tools stamped and results without `resource_link`; one that does not gets
exactly the lists and answers it always got."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp.client.extension import ClientExtension
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from mcp.shared.exceptions import MCPError

from aws_data_mcp.config import Settings
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.views import ACCESS, QUERY_RESULTS, SHOW_ACCESS
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
REVISIONS = ("legacy", "2026-07-28")
VIEW_LIMIT_BYTES = 150_000
SQL = "SELECT order_date, count(*) AS orders FROM orders WHERE order_date < '2026-01-04' GROUP BY 1 ORDER BY 1"


class McpApps(ClientExtension):
    """What an MCP Apps host advertises: the extension, and that it renders the app MIME type."""

    identifier = EXTENSION_ID

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [APP_MIME_TYPE]}


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with ServerThread(settings) as running:
        yield running


@pytest.mark.parametrize("mode", REVISIONS)
async def test_a_client_without_the_extension_gets_what_it_always_got(server: ServerThread,
                                                                     demo_caller: DemoAccount, mode: str) -> None:
    async with Client(server.url, mode=mode) as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        result = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"})
        hidden = await client.call_tool(SHOW_ACCESS, {})
        with pytest.raises(MCPError):
            await client.read_resource(QUERY_RESULTS)
    assert [tool.name for tool in tools] == [tool.name for tool in registry.tools()]
    assert SHOW_ACCESS not in [tool.name for tool in tools]
    assert all("ui" not in (tool.meta or {}) for tool in tools)
    assert [r.uri for r in resources] == [spec.uri for spec in registry.static()]
    assert [block.type for block in result.content] == ["text", "resource_link"]
    assert hidden.is_error and "Unknown tool" in hidden.content[0].text


@pytest.mark.parametrize("mode", REVISIONS)
async def test_a_negotiating_host_gets_the_views_and_results_meant_for_them(server: ServerThread,
                                                                            demo_caller: DemoAccount,
                                                                            mode: str) -> None:
    async with Client(server.url, mode=mode, extensions=[McpApps()]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resources = {r.uri: r for r in (await client.list_resources()).resources}
        documents = {uri: (await client.read_resource(uri)).contents[0] for uri in (QUERY_RESULTS, ACCESS)}
        result = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"})
        access = await client.call_tool(SHOW_ACCESS, {})
    assert tools["athena_query"].meta["ui"] == {"resourceUri": QUERY_RESULTS}
    assert tools[SHOW_ACCESS].meta["ui"] == {"resourceUri": ACCESS}
    assert "ui" not in (tools["get_resource"].meta or {})
    for uri, document in documents.items():
        assert resources[uri].mime_type == document.mime_type == APP_MIME_TYPE
        # No domain to load from or connect to, and the clipboard for "copy": the host's default CSP holds.
        assert document.meta["ui"] == {"csp": {}, "permissions": {"clipboardWrite": {}}}
        assert document.text.startswith("<!doctype html>")
        assert len(document.text.encode()) <= VIEW_LIMIT_BYTES
    assert [block.type for block in result.content] == ["text"]
    assert result.structured_content["uri"].startswith("athena://queries/")
    assert result.structured_content["results"]["rows"][0] == ["2026-01-01", result.structured_content["results"][
        "rows"][0][1]]
    assert not access.is_error and access.structured_content["buckets"]

