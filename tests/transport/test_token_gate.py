"""The local token gate stops everything that is not HTTP with the token: a websocket is closed at the gate
(it was passed through untouched, to be refused, or not, by whatever came after)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from aws_data_mcp.transport.local_token import TokenGate

TOKEN = "t" * 40


class Behind:
    """What stands behind the gate: records every scope that reaches it."""

    def __init__(self) -> None:
        self.reached: list[Scope] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.reached.append(scope)


@pytest.mark.anyio
@pytest.mark.parametrize("headers", [[], [(b"authorization", f"Bearer {TOKEN}".encode())]],
                         ids=["no-token", "with-the-token"])
async def test_a_websocket_is_closed_at_the_gate(headers: list[tuple[bytes, bytes]]) -> None:
    behind, sent = Behind(), []

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {"type": "websocket", "path": "/mcp", "headers": [(b"host", b"127.0.0.1"), *headers]}
    await TokenGate(behind, TOKEN, None)(scope, receive, send)
    assert behind.reached == []
    assert [message["type"] for message in sent] == ["websocket.close"] and sent[0]["code"] == 1008
