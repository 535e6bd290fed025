"""Every resource through the real MCP protocol: the SDK's client over HTTP, both revisions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference

from aws_data_mcp.resources import registry
from aws_data_mcp.resources.metadata import templates
from support.live_values import steady

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def concrete_uris() -> list[str]:
    """Every URI the registry knows, templates filled with real values."""
    uris = [spec.uri for spec in registry.static()]
    uris += [f"metadata://templates/{name}" for name in templates()]
    return uris


@pytest.mark.parametrize("mode", MODES)
async def test_lists_are_complete_and_sorted(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        resources = (await client.list_resources()).resources
        listed_templates = (await client.list_resource_templates()).resource_templates
    uris = [r.uri for r in resources]
    assert uris == sorted(uris) == [s.uri for s in registry.static()]
    assert [t.uri_template for t in listed_templates] == [s.uri for s in registry.templates()]
    assert all(r.mime_type == "application/json" and r.description for r in resources)


async def test_cursors_page_through_everything(paged_http_server: Any) -> None:
    async with Client(paged_http_server.url, mode="legacy") as client:
        seen: list[str] = []
        cursor: str | None = None
        pages = 0
        while True:
            page = await client.list_resources(cursor=cursor)
            seen += [r.uri for r in page.resources]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        with pytest.raises(MCPError) as bad:
            await client.list_resources(cursor="not-a-cursor")
    assert seen == [s.uri for s in registry.static()]
    assert pages == -(-len(seen) // 3)
    assert "cursor" in bad.value.error.message.lower()


@pytest.mark.parametrize("mode", MODES)
async def test_every_uri_reads_as_json_and_get_resource_returns_the_same_bytes(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        for uri in concrete_uris():
            read = await client.read_resource(uri)
            (content,) = read.contents
            assert content.uri == uri
            assert content.mime_type == "application/json"
            json.loads(content.text)
            tool = await client.call_tool("get_resource", {"uri": uri})
            assert not tool.is_error, uri
            # Byte for byte but for free disk space (see `steady`): the tool must equal one of its neighbours.
            after = (await client.read_resource(uri)).contents[0]
            assert steady(uri, tool.content[0].text) in {steady(uri, content.text), steady(uri, after.text)}, uri


@pytest.mark.parametrize("mode", MODES)
async def test_auth_status_names_the_caller_through_the_protocol(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        status = json.loads((await client.read_resource("auth://status")).contents[0].text)
    assert status["authenticated"] is True and status["auth_mode"] == "local"
    assert status["account"] == "123456789012" and status["principal_arn"].startswith("arn:aws:")


@pytest.mark.parametrize("mode", MODES)
async def test_get_resource_discovery_lists_every_resource_and_template(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        for arguments in ({}, {"uri": ""}):
            result = await client.call_tool("get_resource", arguments)
            discovery = json.loads(result.content[0].text)
            assert [r["uri"] for r in discovery["resources"]] == [s.uri for s in registry.static()]
            (template,) = [t for t in discovery["templates"] if t["uriTemplate"] == "metadata://templates/{template}"]
            assert template["isTemplate"] and template["parameters"] == ["template"]
            assert {r["requires"] for r in discovery["resources"]} <= {"none", "auth", "admin"}
        tools = (await client.list_tools()).tools
    (get_resource,) = [t for t in tools if t.name == "get_resource"]
    assert get_resource.annotations is not None and get_resource.annotations.read_only_hint
    assert "metadata://" in (get_resource.description or "")


@pytest.mark.parametrize("mode", MODES)
async def test_errors_agree_between_read_and_get_resource(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        for uri, code in [
            ("auth://statu", "not_found"),
            ("nope://x", "invalid_uri"),
            ("metadata://templates/no-such-template", "not_found"),
        ]:
            with pytest.raises(MCPError) as read_error:
                await client.read_resource(uri)
            tool = await client.call_tool("get_resource", {"uri": uri})
            data = read_error.value.error.data
            assert tool.is_error
            assert data == tool.structured_content
            assert data["error"] == code
            assert data["details"] and data["retryable"] is False
            assert data["valid_uris"]
        # The unknown template name lists the valid names, nearest first is not needed: all of them.
        assert set(data["valid_uris"]) == {f"metadata://templates/{n}" for n in templates()}
        with pytest.raises(MCPError) as typo:
            await client.read_resource("auth://statu")
        assert typo.value.error.data["valid_uris"][0] == "auth://status"


@pytest.mark.parametrize("mode", MODES)
async def test_completion_offers_template_names(http_server: Any, mode: str) -> None:
    ref = ResourceTemplateReference(uri="metadata://templates/{template}")
    async with Client(http_server.url, mode=mode) as client:
        everything = await client.complete(ref, {"name": "template", "value": ""})
        some = await client.complete(ref, {"name": "template", "value": "ath"})
    assert everything.completion.values == sorted(templates())
    assert some.completion.values == ["athena-table"]


async def test_capabilities_resource_is_generated_from_the_registry(http_server: Any) -> None:
    async with Client(http_server.url, mode="legacy") as client:
        capabilities = json.loads((await client.read_resource("info://capabilities")).contents[0].text)
        tools = (await client.list_tools()).tools
    assert capabilities["resources"] == registry.discovery()["resources"]
    assert capabilities["templates"] == registry.discovery()["templates"]
    assert [t["name"] for t in capabilities["tools"]] == sorted(t.name for t in tools)


async def test_a_list_over_the_character_budget_is_cut_into_json_pages(budget_http_server: Any) -> None:
    async with Client(budget_http_server.url, mode="legacy") as client:
        uri, names, pages = "metadata://templates", [], 0
        while uri:
            text = (await client.read_resource(uri)).contents[0].text
            assert len(text) <= budget_http_server.settings.response_char_budget
            body = json.loads(text)
            names += [t["name"] for t in body["templates"]]
            assert body["page"]["total"] == len(templates())
            uri = body["page"]["next_uri"]
            pages += 1
        with pytest.raises(MCPError) as bad:
            await client.read_resource("metadata://templates?cursor=bogus")
    assert names == list(templates())
    assert pages > 1
    assert bad.value.error.data["error"] == "invalid_argument"
