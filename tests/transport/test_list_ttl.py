"""Lists carry a TTL where the revision has one (2026-07-28's caching, SEP-2549), and only there.

Tools, prompts, resources and templates change only with a deployment, and with nobody's identity: an hour,
`public`. resources/read keeps its own hints (the caller's data private, for what the server's cache has left).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.server.mcp_server import LIST_TTL_MS
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, modern, rpc

LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_sdk_client_on_2026_gets_every_list_with_an_hours_public_ttl(http_server: Any) -> None:
    async with Client(http_server.url, mode="2026-07-28") as client:
        answers = [await client.list_tools(), await client.list_prompts(), await client.list_resources(),
                   await client.list_resource_templates()]
        status = await client.read_resource("auth://status")
    assert [(a.ttl_ms, a.cache_scope) for a in answers] == [(LIST_TTL_MS, "public")] * 4
    assert LIST_TTL_MS == 3_600_000
    assert (status.ttl_ms, status.cache_scope) == (0, "private"), "a read keeps its own, the caller's, hints"


@pytest.mark.parametrize("method", [*LISTS, "server/discover"])
def test_the_lambda_handler_sends_the_ttl_on_2026_and_nothing_on_2025(
        lambda_handler: Callable[[Any], dict[str, Any]], method: str) -> None:
    current = body_json(lambda_handler(http_api_event(modern(method), revision=REVISION_2026)))["result"]
    assert (current["ttlMs"], current["cacheScope"]) == (LIST_TTL_MS, "public"), current
    if method == "server/discover":
        return  # no such method before 2026-07-28
    legacy = body_json(lambda_handler(http_api_event(rpc(method), revision=REVISION_2025)))["result"]
    assert "ttlMs" not in legacy and "cacheScope" not in legacy, "2025-11-25 has no caching fields"
