"""athena_query as a test calls it: through the SDK client, its answer read back as the structured JSON it carries."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client
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
