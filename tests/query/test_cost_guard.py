"""The cost guard's decisions, made before any query starts: which workgroup, and whether Athena enforces its
cutoff; and the operator's caps on what a caller asks for."""

from __future__ import annotations

from typing import Any

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.query.answers import statistics
from aws_data_mcp.query.cost_guard import SUGGESTED_CUTOFF_BYTES, chosen_workgroup, guarded
from aws_data_mcp.query.tool import limits

SAFE = {"State": "ENABLED", "Configuration": {"BytesScannedCutoffPerQuery": 1 << 30,
                                              "EnforceWorkGroupConfiguration": True,
                                              "ResultConfiguration": {"OutputLocation": "s3://results/q/"}}}


def test_the_first_allowed_workgroup_is_the_default() -> None:
    assert chosen_workgroup(None, ("analysts", "adhoc")) == "analysts"
    assert chosen_workgroup("adhoc", ("analysts", "adhoc")) == "adhoc"


@pytest.mark.parametrize(("requested", "allowed", "says"), [
    ("primary", ("analysts",), "query workgroups: analysts"),
    (None, (), "AWS_DATA_MCP_QUERY_WORKGROUPS"),
    ("x" * 5000, ("analysts",), "athena://workgroups says which"),
])
def test_a_workgroup_the_deployment_does_not_allow_is_refused(requested: str | None, allowed: tuple[str, ...],
                                                              says: str) -> None:
    with pytest.raises(ResourceFailure) as refused:
        chosen_workgroup(requested, allowed)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert says in " ".join(refused.value.details)
    assert len(refused.value.message) < 400


def test_a_workgroup_with_an_enforced_cutoff_is_guarded() -> None:
    guard = guarded("analysts", SAFE)
    assert guard.cutoff_bytes == 1 << 30 and guard.output_location == "s3://results/q/"


@pytest.mark.parametrize(("change", "problem"), [
    ({"BytesScannedCutoffPerQuery": None}, "no per-query bytes-scanned cutoff"),
    ({"EnforceWorkGroupConfiguration": False}, "not enforced"),
    ({"EnforceWorkGroupConfiguration": None}, "not enforced"),
])
def test_a_workgroup_athena_does_not_guard_is_refused_with_the_settings_to_add(change: dict[str, Any],
                                                                               problem: str) -> None:
    unsafe = {**SAFE, "Configuration": {**SAFE["Configuration"], **change}}
    with pytest.raises(ResourceFailure) as refused:
        guarded("adhoc", unsafe)
    assert problem in refused.value.message
    advice = "\n".join(refused.value.details)
    assert ("aws athena update-work-group --work-group adhoc --state ENABLED --configuration-updates "
            f"'EnforceWorkGroupConfiguration=true,BytesScannedCutoffPerQuery={SUGGESTED_CUTOFF_BYTES}'") in advice
    assert "AWS::Athena::WorkGroup" in advice and "EnforceWorkGroupConfiguration: true" in advice


def test_a_disabled_workgroup_is_refused() -> None:
    with pytest.raises(ResourceFailure, match="disabled"):
        guarded("analysts", {**SAFE, "State": "DISABLED"})


def test_callers_get_the_operators_caps_and_are_told() -> None:
    settings = Settings(mode="local", query_max_rows=500, query_wait_seconds=10)
    asked = limits(settings, 100_000, 3600, budget=25)
    assert (asked.max_rows, asked.wait_seconds) == (500, 10)
    assert any("100000" in note and "500" in note for note in asked.notes)
    assert any("3600" in note for note in asked.notes)
    assert limits(settings, 20, 2, budget=25) == type(asked)(20, 2, ())
    assert limits(settings, None, None, budget=4).wait_seconds == pytest.approx(2.5)  # the request's own deadline


def _failed(reason: str, category: int = 2, scanned: int = 0) -> dict[str, Any]:
    return {"QueryExecutionId": "q", "WorkGroup": "analysts", "StatementType": "DML",
            "Status": {"State": "FAILED", "StateChangeReason": reason,
                       "AthenaError": {"ErrorCategory": category, "ErrorType": 1000}},
            "Statistics": {"DataScannedInBytes": scanned}}


def test_statistics_bill_what_athena_bills() -> None:
    done = {"StatementType": "DML", "Status": {"State": "SUCCEEDED"},
            "Statistics": {"DataScannedInBytes": 1 << 20, "EngineExecutionTimeInMillis": 120}}
    assert statistics(done, 5.0)["billed_bytes"] == 10 << 20 and statistics(done, 5.0)["engine_ms"] == 120
    ddl = {**done, "StatementType": "DDL"}
    assert statistics(ddl, 5.0)["cost_usd"] == 0
    stopped = _failed("Bytes scanned limit was exceeded", scanned=2 << 30)
    assert statistics(stopped, 5.0)["billed_bytes"] == 2 << 30
