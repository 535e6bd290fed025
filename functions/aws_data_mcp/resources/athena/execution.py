"""athena://queries/{execution_id}: one query execution's status and its first page of results.

An execution is summarised here the same way wherever it is shown (the query history lists them so).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.rendering import to_json
from aws_data_mcp.resources.resolving import ItemError, attempt, iso

SQL_PREVIEW_CHARS = 500
RESULT_ROWS_PAGE = 100


class Execution(TypedDict):
    id: str
    workgroup: str | None
    state: str | None
    state_change_reason: str | None
    submitted: str | None
    completed: str | None
    run_time_ms: int | None
    bytes_scanned: int | None
    statement_type: str | None
    database: str | None
    query: str
    query_truncated: bool
    output_location: str | None
    error: dict[str, Any] | None


class ResultColumn(TypedDict):
    name: str
    type: str | None


class QueryResults(TypedDict):
    columns: list[ResultColumn]
    rows: list[dict[str, str | None]]
    returned: int
    more_rows: bool
    """True when Athena holds more rows than this first page shows (read them from the output location)."""
    rows_cut_to_budget: int


class QueryDetail(TypedDict):
    execution: Execution
    results: QueryResults | None
    """None until the query has SUCCEEDED, or when its results could not be read (see `results_error`)."""
    results_error: NotRequired[ItemError]


def execution_summary(execution: Mapping[str, Any]) -> Execution:
    status = execution.get("Status") or {}
    stats = execution.get("Statistics") or {}
    sql = execution.get("Query") or ""
    error = status.get("AthenaError")
    return Execution(
        id=execution["QueryExecutionId"],
        workgroup=execution.get("WorkGroup"),
        state=status.get("State"),
        state_change_reason=status.get("StateChangeReason"),
        submitted=iso(status.get("SubmissionDateTime")),
        completed=iso(status.get("CompletionDateTime")),
        run_time_ms=stats.get("TotalExecutionTimeInMillis", stats.get("EngineExecutionTimeInMillis")),
        bytes_scanned=stats.get("DataScannedInBytes"),
        statement_type=execution.get("StatementType"),
        database=(execution.get("QueryExecutionContext") or {}).get("Database"),
        query=sql[:SQL_PREVIEW_CHARS],
        query_truncated=len(sql) > SQL_PREVIEW_CHARS,
        output_location=(execution.get("ResultConfiguration") or {}).get("OutputLocation"),
        error={"type": error.get("ErrorType"), "category": error.get("ErrorCategory"),
               "message": error.get("ErrorMessage")} if error else None,
    )


def complete_execution_id(request: ResourceRequest, prefix: str) -> list[str]:
    history = request.read_related("athena://query/history")
    return [e["id"] for e in history["executions"] if e["id"].startswith(prefix)]


def _validated_execution_id(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{value[:60]!r} is not an Athena query execution id",
                              details=["Execution ids are UUIDs; athena://query/history lists recent ones."]) from None


def _row_keys(columns: Sequence[ResultColumn]) -> list[str]:
    """Column names as row keys: a repeated name (SELECT a, a) gets a suffix instead of overwriting the first."""
    seen: dict[str, int] = {}
    keys = []
    for column in columns:
        seen[column["name"]] = seen.get(column["name"], 0) + 1
        keys.append(column["name"] if seen[column["name"]] == 1 else f"{column['name']}_{seen[column['name']]}")
    return keys


def _result_rows(page: Mapping[str, Any], statement_type: str | None) -> tuple[list[ResultColumn], list[list[Any]]]:
    result_set = page.get("ResultSet") or {}
    columns = [ResultColumn(name=c.get("Name", ""), type=c.get("Type"))
               for c in (result_set.get("ResultSetMetadata") or {}).get("ColumnInfo", [])]
    rows = [[cell.get("VarCharValue") for cell in row.get("Data", [])] for row in result_set.get("Rows", [])]
    # The first row of a SELECT's first page repeats the column names.
    if statement_type in (None, "DML") and rows and rows[0] == [c["name"] for c in columns]:
        rows = rows[1:]
    return columns, rows


def _fit_rows(columns: list[ResultColumn], rows: list[list[Any]], budget: int) -> list[dict[str, Any]]:
    """As many rows as fit in the character budget (leaving room for the execution around them)."""
    keys = _row_keys(columns)
    keyed = [dict(zip(keys, row, strict=False)) for row in rows]
    room, used, fitted = budget * 3 // 4, 0, []
    for row in keyed:
        used += len(to_json(row)) + 1
        if used > room:
            break
        fitted.append(row)
    return fitted


@registry.resource(
    "athena://queries/{execution_id}",
    name="athena-query",
    title="One Athena query",
    description="One query execution's status and, when it succeeded, the first page of results as rows keyed "
    "by column name, with column types (cut to the response budget).",
    requires="auth",
    aws_calls=["athena:GetQueryExecution", "athena:GetQueryResults"],
    completions={"execution_id": complete_execution_id},
    example="athena://queries/8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d",
)
def query(request: ResourceRequest) -> QueryDetail:
    """GetQueryExecution, then (SUCCEEDED only) GetQueryResults: two dependent calls. Results that cannot be read
    (the result bucket denied, expired) leave the status standing, with their error beside it."""
    execution_id = _validated_execution_id(request.args["execution_id"])
    athena = request.client("athena")
    try:
        found = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "InvalidRequestException":
            raise
        raise ResourceFailure(ErrorCode.NOT_FOUND, f"No query execution {execution_id} for this caller",
                              details=["Athena keeps executions for 45 days; athena://query/history lists the "
                                       "caller's recent ones."], valid_uris=["athena://query/history"]) from exc
    execution = execution_summary(found)
    if execution["state"] != "SUCCEEDED":
        return QueryDetail(execution=execution, results=None)
    answered = attempt("athena:GetQueryResults",
                       lambda: athena.get_query_results(QueryExecutionId=execution_id, MaxResults=RESULT_ROWS_PAGE))
    if answered.error is not None:
        return QueryDetail(execution=execution, results=None,
                           results_error=answered.error.brief())  # type: ignore[typeddict-item]
    page = answered.value or {}
    columns, rows = _result_rows(page, execution["statement_type"])
    fitted = _fit_rows(columns, rows, request.settings.response_char_budget)
    results = QueryResults(columns=columns, rows=fitted, returned=len(fitted), more_rows=bool(page.get("NextToken")),
                           rows_cut_to_budget=len(rows) - len(fitted))
    return QueryDetail(execution=execution, results=results)
