"""athena_query as a test calls it: through the SDK client, its answer read back as the structured JSON it carries."""

from __future__ import annotations

import json
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from support.servers import ServerThread


def answer(result: CallToolResult) -> dict[str, Any]:
    """A tool result's JSON, which its text and its structured content both carry."""
    payload = json.loads(result.content[0].text)
    assert result.structured_content == payload
    return payload


async def query(server: ServerThread, mode: str, **arguments: Any) -> CallToolResult:
    """athena_query over `sales` (unless `arguments` name another database), on protocol revision `mode`."""
    async with Client(server.url, mode=mode) as client:
        return await client.call_tool("athena_query", {"database": "sales", **arguments})


async def query_as(url: str, token: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """athena_query through a hosted demo as the caller whose bearer `token` it is: whether it failed, and its JSON."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        result = await client.call_tool("athena_query", arguments)
    return bool(result.is_error), json.loads(result.content[0].text)
