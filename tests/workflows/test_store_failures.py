"""When the workflow store fails: a clear structured error on every path (tool, read), retryable only when
retrying can help, and nothing of the deployment (role or table ARNs, account ids, AWS's own words) in it."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError
from mcp import Client
from mcp.shared.exceptions import MCPError
from workflow_support import TABLE

import aws_data_mcp.resources.workflow as workflow_resources
from aws_data_mcp.app import create_server
from aws_data_mcp.aws import deadline_scope
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.workflows import sqlite_store
from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore
from aws_data_mcp.workflows.model import Workflow
from aws_data_mcp.workflows.service import Workflows
from aws_data_mcp.workflows.sqlite_store import SqliteStore
from aws_data_mcp.workflows.store import Written
from support.logs import RecordKeeper

ACCOUNT = "111122223333"
AWS_MESSAGE = (f"User: arn:aws:sts::{ACCOUNT}:assumed-role/stack-McpFunctionRole-AB12/fn is not authorized to perform: "
               f"dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/stack-WorkflowTable-XY")

FAILURES = {
    # AWS error code: (HTTP status, the code callers get, retryable)
    "AccessDeniedException": (400, "internal", False),
    "ResourceNotFoundException": (400, "internal", False),
    "UnrecognizedClientException": (400, "internal", False),
    "ValidationException": (400, "internal", False),
    "ProvisionedThroughputExceededException": (400, "upstream_unavailable", True),
    "ThrottlingException": (400, "upstream_unavailable", True),
    "RequestLimitExceeded": (400, "upstream_unavailable", True),
    "InternalServerError": (500, "upstream_unavailable", True),
    "ServiceUnavailable": (503, "upstream_unavailable", True),
}


class FailingStore:
    """Every call fails as DynamoDB would, with a message full of the deployment's ARNs."""

    location = "stack-WorkflowTable-XY"

    def __init__(self, code: str, status: int) -> None:
        self.error = {"Error": {"Code": code, "Message": AWS_MESSAGE}, "ResponseMetadata": {"HTTPStatusCode": status}}

    def _fail(self, operation: str) -> Any:
        raise ClientError(self.error, operation)  # type: ignore[arg-type]

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        return self._fail("GetItem")

    def list(self, owner: str) -> list[Workflow]:
        return self._fail("Query")

    def create(self, workflow: Workflow) -> Written:
        return self._fail("PutItem")

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        return self._fail("PutItem")

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        return self._fail("DeleteItem")


def assert_clean(payload: dict[str, Any], code: str, retryable: bool) -> None:
    """The error a caller sees: the right code, and nothing the deployment would not tell a stranger."""
    text = json.dumps(payload)
    assert payload["error"] == code and payload["retryable"] is retryable, payload
    assert "workflow store" in payload["message"], payload
    for secret in ("arn:", ACCOUNT, "McpFunctionRole", "WorkflowTable", "not authorized", "Grant"):
        assert secret not in text, (secret, payload)
    if code == "internal":
        assert payload["message"].startswith("The server's workflow store is misconfigured"), payload
        assert "action" not in payload  # nothing for the caller to grant themselves: it is the deployment's


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> tuple[str, int, str, bool]:
    code = request.param
    status, expected, retryable = FAILURES[code]
    monkeypatch.setattr(workflow_resources, "store_for", lambda settings: FailingStore(code, status))
    return code, status, expected, retryable


@pytest.mark.anyio
@pytest.mark.parametrize("failing", sorted(FAILURES), indirect=True)
async def test_store_failures_are_clear_structured_errors_on_every_path(failing: tuple[str, int, str, bool]) -> None:
    _, _, expected, retryable = failing
    async with Client(create_server(Settings(mode="local"))) as client:
        created = await client.call_tool("workflow_create", {"name": "Plan"})
        updated = await client.call_tool("workflow_update_step", {"workflow_id": "w", "step_id": "s1",
                                                                  "status": "completed"})
        deleted = await client.call_tool("workflow_delete", {"workflow_id": "w"})
        with pytest.raises(MCPError) as read:
            await client.read_resource("workflow://workflows")
    for answer in (created, updated, deleted):
        assert answer.is_error
        assert_clean(answer.structured_content, expected, retryable)
    assert_clean(read.value.error.data, expected, retryable)


def test_a_missing_table_is_a_misconfiguration() -> None:
    mine = Workflows(DynamoDbStore(Settings(mode="local", workflow_table=f"{TABLE}-never-created-{os.getpid()}")),
                     "owner-a")
    with pytest.raises(ResourceFailure) as refused:
        mine.list()
    assert_clean(refused.value.payload(), "internal", False)


def test_an_unreachable_dynamodb_is_retryable(monkeypatch: pytest.MonkeyPatch) -> None:
    class Unreachable(FailingStore):
        def _fail(self, operation: str) -> Any:
            raise EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")

    with pytest.raises(ResourceFailure) as refused:
        Workflows(Unreachable("", 0), "owner-a").list()
    assert_clean(refused.value.payload(), "upstream_unavailable", True)


def test_a_sqlite_file_that_cannot_be_created_is_a_misconfiguration(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    with pytest.raises(ResourceFailure) as refused:
        Workflows(SqliteStore(str(blocker / "workflows.sqlite3")), "owner-a").create("Plan")
    assert_clean(refused.value.payload(), "internal", False)


def test_a_locked_sqlite_file_is_retryable_and_waits_no_longer_than_the_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock is released only long after the request's deadline (60 s, with SQLite's own wait longer still):
    a store that waited past its deadline would get the lock and succeed. Refused while the lock is still held is
    the proof, an order of events rather than a time."""
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_SECONDS", 600)
    database = str(tmp_path / "workflows.sqlite3")
    mine = Workflows(SqliteStore(database), "owner-a")
    workflow = mine.create("Plan", steps=["a"])
    holder = sqlite3.connect(database, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")  # another process is writing, and keeps at it
    released = threading.Event()

    def release() -> None:
        released.set()
        holder.rollback()

    timer = threading.Timer(60, release)
    timer.start()
    try:
        with pytest.raises(ResourceFailure) as refused, deadline_scope(time.monotonic() + 0.3):
            mine.update_step(workflow.id, "s1", status="completed")
        held = not released.is_set()
    finally:
        timer.cancel()
        holder.rollback()
        holder.close()
    assert refused.value.code.value in ("upstream_unavailable", "timeout") and refused.value.retryable
    assert "workflow store" in refused.value.message
    assert held, "refused only once the lock was released: the wait outlived the request's deadline"
    assert mine.get(workflow.id).version == 1


def test_the_operator_keeps_the_detail_in_the_logs(log_records: RecordKeeper) -> None:
    with pytest.raises(ResourceFailure):
        Workflows(FailingStore("AccessDeniedException", 400), "owner-a").list()
    logged = [record.getMessage() for record in log_records.at_least(logging.WARNING)]
    assert any("AccessDeniedException" in line and "Query" in line for line in logged), logged
