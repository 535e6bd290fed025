"""Size limits every HTTP request meets before the SDK sees it, on Lambda and locally.

Header values are echoed (an `Mcp-Name` is the URI an error quotes) and parsed by every layer. So an
oversized one is refused at once with 431. API Gateway caps headers at 10 KB itself. Locally nothing
else does: uvicorn's h11 limit applies only to headers arriving in pieces.
"""

from __future__ import annotations

from contextlib import nullcontext

import anyio
from mcp_types import INVALID_REQUEST
from starlette.types import Message, Receive, Scope, Send

from aws_data_mcp.transport.json_errors import send_error

MAX_HEADER_BYTES = 8 * 1024
"""One header value: room for a SigV4 session token or an OIDC JWT (an Mcp-Name URI is at most 2,048)."""
MAX_HEADERS_BYTES = 32 * 1024
"""All headers of a request together."""


def oversized_header(scope: Scope) -> str | None:
    """What is too large about this request's headers, or None."""
    total = 0
    for name, value in scope.get("headers") or ():
        if len(value) > MAX_HEADER_BYTES:
            return f"header {name[:64].decode('latin-1')!r} is longer than {MAX_HEADER_BYTES} bytes"
        total += len(name) + len(value)
    if total > MAX_HEADERS_BYTES:
        return f"headers are longer than {MAX_HEADERS_BYTES} bytes together"
    return None


async def refuse_oversized_headers(send: Send, problem: str) -> None:
    """Answer 431 for headers too large (what `oversized_header` found)."""
    await send_error(send, 431, INVALID_REQUEST, f"Request header fields too large: {problem}")


BODY_SECONDS = 10.0
"""How long a local client may take to send a request body once its headers have arrived."""
BODY_SCOPE_KEY = "aws_data_mcp.body"
"""ASGI scope key: the request body, read whole (locally), for routing on what it asks."""


async def receive_body_within(receive: Receive, send: Send, limit: int,
                              timed: bool = True) -> tuple[bytes, Receive] | None:
    """The request body read whole within `BODY_SECONDS` and at most `limit` bytes, and a `receive` replaying it.

    Locally, uvicorn would hold a half-sent body for ever (a slow client, or a hostile one holding
    connections open); on Lambda the body always arrives whole in the event, so it is read untimed
    (`timed=False`: no anyio cancel scope, 40,000 instructions a warm read). Answers 408 or 413 itself
    and returns None when the body does not come in time or in size.
    """
    chunks: list[bytes] = []
    size = 0
    seconds = BODY_SECONDS
    with anyio.move_on_after(seconds) if timed else nullcontext():
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client went away: nothing to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await send_error(send, 413, INVALID_REQUEST, f"Request body larger than {limit} bytes")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                body = b"".join(chunks)
                return body, _replay(body, receive)
    await send_error(send, 408, INVALID_REQUEST, f"Request body not received within {seconds:g} seconds")
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # later: a disconnect, awaited by streaming responses

    return replay
