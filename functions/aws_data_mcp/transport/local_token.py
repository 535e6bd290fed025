"""The local HTTP server's bearer token.

`serve` acts with its owner's AWS credentials, and every process on the machine shares loopback. So,
as notebook servers do, it answers only requests with the token it printed at start. The token is
also in a file only its owner reads. stdio needs none: only the launching client holds its pipes.
Lambda needs none: API Gateway authorizes there.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from starlette.status import WS_1008_POLICY_VIOLATION
from starlette.types import ASGIApp, Receive, Scope, Send

from aws_data_mcp.config import state_directory
from aws_data_mcp.errors import AUTHENTICATION_ERROR
from aws_data_mcp.private_files import open_private
from aws_data_mcp.transport.json_errors import send_error

CHALLENGE = b'Bearer realm="aws-data-mcp"'
_WRONG_TOKEN = CHALLENGE + b', error="invalid_token"'  # RFC 6750 §3.1: a token was sent and is not valid


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_file(port: int) -> Path:
    """One file per port, so two servers of one user keep their own tokens."""
    return state_directory() / f"serve-{port}.token"


def write_token_file(path: Path, token: str) -> None:
    """The token, alone on its line, in a file only its owner may read (created so from the start)."""
    with os.fdopen(open_private(path, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as file:
        file.write(token + "\n")


def _presented(scope: Scope) -> bytes | None:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            scheme, _, credential = value.partition(b" ")
            return credential.strip() if scheme.lower() == b"bearer" else None
    return None


class TokenGate:
    """Pass only HTTP requests bearing the server's token; any other gets a 401 JSON-RPC error, a websocket a close."""

    def __init__(self, app: ASGIApp, token: str, token_file: Path | None) -> None:
        self.app = app
        self._token = token.encode()
        where = f" (printed when it started, and kept in {token_file})" if token_file else ""
        self._message = f"This server answers its owner's clients only: send Authorization: Bearer <its token>{where}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # nothing here serves one: closed before anything behind the gate sees it
            await send({"type": "websocket.close", "code": WS_1008_POLICY_VIOLATION})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = _presented(scope)
        if presented is not None and hmac.compare_digest(presented, self._token):
            await self.app(scope, receive, send)
            return
        challenge = CHALLENGE if presented is None else _WRONG_TOKEN
        await send_error(send, 401, AUTHENTICATION_ERROR, self._message, [(b"www-authenticate", challenge)])
