"""What the workflow tests share: the DynamoDB table as the template declares it, the stdio server as a desktop
client launches it, and a recorder of what a 2025-11-25 session hears."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
