"""Under contention a workflow update backs off with jitter within the request's deadline, and a give-up is logged."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from test_workflows import LosingStore

from aws_data_mcp.aws import deadline_scope
from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.workflows import service
from aws_data_mcp.workflows.service import CONFLICT_RETRIES, Workflows
from aws_data_mcp.workflows.sqlite_store import SqliteStore


def test_a_losing_update_stops_backing_off_at_the_deadline_and_says_so_in_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service.random, "uniform", lambda low, high: high)  # every wait as long as it may be
    losing = LosingStore(SqliteStore(str(tmp_path / "workflows.sqlite3")))
    mine = Workflows(losing, "owner-a")
    workflow = mine.create("Contended", steps=["a"])
    caplog.clear()
    with deadline_scope(time.monotonic() + 1.5), pytest.raises(ResourceFailure) as refused:
        mine.update_step(workflow.id, "s1", status="completed")
    assert refused.value.payload()["error"] == "upstream_unavailable" and refused.value.retryable
    # Waits double (0.01, 0.02, 0.04 s...): the deadline, not the attempt cap, ended the retries.
    assert 2 <= losing.attempts < CONFLICT_RETRIES
    logged = [record for record in caplog.records if "gave up" in record.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.WARNING, logged
    assert logged[0].attempts == losing.attempts  # type: ignore[attr-defined]
    assert mine.get(workflow.id).to_json() == workflow.to_json()
