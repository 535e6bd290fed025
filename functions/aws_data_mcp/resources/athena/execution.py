"""athena://queries/{execution_id}: one query execution's state and cost, and its results page by page.

An execution is summarised here the same way wherever it is shown (the query history lists them so).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NotRequired, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.query_answers import (
    QueryResults,
    QueryStatistics,
    ResultFile,
    has_session_token,
    result_file,
    results,
    statistics,
)
from aws_data_mcp.resources.athena.result_pages import FIRST_PAGE, Cursor, Page, read_page
from aws_data_mcp.resources.resolving import ItemError, attempt, iso

SQL_PREVIEW_CHARS = 500


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


class LaterPage(TypedDict):
    """A page after the first Athena page: the rows only (the execution is on the first page)."""

    execution_id: str
    results: QueryResults


class QueryDetail(TypedDict):
    execution: Execution
    statistics: QueryStatistics
    results: QueryResults | None
    """None until the query has SUCCEEDED, or when its results could not be read (see `results_error`)."""
    results_error: NotRequired[ItemError]
    result_file: NotRequired[ResultFile | None]
    """On the first page: where the whole result is, and a download link where one may be given."""


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


def validated_execution_id(value: object) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{str(value)[:60]!r} is not an Athena query execution id",
                              details=["Execution ids are UUIDs; athena://query/history lists recent ones."]) from None


@registry.resource(
    "athena://queries/{execution_id}",
    name="athena-query",
    title="One Athena query",
    description="One query execution's state, data scanned and cost, and once it succeeded a page of typed rows "
    "(columns listed once; at most the server's row cap, cut to the response budget), with next_uri for the next "
    "page until the last; the first page also says where the whole result file is.",
    requires="auth",
    aws_calls=["athena:GetQueryExecution", "athena:GetQueryResults", "s3:GetObject"],
    completions={"execution_id": complete_execution_id},
    example="athena://queries/8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d",
    query_params=["cursor"],
    cacheable=False,
)
def query(request: ResourceRequest) -> QueryDetail | LaterPage:
    """GetQueryExecution, then (SUCCEEDED only) the page the cursor names: dependent calls, one Athena page held at
    a time. Never cached: a running query changes, and each page is read where the cursor says. Results that
    cannot be read (the result bucket denied, expired) leave the status standing, with their error beside it.

    A cursor into a later Athena page exists only for a query that succeeded: such a page skips the state check
    (one call a page, as a bare GetQueryResults loop makes) and carries only the rows, as later pages of a list do.
    """
    execution_id = validated_execution_id(request.args["execution_id"])
    cursor = Cursor.decode(request.query.get("cursor"))  # a bad cursor costs no call
    athena = request.client("athena")

    def page(header_row: bool) -> Page:
        return read_page(
            lambda token, size: athena.get_query_results(
                QueryExecutionId=execution_id, MaxResults=size, **({"NextToken": token} if token else {})),
            cursor, max_rows=request.settings.query_max_rows,
            char_budget=request.settings.response_char_budget * 3 // 4, header_row=header_row)

    if cursor.token is not None:
        with _found_or_not(execution_id):
            return LaterPage(execution_id=execution_id, results=results(execution_id, page(False), cursor.answered))
    with _found_or_not(execution_id):
        found = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]
    detail = QueryDetail(execution=execution_summary(found),
                         statistics=statistics(found, request.settings.athena_price_per_tb), results=None)
    if detail["execution"]["state"] != "SUCCEEDED":
        return detail
    answered = attempt("athena:GetQueryResults", lambda: page(found.get("StatementType") == "DML"))
    if answered.error is not None or answered.value is None:
        return detail | {"results_error": answered.error.brief() if answered.error else None}  # type: ignore[return-value]
    detail["results"] = results(execution_id, answered.value, cursor.answered)
    if cursor == FIRST_PAGE:
        detail["result_file"] = result_file(request.client("s3"), found,
                                            temporary_credentials=has_session_token(request.caller.require_session()))
    return detail


@contextmanager
def _found_or_not(execution_id: str) -> Iterator[None]:
    """Athena's answer for an id it does not know (for this caller) as `not_found`."""
    try:
        yield
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "InvalidRequestException":
            raise
        raise ResourceFailure(ErrorCode.NOT_FOUND, f"No query execution {execution_id} for this caller",
                              details=["Athena keeps executions for 45 days; athena://query/history lists the "
                                       "caller's recent ones."], valid_uris=["athena://query/history"]) from exc
