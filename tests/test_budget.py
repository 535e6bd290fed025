"""The character budget holds for every response, or the response says how and why it was exceeded.

Pages carry the list, not the document around it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.registry import Registry
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.metadata import templates
from support.events import REVISION_2025, REVISION_2026, modern, rpc
from support.live_values import steady
from support.servers import ServerThread, free_port

BUDGET = 5_000


@pytest.fixture(scope="module")
def tight_server() -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port(), response_char_budget=BUDGET)) as server:
        yield server


def shipped_document_uris() -> list[str]:
    """Every URI served from what ships with the server (no AWS call), templates filled with every name."""
    uris = [spec.uri for spec in registry.static() if not spec.aws_calls and spec.requires == "none"]
    return uris + [f"metadata://templates/{name}" for name in templates()]


def assert_within_budget_or_explained(text: str) -> dict[str, Any]:
    body = json.loads(text)
    if len(text) > BUDGET:
        note = body.get("over_budget")
        assert note, f"{len(text)} characters over a {BUDGET} budget, and the response does not say why"
        assert note["budget"] == BUDGET and note["characters"] > BUDGET and note["reason"]
    return body  # type: ignore[no-any-return]


@pytest.mark.anyio
@pytest.mark.parametrize("uri", shipped_document_uris())
async def test_every_response_holds_the_budget_or_says_why(tight_server: ServerThread, http_server: ServerThread,
                                                           uri: str) -> None:
    spec = registry.match(uri)
    assert spec is not None
    field = spec.spec.list_field
    async with Client(http_server.url, mode="legacy") as roomy:
        whole = json.loads((await roomy.read_resource(uri)).contents[0].text)
    async with Client(tight_server.url, mode="legacy") as client:
        next_uri: str | None = uri
        items: list[Any] = []
        pages = 0
        while next_uri:
            text = (await client.read_resource(next_uri)).contents[0].text
            tool = await client.call_tool("get_resource", {"uri": next_uri})
            assert steady(next_uri, tool.content[0].text) == steady(next_uri, text), \
                "get_resource answers the same bytes under the budget (free disk space aside)"
            body = assert_within_budget_or_explained(text)
            pages += 1
            if field is None:
                break
            if pages > 1:
                assert set(body) - {"over_budget"} == {field, "page"}, f"page {pages} repeats the document"
            else:
                assert {k: v for k, v in body.items() if k not in (field, "page", "over_budget")} == {
                    k: v for k, v in whole.items() if k not in (field, "page")}
            items += body[field]
            next_uri = body["page"]["next_uri"]
    if field is not None:
        assert items == whole[field], "the pages together hold the whole list, in order"


@pytest.mark.anyio
async def test_troubleshooting_pages_carry_the_list_only(tight_server: ServerThread) -> None:
    async with Client(tight_server.url, mode="legacy") as client:
        first = json.loads((await client.read_resource("metadata://troubleshooting")).contents[0].text)
        second = json.loads((await client.read_resource(first["page"]["next_uri"])).contents[0].text)
    assert "summary" in first and "faq" in first
    assert "summary" not in second and "faq" not in second and second["errors"]


# --- The rule itself, on a throwaway registry ------------------------------------------------------

def read(result: Any, budget: int, list_field: str | None = None, uri: str = "test://doc") -> dict[str, Any]:
    test_registry = Registry()
    test_registry.resource("test://doc", name="doc", title="Doc", description="a document",
                           list_field=list_field)(lambda request: result)
    reader = ResourceReader(test_registry, Settings(mode="local", response_char_budget=budget))
    nobody = Caller("local", None, "us-east-1", "not needed")
    text = anyio.run(reader.read, uri, lambda: nobody).text
    body = json.loads(text)
    if len(text) > budget:
        assert body["over_budget"]["reason"], text
    else:
        assert "over_budget" not in body
    return body  # type: ignore[no-any-return]


def test_a_document_that_fits_is_untouched() -> None:
    assert read({"a": "x" * 100}, 1_000) == {"a": "x" * 100}


def test_a_single_document_over_the_budget_says_so() -> None:
    body = read({"schema": {"description": "x" * 2_000}}, 1_000)
    assert body["schema"] == {"description": "x" * 2_000}, "a document is never cut into invalid JSON"
    assert body["over_budget"]["budget"] == 1_000 and "single document" in body["over_budget"]["reason"]


def test_an_item_larger_than_the_budget_is_a_page_of_its_own_that_says_so() -> None:
    body = read({"items": ["x" * 2_000, "y"]}, 1_000, "items")
    assert body["items"] == ["x" * 2_000] and body["page"]["returned"] == 1 and body["page"]["next_uri"]
    assert "one item" in body["over_budget"]["reason"]


def test_a_large_document_around_an_empty_list_reports_no_item() -> None:
    body = read({"about": "x" * 2_000, "items": []}, 1_000, "items")
    assert body["items"] == [] and body["page"]["returned"] == 0 and body["page"]["next_uri"] is None
    assert body["over_budget"]["reason"]


# --- List methods and get_resource's discovery, under the same budget ------------------------------

LISTS = {"resources/list": "resources", "resources/templates/list": "resourceTemplates", "tools/list": "tools"}


def post(url: str, body: dict[str, Any], revision: str) -> str:
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": revision}
    if revision == REVISION_2026:
        headers["mcp-method"] = body["method"]
    response = httpx2.post(url, json=body, headers=headers, timeout=10)
    assert response.status_code == 200, response.text[:300]
    return response.text


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
@pytest.mark.parametrize("method", sorted(LISTS))
def test_list_methods_page_to_the_budget(tight_server: ServerThread, http_server: ServerThread, method: str,
                                         revision: str) -> None:
    build = rpc if revision == REVISION_2025 else modern
    field = LISTS[method]
    whole = json.loads(post(http_server.url, build(method, {}), revision))["result"][field]
    entries: list[Any] = []
    cursor: str | None = None
    for _ in range(len(whole)):
        text = post(tight_server.url, build(method, {"cursor": cursor} if cursor else {}), revision)
        result = json.loads(text)["result"]
        if len(text) > BUDGET:
            note = (result.get("_meta") or {}).get("over_budget")
            assert note and len(result[field]) == 1, f"{len(text)} characters over {BUDGET}, and no word why"
            assert note["budget"] == BUDGET and note["reason"]
        entries += result[field]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    assert entries == whole, "the pages together hold the whole list, in order"


def test_get_resource_discovery_holds_the_budget_or_says_why(tight_server: ServerThread) -> None:
    text = post(tight_server.url, rpc("tools/call", {"name": "get_resource", "arguments": {}}), REVISION_2025)
    result = json.loads(text)["result"]
    assert result["isError"] is False
    discovery = json.loads(result["content"][0]["text"])
    assert discovery == result["structuredContent"]
    assert_within_budget_or_explained(result["content"][0]["text"])
    assert {"auth://status", "config://server"} <= {entry["uri"] for entry in discovery["resources"]}
