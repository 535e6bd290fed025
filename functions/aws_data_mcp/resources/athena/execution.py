"""athena://queries/{execution_id}: one query execution's state and cost, and its results page by page, in the
shape `athena_query` answers (query_answers.py builds both).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.query.answers import (
    QueryAnswer,
    Results,
    answer,
    has_session_token,
    result_file,
)
from aws_data_mcp.query.inputs import validated_execution_id
from aws_data_mcp.query.result_pages import FIRST_PAGE, Cursor, Page, read_page
from aws_data_mcp.reading.resolving import attempt
from aws_data_mcp.registry import ResourceRequest, registry


def complete_execution_id(request: ResourceRequest, prefix: str) -> list[str]:
    history = request.read_related("athena://query/history")
    return [e["execution_id"] for e in history["executions"] if e["execution_id"].startswith(prefix)]


@registry.resource(
    "athena://queries/{execution_id}",
    name="athena-query",
    title="One Athena query",
    description="One query execution as athena_query answers it: state, data scanned and cost, why it failed, and "
    "once it succeeded a page of typed rows (columns listed once; at most the server's row cap, cut to the "
    "response budget; a value too long for any answer cut and marked), with next_uri for the next page until the "
    "last, and the result file (a download link on the first page).",
    requires="auth",
    aws_calls=["athena:GetQueryExecution", "athena:GetQueryResults", "s3:GetObject"],
    completions={"execution_id": complete_execution_id},
    example="athena://queries/8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d",
    query_params=["cursor"],
    cacheable=False,
)
def query(request: ResourceRequest) -> QueryAnswer:
    """GetQueryExecution, then (SUCCEEDED only) the page the cursor names, one Athena page held at a time. Never
    cached: a running query changes, and each page is read where the cursor says. Results that cannot be read (the
    result bucket denied, expired) leave the status standing, with their error beside it.

    A cursor into a later Athena page exists only for a query that succeeded, whose final state is remembered per
    caller: every page answers the same shape at the cost of one call (GetQueryResults) after the first.
    """
    execution_id = validated_execution_id(request.args["execution_id"])
    cursor = Cursor.decode(request.query.get("cursor"))  # a bad cursor costs no call
    athena = request.client("athena")
    price = request.settings.athena_price_per_tb

    def page(header_row: bool) -> Page:
        return read_page(
            lambda token, size: athena.get_query_results(
                QueryExecutionId=execution_id, MaxResults=size, **({"NextToken": token} if token else {})),
            cursor, max_rows=request.settings.query_max_rows,
            char_budget=request.settings.response_char_budget * 3 // 4, header_row=header_row)

    def describe() -> dict[str, Any]:
        with _found_or_not(execution_id):
            return dict(athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"])

    if cursor.token is not None:
        # A later page exists only for a query that succeeded, whose description no longer changes: asked once per
        # caller and cache TTL, not once per page (GetQueryResults still checks the caller on every page).
        described = attempt("athena:GetQueryExecution",
                            lambda: request.remembered(("athena:GetQueryExecution", execution_id), describe))
        read = attempt("athena:GetQueryResults", lambda: page(False)) if described.error is None else described
        if read.error is not None:
            raise read.error
        return answer(described.value, price, page=Results(read.value, cursor.answered))  # type: ignore[arg-type]
    found = describe()
    if (found.get("Status") or {}).get("State") != "SUCCEEDED":
        return answer(found, price)
    read = attempt("athena:GetQueryResults", lambda: page(found.get("StatementType") == "DML"))
    if read.error is not None or read.value is None:
        return answer(found, price, page_error=read.error.brief() if read.error else None)  # type: ignore[arg-type]
    file = result_file(request.client("s3"), found,
                       temporary_credentials=has_session_token(request.caller.require_session())) \
        if cursor == FIRST_PAGE else None
    return answer(found, price, page=Results(read.value, cursor.answered), file=file)


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
