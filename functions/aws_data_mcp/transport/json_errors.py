"""Every HTTP failure is structured JSON, whichever layer refused the request.

The SDK answers some refusals (413, a bad content type) with plain text. This `send` wrapper
rewrites a non-JSON 4xx/5xx body into a JSON-RPC error with the same status and message. So a client
can always parse it. It also replaces the 2025-11-25 transport's dump for a body that is not one
request. The short -32600 of the 2026-07-28 transport stands in its place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from http import HTTPStatus

from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST
from starlette.types import Message, Send

_REPLACED = (b"content-type", b"content-length")
_SDK_VALIDATION_DUMP = "Validation error:"
ENVELOPE_MESSAGE = "Invalid Request: the body must be one JSON-RPC 2.0 request object (no batch)"


def _is_json(start: Message) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start.get("headers", []))


def error_body(code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()


async def send_error(send: Send, status: int, code: int, message: str,
                     headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer a request the edge refuses before the SDK sees it, as a JSON-RPC error with an HTTP status."""
    body = error_body(code, message)
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


def _envelope_refusal(start: Message, body: bytes) -> bool:
    """The 2025-11-25 transport's answer to a body that is not one JSON-RPC message (a batch, `null`, no
    `jsonrpc`): -32602 with a pydantic dump that echoes the input and names internal models and versions."""
    if start["status"] != 400 or not body.startswith(b'{"jsonrpc"'):
        return False
    try:
        error = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        return False
    return error.get("code") == INVALID_PARAMS and str(error.get("message", "")).startswith(_SDK_VALIDATION_DUMP)


def json_errors(send: Send) -> Send:
    held: list[Message] = []
    body = bytearray()

    async def send_json(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] >= 400:
            held.append(message)
            return
        if not held or message["type"] != "http.response.body":
            await send(message)
            return
        body.extend(message.get("body", b""))
        if message.get("more_body"):
            return
        start = held.pop()
        if _is_json(start) and not _envelope_refusal(start, bytes(body)):
            await send(start)
            await send({"type": "http.response.body", "body": bytes(body)})
            return
        if _is_json(start):
            code, text = INVALID_REQUEST, ENVELOPE_MESSAGE
        else:
            code = INTERNAL_ERROR if start["status"] >= 500 else INVALID_REQUEST
            text = body.decode("utf-8", "replace").strip() or HTTPStatus(start["status"]).phrase
        encoded = error_body(code, text)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in _REPLACED]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(encoded)).encode())]
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": encoded})

    return send_json
