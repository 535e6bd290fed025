"""What the workflow tests share: the DynamoDB table as the template declares it, the stdio server as a desktop
client launches it, and a recorder of what a 2025-11-25 session hears."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import boto3
from mcp import StdioServerParameters
from mcp_types import ServerNotification

TABLE = "test-workflows"


def create_table(name: str = TABLE) -> None:
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    if name in dynamodb.list_tables()["TableNames"]:
        return
    dynamodb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}])


def stdio_server(database: Path) -> StdioServerParameters:
    """`aws-data-mcp stdio` in a process of its own, on its own SQLite file, with the suite's AWS (moto)."""
    return StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp", "stdio"],
                                 env={**os.environ, "AWS_DATA_MCP_WORKFLOW_DB": str(database)})


class Heard:
    """The notifications a 2025-11-25 client session receives (its `message_handler`), awaitable one by one."""

    def __init__(self) -> None:
        self._send, self._receive = anyio.create_memory_object_stream[ServerNotification | Exception](100)

    async def __call__(self, message: ServerNotification | Exception) -> None:
        await self._send.send(message)

    async def _matching(self, method: str) -> ServerNotification:
        while True:
            message = await self._receive.receive()
            if getattr(message, "method", None) == method:
                return message  # type: ignore[return-value]

    async def next(self, method: str, within: float = 1.0) -> ServerNotification:
        """The next notification of `method`, arriving within `within` seconds (others are skipped)."""
        with anyio.fail_after(within):
            return await self._matching(method)

    async def nothing(self, method: str, within: float) -> bool:
        """True when no notification of `method` arrives within `within` seconds."""
        with anyio.move_on_after(within):
            await self._matching(method)
            return False
        return True


class LostAnswers:
    """DynamoDB calls that reach the table while their answers are lost, below botocore's retry logic.

    `lose("PutItem", 1)`: the next PutItem attempt is sent to the table for real (a write lands, or its condition
    fails there), and then its caller hears a read timeout (`how="timeout"`) or a 500 (`how="500"`) instead of
    the answer: what a slow or flaky network does to a write. botocore retries it as it would any such failure.
    Registered on the session before any client is made (clients copy the session's hooks)."""

    def __init__(self, session: Any) -> None:
        from botocore.httpsession import URLLib3Session

        self._http = URLLib3Session()
        self._lock = threading.Lock()
        self._losing: dict[str, list[Any]] = {}
        self.delivered: list[tuple[str, int]] = []
        """(operation, HTTP status) of each attempt that reached the table and whose answer was then lost."""
        session.events.register("before-send.dynamodb", self._dispatch)

    def lose(self, operation: str, times: int, how: str = "timeout", *, then_fail: str | None = None) -> None:
        """The next `times` attempts of `operation` land and lose their answers; after them, with `then_fail`,
        every attempt of that operation answers a 500 without reaching the table, until `heal()`."""
        with self._lock:
            self._losing[operation] = [times, how, True, then_fail]

    def heal(self) -> None:
        with self._lock:
            self._losing.clear()

    def _dispatch(self, event_name: str, request: Any, **_: Any) -> Any:
        from botocore.exceptions import ReadTimeoutError

        from support.faults import _error_response

        operation = event_name.rsplit(".", 1)[-1]
        with self._lock:
            rule = self._losing.get(operation)
            if rule is None or rule[0] <= 0:
                return None
            rule[0] -= 1
            _, how, reaches, then_fail = rule
            if rule[0] == 0 and then_fail is not None:
                self._losing[then_fail] = [10**6, "500", False, None]
        if reaches:
            answer = self._http.send(request)
            self.delivered.append((operation, answer.status_code))
        if how == "timeout":
            raise ReadTimeoutError(endpoint_url=request.url)
        return _error_response("json", 500, "InternalServerError", "injected: the answer was lost")
