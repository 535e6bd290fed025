"""The bare SDK baseline: `MCPServer` with one resource, served through Mangum the plain SDK way.

It serves `config://server` with the very text our handler returns, stateless with JSON
responses and no DNS-rebinding check (as behind API Gateway), so the only difference left
against our handler is our own layers (Powertools decorators, LambdaEdge, McpHttpApp, the
registry/reader path).

Mangum's lifespan "auto" enters `session_manager.run()` on every invocation and fails from
the second one on, so the baseline uses lifespan "off" and holds the manager open itself:
one task on Mangum's own event loop, started once per process before any timing. That
puts no per-request cost into the baseline at all, which makes it the strictest floor.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mangum import Mangum
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

URI = "config://server"


def bare_server(text: str) -> MCPServer[Any]:
    """An `MCPServer` whose only resource returns `text` verbatim (no JSON re-encoding).

    The resource function is `async` on purpose: the SDK runs a plain `def` resource in a
    worker thread (`anyio.to_thread.run_sync`), a thread hop that roughly doubles a warm
    read here and would flatter our ratio; our reader computes static resources inline.
    """
    server: MCPServer[Any] = MCPServer("bare-baseline", log_level="WARNING")

    @server.resource(URI, name="server-config", mime_type="application/json")
    async def server_config() -> str:
        return text

    return server


def streamable_app(server: MCPServer[Any]) -> Starlette:
    """The SDK's own app, configured as our handler configures its transport."""
    return server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


class HeldManager:
    """Keeps one session manager's `run()` open in a task on Mangum's event loop.

    Mangum drives every invocation with `loop.run_until_complete` on the loop it set as
    current when it was constructed, so a task created on that loop stays alive between
    invocations: the same mechanism `transport/http.py` relies on.
    """

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self._manager = manager
        self._loop = asyncio.get_event_loop()  # set by Mangum's constructor; call after building it
        self._stop = asyncio.Event()
        started = asyncio.Event()
        self._task = self._loop.create_task(self._hold(started))
        self._loop.run_until_complete(started.wait())

    async def _hold(self, started: asyncio.Event) -> None:
        async with self._manager.run():
            started.set()
            await self._stop.wait()

    def close(self) -> None:
        """Leave `run()` cleanly so the process exits without 'task destroyed' noise."""
        self._stop.set()
        self._loop.run_until_complete(self._task)


def held_handler(text: str) -> tuple[Mangum, HeldManager]:
    """The baseline of measurement 2: SDK Starlette app, Mangum lifespan off, manager held open."""
    server = bare_server(text)
    handler = Mangum(streamable_app(server), lifespan="off")
    return handler, HeldManager(server.session_manager)


class _ManagerApp:
    """ASGI app that hands every request straight to a session manager (no Starlette routing).

    Used for both sides of the held-vs-fresh comparison so that the manager's lifecycle is
    the only difference between them.
    """

    def __init__(self, template: StreamableHTTPSessionManager, fresh: bool) -> None:
        self._template = template
        self._fresh = fresh

    def _new_manager(self) -> StreamableHTTPSessionManager:
        t = self._template
        return StreamableHTTPSessionManager(app=t.app, json_response=t.json_response, stateless=t.stateless,
                                            security_settings=t.security_settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._fresh:
            await self._template.handle_request(scope, receive, send)
            return
        manager = self._new_manager()
        async with manager.run():
            await manager.handle_request(scope, receive, send)


def manager_strategy_handlers(text: str) -> tuple[Mangum, Mangum, HeldManager]:
    """Measurement 5: (held once per process, fresh per invocation) handlers of one bare server."""
    server = bare_server(text)
    streamable_app(server)  # builds and configures the server's session manager
    template = server.session_manager
    held = Mangum(_ManagerApp(template, fresh=False), lifespan="off")
    fresh = Mangum(_ManagerApp(template, fresh=True), lifespan="off")
    return held, fresh, HeldManager(template)

