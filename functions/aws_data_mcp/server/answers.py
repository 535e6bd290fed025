"""How an answer reaches the client: a tool result, or a failure as a tool error or a JSON-RPC error.

Every tool of this server answers through `tool_result` and `failure_result`, and every protocol method that
fails through `protocol_error`, so a failure carries the same structured payload on each path.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, ContentBlock, ResourceLink, TextContent

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.server.rendering import to_json


def tool_result(text: str, structured: dict[str, Any] | None = None, *, link: ResourceLink | None = None,
                is_error: bool = False) -> CallToolResult:
    """A tool result whose text is the JSON of `structured`, as every tool of this server answers, with `link` to
    the resource it is about."""
    content: list[ContentBlock] = [TextContent(type="text", text=text)]
    if link is not None:
        content.append(link)
    return CallToolResult(content=content, structured_content=structured, is_error=is_error)


def failure_result(failure: ResourceFailure) -> CallToolResult:
    """`failure` as a tool answers it: `isError`, with the payload `resources/read` gives in its error `data`."""
    payload = failure.payload()
    return tool_result(to_json(payload), payload, is_error=True)


def protocol_error(failure: ResourceFailure, protocol_version: str | None = None) -> MCPError:
    """`failure` as a JSON-RPC error, its structured payload in `data` (as resources/read answers it), with the code
    the request's revision asks (`protocol_version`: the SDK's `ctx.protocol_version`; None, the older codes)."""
    return MCPError(code=failure.jsonrpc_code_in(protocol_version), message=failure.message,
                    data=failure.payload())
