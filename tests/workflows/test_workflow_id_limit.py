"""An id no workflow can have is `invalid_argument` before any AWS call, whichever store keeps the workflows.

A workflow id is a UUID; the tools take at most 100 characters, but a status URI carries any length. One over
DynamoDB's 1,024-byte key limit reached GetItem, whose ValidationException is logged at ERROR as a
misconfigured store and answered `internal`: any caller could raise false alarms. SQLite took it as unknown.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from workflow_support import create_table

from aws_data_mcp.config import Settings
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, load_event, modern, rpc
from support.logs import RecordKeeper
from support.servers import lambda_container

HOST = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
TOO_LONG = "a" * 1_025


def read_status(settings: Settings, workflow_id: str) -> dict[str, Any]:
    """workflow://workflows/<id>/status through the Lambda handler; the JSON-RPC answer."""
    uri = f"workflow://workflows/{workflow_id}/status"
    answer = lambda_container(settings)(http_api_event(rpc("resources/read", {"uri": uri})))
    return body_json(answer)


@pytest.fixture(params=["dynamodb", "sqlite"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    if request.param == "dynamodb":
        create_table("aws-data-mcp-workflows")
        return Settings(mode="local", workflow_store="dynamodb", allowed_hosts=(HOST,))
    return Settings(mode="local", workflow_store="sqlite", workflow_db=str(tmp_path / "workflows.sqlite3"),
                    allowed_hosts=(HOST,))


def test_a_workflow_id_no_workflow_can_have_is_invalid_before_any_aws_call(
        settings: Settings, aws_calls: Counter[str]) -> None:
    # No read before: not even the caller's identity (STS) is resolved for an id that cannot exist.
    for workflow_id in (TOO_LONG, "é" * 513):  # 1,025 and 1,026 bytes: over DynamoDB's key limit
        error = read_status(settings, workflow_id)["error"]
        assert error["code"] == -32602 and error["data"]["error"] == "invalid_argument", error
        assert "at most 100" in error["message"] and workflow_id not in error["message"], error
        assert sum(aws_calls.values()) == 0, aws_calls
    unknown = read_status(settings, "0" * 100)["error"]  # the control: an id of a possible length is looked up
    assert unknown["data"]["error"] == "not_found", unknown


def test_an_empty_workflow_id_is_invalid_argument_with_no_error_in_the_operators_log(
        settings: Settings, aws_calls: Counter[str], log_records: RecordKeeper) -> None:
    # DynamoDB refuses an empty key with a ValidationException, which the store logs at ERROR as misconfigured:
    # `workflow://workflows//status` let any caller write that line and answered `internal`.
    handler = lambda_container(settings)
    for build, revision in ((rpc, REVISION_2025), (modern, REVISION_2026)):
        uri = "workflow://workflows//status"
        error = body_json(handler(http_api_event(build("resources/read", {"uri": uri}), revision=revision)))["error"]
        assert error["code"] == -32602 and error["data"]["error"] == "invalid_argument", error
        assert "'workflow_id'" in error["message"] and "empty" in error["message"], error
        tool = body_json(handler(http_api_event(build("tools/call", {"name": "get_resource", "arguments": {
            "uri": uri}}), revision=revision)))["result"]
        assert tool["isError"] and tool["structuredContent"] == error["data"]
    assert sum(aws_calls.values()) == 0, aws_calls
    assert [r.getMessage() for r in log_records.at_least(logging.ERROR)] == []
