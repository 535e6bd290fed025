"""Trust annotations (`io.modelcontextprotocol/trust-annotations`): an answer carrying text others wrote is marked
`untrusted`, for a client that negotiated the extension.

Others wrote everything read from AWS or the workflow store: Glue descriptions and comments, named queries' SQL, query
history, cell values, S3 keys, IAM names and tags, workflow notes. Anyone who may write to a catalog, a bucket or a
table can put words there that read like instructions to the agent. The server's own documents (`info://`,
`config://`, `metadata://`, discovery) are not marked. Either way such text stays in the JSON's fields, never in the
instructions or a tool's description, and a client without the extension gets the same answers, unmarked.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp_types import CallToolRequestParams, CallToolResult

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.registry import Registry, ResourceSpec
from aws_data_mcp.resources.get_resource import TOOL_NAME as GET_RESOURCE

EXTENSION_ID = "io.modelcontextprotocol/trust-annotations"
UNTRUSTED: dict[str, Any] = {EXTENSION_ID: {"untrusted": True}}


def carries_others_text(spec: ResourceSpec) -> bool:
    """A resource whose answers are read for a caller (from AWS or the workflow store), not the server's own text."""
    return spec.requires != "none" or bool(spec.aws_calls)


class TrustMarks(Extension):
    """Advertised as `extensions["io.modelcontextprotocol/trust-annotations"]`; marks tool results here and
    `resources/read` contents through `for_read`."""

    identifier = EXTENSION_ID

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    @staticmethod
    def negotiated(ctx: ServerRequestContext[Any, Any] | None) -> bool:
        capabilities = ctx.session.client_capabilities if ctx is not None else None
        extensions = capabilities.extensions if capabilities is not None else None
        return bool(extensions) and EXTENSION_ID in extensions

    def for_read(self, ctx: ServerRequestContext[Any, Any] | None, spec: ResourceSpec) -> dict[str, Any] | None:
        """The `_meta` of a `resources/read` content: the mark, where it applies."""
        return dict(UNTRUSTED) if self.negotiated(ctx) and carries_others_text(spec) else None

    def _tool_carries(self, params: CallToolRequestParams) -> bool:
        """Every tool answers with AWS data (cells, query states, workflows), but `get_resource` answers with what
        its URI names (discovery, or the server's own documents, are unmarked)."""
        if params.name != GET_RESOURCE:
            return True
        uri = (params.arguments or {}).get("uri")
        if not isinstance(uri, str) or not uri.strip():
            return False
        try:
            found = self.registry.match(uri)
        except ResourceFailure:
            return False
        spec = found.spec if found is not None else self.registry.get(uri.split("?", 1)[0])
        return spec is not None and carries_others_text(spec)

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if isinstance(result, CallToolResult) and self.negotiated(ctx) and self._tool_carries(params):
            return result.model_copy(update={"meta": {**(result.meta or {}), **UNTRUSTED}})
        return result
