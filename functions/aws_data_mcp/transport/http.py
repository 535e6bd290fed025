"""The ASGI app behind both `serve` (uvicorn) and the Lambda handler (Mangum).

The SDK's session manager must be running for every request of both protocol
revisions, but `run()` may be entered only once per manager. Mangum's lifespan
"auto" enters it on the first invocation and fails on every later one, so lifespan
is off everywhere and this app holds one running manager per event loop instead:
Mangum and uvicorn each keep one loop for the life of the process, so that is once
per container. (Measured against a fresh manager per request: see benchmarks/.)
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import INVALID_REQUEST
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from aws_data_mcp.config import Settings
from aws_data_mcp.server import DataMCPServer
from aws_data_mcp.transport.json_errors import json_errors, send_error
from aws_data_mcp.transport.lambda_edge import LambdaEdge
from aws_data_mcp.transport.limits import receive_body_within, refuse_oversized_headers
from aws_data_mcp.transport.local_token import TokenGate, token_file
from aws_data_mcp.transport.paths import route_path
from aws_data_mcp.transport.well_known import is_metadata_request, serve_metadata

MCP_PATH = "/mcp"
NO_GET_STREAM = "No GET stream here: POST JSON-RPC to this URL (2026-07-28 clients: subscriptions/listen streams)"
"""Served statelessly, a 2025-11-25 GET stream belongs to no session, so nothing would ever be sent on it; on
Lambda it would also hang until the timeout under Mangum's buffering. Answered 405 at once, as the spec allows."""


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding protection where it protects something.

    Locally the server listens on loopback, where a malicious page could rebind a
    name to 127.0.0.1: only loopback Host/Origin values (plus configured ones) pass.
    Behind API Gateway the Host is the gateway's own name and the endpoint is
    reached over the internet on purpose, so the check would only answer 421 to
    legitimate clients; identity is enforced by API Gateway instead.
    """
    if settings.hosted:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    # Exact values only: the SDK matches a "host:*" pattern by prefix, which lets 127.0.0.1:8000.evil.com pass.
    loopback = [f"{name}:{settings.port}" for name in ("127.0.0.1", "localhost", "[::1]")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=[*loopback, *settings.allowed_hosts],
                                     allowed_origins=[f"http://{host}" for host in loopback])


class McpHttpApp:
    """ASGI app: the SDK's streamable-HTTP app (stateless, JSON responses) with its manager held open."""

    def __init__(self, server: DataMCPServer, settings: Settings) -> None:
        self.server = server
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._app: Starlette | None = None
        self._started: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._held: asyncio.Task[None] | None = None
        self._edge = LambdaEdge(self._serve) if settings.hosted else _local_edge(self._serve, settings)

    def _build(self) -> Starlette:
        return self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            transport_security=transport_security(self.settings),
            max_request_body_size=self.settings.max_request_body_bytes,
            host=self.settings.host,
        )

    async def _running_app(self) -> Starlette:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._app = loop, self._build()
            self._started, self._stop = asyncio.Event(), asyncio.Event()
            self._held = loop.create_task(self._hold(self.server.session_manager, self._started, self._stop))
        assert self._started is not None and self._app is not None
        await self._started.wait()
        return self._app

    @staticmethod
    async def _hold(manager: Any, started: asyncio.Event, stop: asyncio.Event) -> None:
        async with manager.run():
            started.set()
            await stop.wait()

    async def aclose(self) -> None:
        """Stop the held manager (tests and graceful shutdown)."""
        if self._stop is not None and self._held is not None:
            self._stop.set()
            await self._held
            self._loop = None

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.settings.auth_mode == "oidc" and self.settings.oidc_issuer and is_metadata_request(scope, MCP_PATH):
            await serve_metadata(scope, receive, send, self.settings, MCP_PATH)
            return
        if scope["type"] == "http" and scope["method"] == "GET" and route_path(scope).rstrip("/") == MCP_PATH:
            await send_error(send, 405, INVALID_REQUEST, NO_GET_STREAM, [(b"allow", b"POST, DELETE")])
            return
        app = await self._running_app()
        if scope["type"] == "http" and route_path(scope).rstrip("/") == MCP_PATH:
            # No trailing-slash redirect: behind a stage it would drop the stage from the URL.
            path = scope.get("root_path", "") + MCP_PATH
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await app(scope, receive, json_errors(send))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _accept_lifespan(receive, send)
            return
        if await refuse_oversized_headers(scope, send):
            return
        await self._edge(scope, receive, send)


def _local_edge(app: ASGIApp, settings: Settings) -> ASGIApp:
    """Locally: the owner's token first (when the server has one), then the body within its time and size."""

    async def bounded_body(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            replay = await receive_body_within(receive, send, settings.max_request_body_bytes)
            if replay is None:
                return
            receive = replay
        await app(scope, receive, send)

    if not settings.local_token:
        return bounded_body
    return TokenGate(bounded_body, settings.local_token, token_file(settings.port))


async def _accept_lifespan(receive: Receive, send: Send) -> None:
    """Answer ASGI lifespan without doing anything: the manager starts on the first request."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
