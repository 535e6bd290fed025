"""Every HTTP failure is structured JSON, whichever layer refused the request.

The SDK answers some refusals (413 body too large, 400 bad content type) with plain
text. This `send` wrapper rewrites any non-JSON 4xx/5xx body into a JSON-RPC error
carrying the same status and message, so a client always gets something it can parse.
"""

from __future__ import annotations

import json
from http import HTTPStatus

from mcp_types import INTERNAL_ERROR, INVALID_REQUEST
from starlette.types import Message, Send

_REPLACED = (b"content-type", b"content-length")


def _is_json(start: Message) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start.get("headers", []))


def json_errors(send: Send) -> Send:
    held: list[Message] = []
    body = bytearray()

    async def send_json(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] >= 400 and not _is_json(message):
            held.append(message)
            return
        if not held or message["type"] != "http.response.body":
            await send(message)
            return
        body.extend(message.get("body", b""))
        if message.get("more_body"):
            return
        start = held.pop()
        text = body.decode("utf-8", "replace").strip() or HTTPStatus(start["status"]).phrase
        code = INTERNAL_ERROR if start["status"] >= 500 else INVALID_REQUEST
        error = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": text}}
        encoded = json.dumps(error).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in _REPLACED]
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(encoded)).encode())]
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": encoded})

    return send_json
