"""The local server's answer beyond its connection cap: the JSON-RPC error every other refusal is, with Retry-After.

uvicorn answers a request beyond `limit_concurrency` itself, before any app sees it. Its answer is a
plain-text 503 with no Retry-After. So its own check is off here. The same check, at the same point
(a complete request head), answers as the README promises.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_types import INTERNAL_ERROR
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.server import ServerState

from aws_data_mcp.transport.head_deadline import HeadDeadlineProtocol
from aws_data_mcp.transport.json_errors import send_error

RETRY_AFTER_SECONDS = 5
"""By then a connection that sends no request has given its place back (the local server's head deadline)."""


def _within_cap(app: ASGIApp, cap: int, state: ServerState) -> ASGIApp:
    async def capped(scope: Scope, receive: Receive, send: Send) -> None:
        # uvicorn's test, made as it makes it (on HTTP requests, not upgrades); this request's own task is
        # already among `tasks` here.
        if scope["type"] == "http" and (len(state.connections) >= cap or len(state.tasks) > cap):
            await send_error(send, 503, INTERNAL_ERROR, f"Server busy: it serves {cap} connections at once; retry "
                             f"after {RETRY_AFTER_SECONDS} seconds",
                             [(b"retry-after", str(RETRY_AFTER_SECONDS).encode()), (b"connection", b"close")])
            return
        await app(scope, receive, send)

    return capped


class CappedProtocol(HeadDeadlineProtocol):
    """The local server's h11 protocol: the head deadline, and the connection cap answered in JSON."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        cap, self.limit_concurrency = self.limit_concurrency, None
        if cap is not None:
            self.app = _within_cap(self.app, cap, server_state)
