"""Workflow tools answer within the request's deadline (the one the Lambda edge puts in the ASGI scope), and
no DynamoDB call starts after it: a caller told `timeout` never finds a write landing behind its back."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import httpx2
import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from workflow_support import TABLE, create_table

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.reading.deadlines import DEADLINE_SCOPE_KEY
from aws_data_mcp.workflows.service import store_for
from support.events import REVISION_2025, rpc
from support.faults import AwsFaults
from support.servers import free_port

BUDGET_SECONDS = 1.5
AFTER_RELEASE_SECONDS = 0.5
"""Long enough for the released worker to have started the write it would make (were the deadline not kept)."""


class WithDeadline:
    """What the Lambda edge does to every request, once `seconds` is set: the time by which it must be answered,
    in the ASGI scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seconds: float | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.seconds is not None:
            scope = {**scope, DEADLINE_SCOPE_KEY: time.monotonic() + self.seconds}
        await self.app(scope, receive, send)


@pytest.fixture
def slow_dynamodb_server() -> Iterator[tuple[str, Settings, AwsFaults, WithDeadline]]:
    table = f"{TABLE}-deadline-{os.getpid()}"
    create_table(table)
    settings = Settings(mode="local", port=free_port(), workflow_store="dynamodb", workflow_table=table)
    faults = AwsFaults(store_for(settings).session)  # the store's own session: the function's credentials
    edge = WithDeadline(create_http_app(settings))
    server = uvicorn.Server(uvicorn.Config(edge, host="127.0.0.1", port=settings.port, lifespan="off",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{settings.port}/mcp", settings, faults, edge
    faults.release()
    server.should_exit = True
    thread.join(5)


def call(url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = httpx2.post(url, json=rpc("tools/call", {"name": tool, "arguments": arguments}), timeout=30,
                         headers={"accept": "application/json, text/event-stream",
                                  "mcp-protocol-version": REVISION_2025}).json()
    return answer["result"]


def test_a_slow_store_answers_timeout_within_the_deadline_and_writes_nothing_after_it(
        slow_dynamodb_server: tuple[str, Settings, AwsFaults, WithDeadline]) -> None:
    url, settings, faults, edge = slow_dynamodb_server
    created = call(url, "workflow_create", {"name": "Plan", "steps": ["a"]})
    workflow = created["structuredContent"]["workflow"]
    edge.seconds = BUDGET_SECONDS
    slow = faults.hold("dynamodb.GetItem")  # answers only when released, long after the deadline
    refused = call(url, "workflow_update_step", {"workflow_id": workflow["id"], "step_id": "s1",
                                                 "status": "completed"})
    assert refused["isError"] and refused["structuredContent"]["error"] == "timeout", refused
    assert refused["structuredContent"]["retryable"] is True
    assert slow.held == 1 and slow.passed == 0, "answered at the deadline, while the store's read was still held"
    writes_before = faults.calls["dynamodb.PutItem"]
    slow.release()
    while slow.passed == 0:  # the abandoned worker's GetItem goes on now
        time.sleep(0.05)
    time.sleep(AFTER_RELEASE_SECONDS)
    assert faults.calls["dynamodb.PutItem"] == writes_before  # its write would have started past the deadline
    items = boto3.client("dynamodb", region_name="us-east-1").scan(TableName=settings.workflow_table)["Items"]
    assert [item["version"]["N"] for item in items if item["sk"]["S"] == workflow["id"]] == ["1"]
