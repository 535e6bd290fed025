"""What only Lambda behind API Gateway needs, as one ASGI wrapper.

- A named stage puts `/prod` in front of the path (HTTP API v2 rawPath): strip it.
- GET /mcp (the legacy SSE stream) would hang until the Lambda timeout under
  Mangum's buffering: answer 405 at once. Streaming belongs to the local HTTP mode.
- Through REST v1, a response without content-type comes back base64-encoded:
  give every response one.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_NO_STREAM_BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "GET streams are not served on Lambda; POST JSON-RPC to this URL"},
    }
).encode()


class LambdaEdge:
    def __init__(self, app: ASGIApp, mcp_path: str) -> None:
        self.app = app
        self.mcp_path = mcp_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = _strip_stage(scope)
        if scope["method"] == "GET" and scope["path"].rstrip("/") == self.mcp_path:
            await _answer(send, 405, _NO_STREAM_BODY, [(b"allow", b"POST, DELETE")])
            return
        await self.app(scope, receive, _with_content_type(send))


def _strip_stage(scope: Scope) -> Scope:
    event: dict[str, Any] = scope.get("aws.event") or {}
    stage = (event.get("requestContext") or {}).get("stage")
    prefix = f"/{stage}"
    path: str = scope["path"]
    if stage and stage != "$default" and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix):] or "/"
        return {**scope, "path": path, "raw_path": path.encode(), "root_path": prefix}
    return scope


def _with_content_type(send: Send) -> Send:
    async def send_typed(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if not any(name.lower() == b"content-type" for name, _ in headers):
                headers.append((b"content-type", b"text/plain; charset=utf-8"))
                message = {**message, "headers": headers}
        await send(message)

    return send_typed


async def _answer(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
