"""The MCP Apps views of this server's answers: each a `ui://` document built from views/ (`make views`), offered
only to a client that negotiated `io.modelcontextprotocol/ui` (`aws_data_mcp.server.apps`).

A view opens on a tool's result: the query results view on `athena_query`'s; the access view on `show_access`'s,
a tool that exists only to open it, so only MCP Apps clients see it."""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.registry import registry
from aws_data_mcp.server.answers import failure_result, tool_result
from aws_data_mcp.server.tool_host import host_of

QUERY_RESULTS = "ui://aws-data-mcp/query-results.html"
ACCESS = "ui://aws-data-mcp/access.html"
SHOW_ACCESS = "show_access"
PERMISSIONS = "permissions://"

registry.view(
    QUERY_RESULTS,
    name="query-results",
    title="Query results",
    description="An athena_query answer (or an athena://queries/{execution_id} page) as a typed, sortable table "
    "with its state, data scanned, cost and workgroup cutoff, numbers, dates and money written for people; further "
    "pages read through the host on scrolling to the end; a bar or line chart where a grouped result's category or "
    "time column meets a measure (never an identifier); the rows as CSV, formulas neutralised.",
    html_file="query-results.html",
    tools=("athena_query",),
)
registry.view(
    ACCESS,
    name="access",
    title="Access",
    description="permissions://discover (and the table and bucket explainers) as a resources x actions matrix of "
    "allowed, denied and unknown under a legend; a cell shows its evidence in sentences and the fix to copy.",
    html_file="access.html",
    tools=(SHOW_ACCESS,),
)


@registry.tool(
    name=SHOW_ACCESS,
    title="Show what you may access",
    description="Open the access view: what you may read (permissions://discover, or a permissions:// explainer "
    "of one table or bucket) as a matrix of resources and actions, each verdict with its evidence and fix.",
    view_only=True,
    output_schema={"type": "object", "description": "The permissions:// resource, as resources/read answers it: "
                   "permissions://discover's matrix or one explainer's verdict."},
)
async def show_access(ctx: Context, uri: Annotated[str, Field(
        description="A permissions:// URI; permissions://discover when omitted.")] = "permissions://discover",
                      ) -> CallToolResult:
    if not uri.startswith(PERMISSIONS):
        return failure_result(ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{echo(uri)!r} is not a permissions:// URI",
                                              details=["The access view shows permissions://discover and the "
                                                       "permissions:// explainers."]))
    try:
        reading = await host_of(ctx).read(uri, ctx.request_context)
    except ResourceFailure as failure:
        return failure_result(failure)
    return tool_result(reading.text, json.loads(reading.text))
