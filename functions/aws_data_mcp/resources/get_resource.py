"""The `get_resource` tool: resources for clients that cannot read resources themselves.

It calls the same `ResourceReader` as `resources/read`, so a URI gives the same
bytes on both paths; errors become tool results with `isError` and the same codes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import WithJsonSchema

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.registry import registry
from aws_data_mcp.server.answers import failure_result, tool_result
from aws_data_mcp.server.rendering import within_budget
from aws_data_mcp.server.tool_host import ToolHost, host_of

TOOL_NAME = "get_resource"
ACCEPTED = "get_resource takes one optional argument, uri: a resource URI string such as auth://status; omit it to " \
    "discover every resource."

DISCOVERY_WHOLE = ("discovery is answered whole: get_resource takes no cursor, and a client that has only this tool "
                   "needs the whole catalogue to read anything (resources/list and resources/templates/list page it)")


def _description() -> str:
    families = ", ".join(sorted({f"{spec.category}://" for spec in registry}))
    static = min((spec.uri for spec in registry.static()), key=len)
    template = next(spec.example for spec in registry.templates())
    return (
        "Read any resource of this server by URI, for clients that cannot read MCP resources themselves. "
        "Call with no uri to discover every resource and template (uri or uriTemplate, description, parameters, "
        f"what it requires). URI families: {families}. Examples: get_resource(uri=\"{static}\"); templated: "
        f"get_resource(uri=\"{template}\"). Returns exactly what resources/read "
        "returns; errors carry a stable code, recovery steps and the nearest valid URIs."
    )


AnyUri = Annotated[
    Any,
    WithJsonSchema({"type": "string", "description": "A resource URI, e.g. auth://status; omit it to discover."}),
]
"""Advertised as a string; accepted as anything so a wrong type gets our structured `invalid_argument`, not a
validation dump."""


def _refused(message: str) -> CallToolResult:
    return failure_result(ResourceFailure(ErrorCode.INVALID_ARGUMENT, message, details=[ACCEPTED]))


async def get_resource_result(
    server: ToolHost, arguments: Mapping[str, Any], ctx: ServerRequestContext[Any, Any] | None
) -> CallToolResult:
    """Discovery for an empty `uri`, else exactly what `resources/read` returns, or a structured error."""
    unknown = sorted(set(arguments) - {"uri"})
    if unknown:
        return _refused(f"get_resource takes only the argument 'uri', not {echo(', '.join(unknown))!r}")
    uri = arguments.get("uri")
    if uri is not None and not isinstance(uri, str):
        return _refused(f"The argument 'uri' must be a string, not {type(uri).__name__}")
    if uri is None or not uri.strip():
        text = within_budget(server.registry.discovery(), server.config.response_char_budget, DISCOVERY_WHOLE)
        return tool_result(text, json.loads(text))
    try:
        reading = await server.read(uri, ctx)
    except ResourceFailure as failure:
        return failure_result(failure)
    return tool_result(reading.text)


@registry.tool(name=TOOL_NAME, title="Get resource", description=_description())
async def get_resource(ctx: Context, uri: AnyUri = None) -> CallToolResult:
    """The registered tool: its signature is the schema `tools/list` shows.

    `DataMCPServer` sends `tools/call` for it straight to `get_resource_result`; this
    entry serves the SDK's in-process `call_tool`.
    """
    return await get_resource_result(host_of(ctx), {"uri": uri}, ctx.request_context)
