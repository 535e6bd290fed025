"""What a tool may ask of the server that runs it: its settings, registry, the caller, one read, and announcing
changes.

`DataMCPServer` satisfies `ToolHost`; tools reach it as `host_of(ctx)`, so no tool module imports the server
and imports run one way: the server imports the tools, never the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import Context

    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.caller import Caller
    from aws_data_mcp.reading.reader import Reading
    from aws_data_mcp.registry import Registry


class ToolHost(Protocol):
    config: Settings
    registry: Registry

    def caller_for(self, ctx: ServerRequestContext[Any, Any] | None) -> Caller:
        """The caller behind the request, resolved by the identity seam."""
        ...

    async def read(self, uri: str, ctx: ServerRequestContext[Any, Any] | None) -> Reading:
        """Read one URI for the request behind `ctx`, exactly as `resources/read` does."""
        ...

    async def announce(self, uris: Sequence[str], *, lists_change: bool = False) -> None:
        """Tell whoever listens that `uris` changed (and, on a create or delete, the resource list)."""
        ...


def host_of(ctx: Context) -> ToolHost:
    """The server running the tool called with `ctx`."""
    return cast(ToolHost, ctx.mcp_server)
