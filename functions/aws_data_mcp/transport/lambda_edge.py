"""What only Lambda behind API Gateway needs, as one ASGI wrapper.

- A named stage puts `/prod` in front of an HTTP API (payload 2.0) rawPath: strip it. REST (v1)
  paths never carry the stage, so a stage named like a route is safe there.
- The invocation's remaining time becomes the request's deadline. So every read answers before
  Lambda, and API Gateway behind it, gives up.
- Through REST v1, a response without content-type comes back base64-encoded: give each one a type.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aws_data_mcp.reading.deadlines import DEADLINE_SCOPE_KEY

ANSWER_MARGIN_SECONDS = 1.0
"""Kept back from Lambda's remaining time to write the answer before the invocation ends."""
MIN_BUDGET_SECONDS = 0.1


class LambdaEdge:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        edged = {**scope, **_deadline(scope), **_stage_root(scope)}  # one copy of the scope, not one per change
        await self.app(edged, receive, _with_content_type(send))


def _stage_root(scope: Scope) -> dict[str, str]:
    """Mount the stage as the ASGI root path, so routes see `/mcp` and generated URLs keep the stage."""
    event: dict[str, Any] = scope.get("aws.event") or {}
    stage = (event.get("requestContext") or {}).get("stage")
    if not stage or stage == "$default":
        return {}
    prefix = f"/{stage}"
    raw_path: str = event.get("rawPath") or ""
    staged = event.get("version") == "2.0" and (raw_path == prefix or raw_path.startswith(prefix + "/"))
    return {"root_path": prefix} if staged and scope["path"].startswith(prefix) else {}


def _deadline(scope: Scope) -> dict[str, float]:
    context = scope.get("aws.context")
    if context is None:
        return {}
    remaining = context.get_remaining_time_in_millis() / 1000 - ANSWER_MARGIN_SECONDS
    return {DEADLINE_SCOPE_KEY: time.monotonic() + max(remaining, MIN_BUDGET_SECONDS)}


def _with_content_type(send: Send) -> Send:
    async def send_typed(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if not any(name.lower() == b"content-type" for name, _ in headers):
                headers.append((b"content-type", b"text/plain; charset=utf-8"))
                message = {**message, "headers": headers}
        await send(message)

    return send_typed

