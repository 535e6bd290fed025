"""Athena as AWS serves it where moto 5.2.5 does not (part of ``moto_extensions``).

``BatchGetQueryExecution`` exists (moto lacks it); ``GetQueryExecution`` reports the state, reason, error and
statistics the seed or the demo's engine gave an execution (``EXECUTION_DETAILS_ATTR``) and refuses an unknown id
with a 400; ``ListWorkGroups`` and ``GetWorkGroup`` report both engine versions, ``GetWorkGroup`` refuses an unknown
name; ``ListQueryExecutions`` lists one workgroup's, newest first; both listings page; ``UpdateWorkGroup`` exists
(moto lacks it: the explainers' workgroup fixes are applied with it).
"""

import json
from collections.abc import Mapping
from typing import Any

from moto.athena.responses import AthenaResponse
from moto.core.exceptions import JsonRESTError

from aws_data_mcp_demo.emulator.paging import page
from aws_data_mcp_demo.emulator.patch import Extension

EXECUTION_DETAILS_ATTR = "aws_data_mcp_demo_details"
"""Attribute of moto's athena Execution objects holding what the seed decided for them (state reason, error,
statistics): read by GetQueryExecution and BatchGetQueryExecution below."""

_TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})


def _statement_type(query: str) -> str:
    first = query.lstrip().split(None, 1)[0].upper() if query.strip() else ""
    if first in {"ALTER", "CREATE", "DROP", "MSCK"}:
        return "DDL"
    if first in {"DESCRIBE", "SHOW", "EXPLAIN"}:
        return "UTILITY"
    return "DML"


def _execution_document(execution_id: str, execution: Any) -> dict[str, Any]:
    """A QueryExecution as Athena returns it, including the seed's state details."""
    details: dict[str, Any] = getattr(execution, EXECUTION_DETAILS_ATTR, None) or {}
    state = execution.status
    status: dict[str, Any] = {"State": state, "SubmissionDateTime": execution.start_time}
    if state in _TERMINAL_STATES and execution.end_time is not None:
        status["CompletionDateTime"] = execution.end_time
    if details.get("StateChangeReason"):
        status["StateChangeReason"] = details["StateChangeReason"]
    if details.get("AthenaError"):
        status["AthenaError"] = details["AthenaError"]
    statistics = details.get("Statistics") or {
        "EngineExecutionTimeInMillis": 0,
        "DataScannedInBytes": 0,
        "TotalExecutionTimeInMillis": 0,
        "QueryQueueTimeInMillis": 0,
        "ServicePreProcessingTimeInMillis": 0,
        "QueryPlanningTimeInMillis": 0,
        "ServiceProcessingTimeInMillis": 0,
        "ResultReuseInformation": {"ReusedPreviousResult": False},
    }
    document: dict[str, Any] = {
        "QueryExecutionId": execution_id,
        "Query": execution.query,
        "StatementType": _statement_type(execution.query or ""),
        "ResultConfiguration": execution.config or {},
        "ResultReuseConfiguration": {"ResultReuseByAgeConfiguration": {"Enabled": False}},
        "QueryExecutionContext": execution.context or {},
        "Status": status,
        "Statistics": statistics,
        "WorkGroup": execution.workgroup.name if execution.workgroup else "primary",
        "EngineVersion": {"SelectedEngineVersion": "AUTO", "EffectiveEngineVersion": "Athena engine version 3"},
    }
    if execution.execution_parameters is not None:
        document["ExecutionParameters"] = execution.execution_parameters
    return document


def _athena_get_query_execution(self: AthenaResponse) -> str:
    """GetQueryExecution with state reason, error and statistics; unknown ids are a 400, not a 500."""
    execution_id = self._get_param("QueryExecutionId")
    if execution_id not in self.athena_backend.executions:
        raise JsonRESTError("InvalidRequestException", f"QueryExecution {execution_id} was not found")
    execution = self.athena_backend.get_query_execution(execution_id)
    return json.dumps({"QueryExecution": _execution_document(execution_id, execution)})


def _athena_batch_get_query_execution(self: AthenaResponse) -> str:
    """BatchGetQueryExecution, which moto 5.2.5 does not implement."""
    execution_ids = self._get_param("QueryExecutionIds") or []
    if not 1 <= len(execution_ids) <= 50:
        raise JsonRESTError("InvalidRequestException", "QueryExecutionIds must contain between 1 and 50 ids")
    found, unprocessed = [], []
    for execution_id in execution_ids:
        if execution_id in self.athena_backend.executions:
            execution = self.athena_backend.get_query_execution(execution_id)
            found.append(_execution_document(execution_id, execution))
        else:
            unprocessed.append(
                {
                    "QueryExecutionId": execution_id,
                    "ErrorCode": "InvalidRequestException",
                    "ErrorMessage": f"QueryExecution {execution_id} was not found",
                }
            )
    return json.dumps({"QueryExecutions": found, "UnprocessedQueryExecutionIds": unprocessed})


def _engine_version(configuration: Mapping[str, Any]) -> dict[str, str]:
    """Both engine versions, as AWS reports them (moto keeps only what the workgroup was created with)."""
    engine = configuration.get("EngineVersion") or {}
    selected = engine.get("SelectedEngineVersion", "AUTO")
    effective = engine.get("EffectiveEngineVersion") or (selected if selected != "AUTO" else "Athena engine version 3")
    return {"SelectedEngineVersion": selected, "EffectiveEngineVersion": effective}


def _athena_list_work_groups(self: AthenaResponse) -> str:
    """ListWorkGroups in pages, each summary with its engine version, as Athena serves it."""
    summaries = self.athena_backend.list_work_groups()
    for summary in summaries:
        summary["EngineVersion"] = _engine_version(self.athena_backend.work_groups[summary["Name"]].configuration)
    listed, token = page(summaries, "ListWorkGroups", self._get_param("NextToken"), self._get_param("MaxResults"))
    return json.dumps({"WorkGroups": listed, **({"NextToken": token} if token else {})})


def _athena_get_work_group(self: AthenaResponse) -> str:
    """GetWorkGroup with both engine versions; an unknown name is Athena's InvalidRequestException (moto: null)."""
    name = self._get_param("WorkGroup")
    if name not in self.athena_backend.work_groups:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {name} is not found.")
    workgroup = self.athena_backend.get_work_group(name)
    configuration = {**workgroup["Configuration"], "EngineVersion": _engine_version(workgroup["Configuration"])}
    return json.dumps({"WorkGroup": {**workgroup, "Configuration": configuration}})


def _submitted(execution: Any) -> float:
    started = execution.start_time
    return started.timestamp() if hasattr(started, "timestamp") else float(started)


def _athena_list_query_executions(self: AthenaResponse) -> str:
    """ListQueryExecutions of one workgroup (primary when none is named), newest first and in pages, as Athena
    serves it (moto: every workgroup's, oldest first, no pages)."""
    workgroup = self._get_param("WorkGroup") or "primary"
    if workgroup not in self.athena_backend.work_groups:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {workgroup} is not found.")
    executions = self.athena_backend.list_query_executions(workgroup)
    newest_first = sorted(executions, key=lambda execution_id: _submitted(executions[execution_id]), reverse=True)
    listed, token = page(newest_first, "ListQueryExecutions", self._get_param("NextToken"),
                        self._get_param("MaxResults"))
    return json.dumps({"QueryExecutionIds": listed, **({"NextToken": token} if token else {})})


_RESULT_UPDATES = ("OutputLocation", "EncryptionConfiguration", "ExpectedBucketOwner", "AclConfiguration")
"""What ResultConfigurationUpdates sets (or, with its Remove<name> flag, removes)."""


def _athena_update_work_group(self: AthenaResponse) -> str:
    """UpdateWorkGroup: its state, description and ConfigurationUpdates (the result configuration's fields, the
    cutoff, enforcement), as Athena applies them."""
    name = self._get_param("WorkGroup")
    workgroup = self.athena_backend.work_groups.get(name)
    if workgroup is None:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {name} is not found.")
    updates = self._get_param("ConfigurationUpdates") or {}
    configuration = workgroup.configuration
    results = dict(configuration.get("ResultConfiguration") or {})
    for field, value in (updates.get("ResultConfigurationUpdates") or {}).items():
        if field.startswith("Remove") and value:
            results.pop(field.removeprefix("Remove"), None)
        elif field in _RESULT_UPDATES:
            results[field] = value
    configuration["ResultConfiguration"] = results
    if updates.get("RemoveBytesScannedCutoffPerQuery"):
        configuration.pop("BytesScannedCutoffPerQuery", None)
    for field in ("BytesScannedCutoffPerQuery", "EnforceWorkGroupConfiguration", "PublishCloudWatchMetricsEnabled",
                  "RequesterPaysEnabled"):
        if field in updates:
            configuration[field] = updates[field]
    if self._get_param("State"):
        workgroup.state = self._get_param("State")
    if self._get_param("Description") is not None:
        workgroup.description = self._get_param("Description")
    return "{}"


ATHENA: tuple[Extension, ...] = (
    Extension(AthenaResponse, "get_query_execution", _athena_get_query_execution),
    Extension(AthenaResponse, "batch_get_query_execution", _athena_batch_get_query_execution),
    Extension(AthenaResponse, "list_work_groups", _athena_list_work_groups),
    Extension(AthenaResponse, "get_work_group", _athena_get_work_group),
    Extension(AthenaResponse, "list_query_executions", _athena_list_query_executions),
    Extension(AthenaResponse, "update_work_group", _athena_update_work_group),
)
