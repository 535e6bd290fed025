"""The ASGI app behind both `serve` (uvicorn) and the Lambda handler (Mangum).

The SDK's session manager must run for every request. But `run()` may be entered once per manager.
Mangum's "auto" lifespan enters it on the first invocation, and fails on every later one. So
lifespan is off, and this app holds one running manager per event loop. Mangum and uvicorn keep one
loop per process, so one manager per container. benchmarks/ measures it against a manager per
request.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import INVALID_REQUEST
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from aws_data_mcp.config import Settings
from aws_data_mcp.server.mcp_server import DataMCPServer
from aws_data_mcp.transport.json_errors import json_errors, send_error
from aws_data_mcp.transport.lambda_edge import LambdaEdge
from aws_data_mcp.transport.limits import (
    BODY_SCOPE_KEY,
    oversized_header,
    receive_body_within,
    refuse_oversized_headers,
)
from aws_data_mcp.transport.local_token import TokenGate, token_file
from aws_data_mcp.transport.origins import LOOPBACK_NAMES, allowed_origins, refuse_origin, refused_origin
from aws_data_mcp.transport.paths import route_path
from aws_data_mcp.transport.request_ids import has_invalid_id, refuse_invalid_id
from aws_data_mcp.transport.well_known import is_metadata_request, serve_metadata

MCP_PATH = "/mcp"
MAX_LOCAL_SESSIONS = 100
"""Open 2025-11-25 sessions of the local server (each also ends after the SDK's 30 idle minutes)."""
NO_GET_STREAM = ("No GET stream without a session: POST JSON-RPC to this URL (locally, a 2025-11-25 client that "
                 "initializes gets a session whose GET stream carries live updates)")
"""A GET stream of no session would carry nothing, and on Lambda (no sessions) it would hang until the timeout
under Mangum's buffering: answered 405 at once, as the spec allows."""


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding protection where it protects something.

    Locally the server listens on loopback, where a malicious page could rebind a
    name to 127.0.0.1: only loopback Host/Origin values (plus configured ones) pass.
    Behind API Gateway the Host is the gateway's own name and the endpoint is
    reached over the internet on purpose, so the check would only answer 421 to
    legitimate clients; identity is enforced by API Gateway instead (and `Origin` by `origins.py`, everywhere).
    """
    if settings.hosted:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    # Exact values only: the SDK matches a "host:*" pattern by prefix, which lets 127.0.0.1:8000.evil.com pass.
    loopback = [f"{name}:{settings.port}" for name in LOOPBACK_NAMES]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=[*loopback, *settings.allowed_hosts],
                                     allowed_origins=list(allowed_origins(settings)))


@dataclass(frozen=True)
class _Apps:
    stateless: Starlette
    """Any request may be answered by any container: every request on Lambda, locally those of no session."""
    sessions: Starlette | None
    """Locally: 2025-11-25 clients that initialize get a session, whose GET stream carries live updates. Its
    requests are answered in JSON: the SDK streams all of a session's answers or none, and an SSE answer costs
    about 1 ms more per read (1.8x a bare SDK app's), so a call's progress is not carried here."""
    streaming: Starlette | None = None
    """Locally: requests of no session that ask for progress (a `progressToken`), answered as the SDK streams them
    (text/event-stream once a notification is sent; JSON otherwise). On Lambda Mangum buffers the whole answer
    and API Gateway does not stream it, so progress would arrive with the result: not served there."""


def _session_id(scope: Scope) -> bytes | None:
    return next((value for name, value in scope.get("headers") or () if name.lower() == b"mcp-session-id"), None)


def _wants_session(scope: Scope) -> bool:
    """A request of a local 2025-11-25 session: it names one, or it is the `initialize` that opens one."""
    if _session_id(scope):
        return True
    body = scope.get(BODY_SCOPE_KEY) or b""
    if scope.get("method") != "POST" or b'"initialize"' not in body:  # cheap test first: most requests are not
        return False
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # nested past the parser's depth: the SDK's parse error answers it
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


def _wants_progress(scope: Scope) -> bool:
    """A request that asks for progress notifications: a `progressToken` in its `_meta`."""
    body = scope.get(BODY_SCOPE_KEY) or b""
    if b'"progressToken"' not in body:  # cheap test first: most requests ask for none
        return False
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and meta.get("progressToken") is not None


class McpHttpApp:
    """ASGI app: the SDK's streamable-HTTP apps with their session managers held open.

    Stateless and JSON on Lambda. Locally the same, except that a 2025-11-25 client that initializes gets a
    session of the SDK's stateful app (answered as SSE streams), so live updates and progress reach it; a request
    without a session (a one-off POST, every 2026-07-28 request) is still answered statelessly.
    """

    def __init__(self, server: DataMCPServer, settings: Settings) -> None:
        self.server = server
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._apps: _Apps | None = None
        self._started: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None
        self._held: asyncio.Task[None] | None = None
        self._origins = allowed_origins(settings)
        self._edge = LambdaEdge(self._serve) if settings.hosted else _local_edge(self._serve, settings)
        if not settings.hosted:
            server.live_updates.serve()

    def _build(self, stateless: bool, json_response: bool = True) -> tuple[Starlette, Any]:
        """One SDK app and the session manager it made (the server keeps only the latest one)."""
        app = self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=stateless,
            json_response=json_response,
            transport_security=transport_security(self.settings),
            max_request_body_size=self.settings.max_request_body_bytes,
            max_sessions=MAX_LOCAL_SESSIONS,
            host=self.settings.host,
        )
        return app, self.server.session_manager

    async def _running_apps(self) -> _Apps:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            stateless = self._build(stateless=True)
            sessions = None if self.settings.hosted else self._build(stateless=False)
            streaming = None if self.settings.hosted else self._build(stateless=True, json_response=False)
            managers = [built[1] for built in (stateless, sessions, streaming) if built is not None]
            self._loop = loop
            self._apps = _Apps(stateless[0], sessions[0] if sessions else None, streaming[0] if streaming else None)
            self._started, self._stop = asyncio.Event(), asyncio.Event()
            self._held = loop.create_task(self._hold(managers, self._started, self._stop))
        assert self._started is not None and self._apps is not None
        await self._started.wait()
        return self._apps

    @staticmethod
    async def _hold(managers: list[Any], started: asyncio.Event, stop: asyncio.Event) -> None:
        async with AsyncExitStack() as running:
            for manager in managers:
                await running.enter_async_context(manager.run())
            started.set()
            await stop.wait()

    async def aclose(self) -> None:
        """Stop the held managers (tests and graceful shutdown)."""
        if self._stop is not None and self._held is not None:
            self._stop.set()
            await self._held
            self._loop = None

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        if is_metadata_request(scope, self.settings, MCP_PATH):
            await serve_metadata(scope, receive, send, self.settings, MCP_PATH)
            return
        on_endpoint = scope["type"] == "http" and route_path(scope).rstrip("/") == MCP_PATH
        origin = refused_origin(scope, self._origins) if on_endpoint else None
        if origin is not None:  # first: a page's request learns nothing else of the server
            await refuse_origin(send, origin)
            return
        if on_endpoint and scope["method"] == "GET" and not _session_id(scope):
            await send_error(send, 405, INVALID_REQUEST, NO_GET_STREAM, [(b"allow", b"POST, DELETE")])
            return
        if on_endpoint and scope["method"] == "POST":
            if BODY_SCOPE_KEY not in scope:  # on Lambda: the body is in the event, whole
                received = await receive_body_within(receive, send, self.settings.max_request_body_bytes,
                                                     timed=False)
                if received is None:
                    return
                body, receive = received
                scope = {**scope, BODY_SCOPE_KEY: body}
            if has_invalid_id(scope[BODY_SCOPE_KEY]):
                await refuse_invalid_id(send)
                return
        apps = await self._running_apps()
        app = apps.stateless
        if apps.sessions is not None and _wants_session(scope):
            app = apps.sessions
        elif apps.streaming is not None and _wants_progress(scope):
            app = apps.streaming
        if on_endpoint:
            # No trailing-slash redirect: behind a stage it would drop the stage from the URL.
            path = scope.get("root_path", "") + MCP_PATH
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await app(scope, receive, json_errors(send))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _accept_lifespan(receive, send)
            return
        too_large = oversized_header(scope) if scope["type"] == "http" else None
        if too_large is not None:
            await refuse_oversized_headers(send, too_large)
            return
        await self._edge(scope, receive, send)


def _local_edge(app: ASGIApp, settings: Settings) -> ASGIApp:
    """Locally: the owner's token first (when the server has one), then the body within its time and size."""

    async def bounded_body(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            received = await receive_body_within(receive, send, settings.max_request_body_bytes)
            if received is None:
                return
            body, receive = received
            scope = {**scope, BODY_SCOPE_KEY: body}
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
