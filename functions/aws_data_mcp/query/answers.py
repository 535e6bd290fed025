"""What a query answers, in one shape wherever it is shown: the `athena_query` tool, `athena://queries/{id}` and
each of its pages (a `QueryAnswer`), and each row of `athena://query/history` (the `QuerySummary` it starts with):
its id, URI, state, what it scanned and cost, why it failed; then a page of rows with the URI of the next, and the
result file. An estimate (EXPLAIN (TYPE IO)) answers what Athena expects the query to read instead."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict
from urllib.parse import urlencode

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.errors import as_failure
from aws_data_mcp.identity.accounts import in_current
from aws_data_mcp.query.errors import QueryError, query_error, scrubbed, stopped_by_cutoff
from aws_data_mcp.query.result_pages import Cursor, Page, ResultColumn, TruncatedValue, billed_cost
from aws_data_mcp.reading.resolving import ItemError, iso

QUERY_URI = "athena://queries/{}"
PRESIGNED_SECONDS = 900
SQL_PREVIEW_CHARS = 500
UNFINISHED = frozenset({"QUEUED", "RUNNING"})
_UNBILLED_EXPLAIN = re.compile(r"^\s*EXPLAIN\b(?!\s+ANALYZE\b)", re.IGNORECASE)
"""EXPLAIN reads no data and Athena does not bill it, whatever statement type it reports; EXPLAIN ANALYZE runs."""
NO_STATISTICS = ("Athena has no statistics for these tables (e.g. run ANALYZE or Glue column statistics): no "
                 "estimate; the workgroup's cutoff still bounds what the query can cost")


class QueryStatistics(TypedDict):
    data_scanned_bytes: int
    billed_bytes: int
    """What Athena bills: the data scanned rounded up to the megabyte, 10 MB at least; 0 where it bills nothing."""
    cost_usd: float
    price_per_tb_usd: float
    engine_ms: int | None
    queued_ms: int | None
    total_ms: int | None


class QueryResults(TypedDict):
    columns: list[ResultColumn]
    rows: list[list[Any]]
    """Each row's values in the order of `columns`: numbers, decimals as strings, ISO 8601 times, null."""
    returned: int
    first_row: int
    """The index of this page's first row in the whole result."""
    more_rows: bool
    next_uri: str | None
    cut_to_budget: bool
    """True when the response budget, not the row cap, ended this page."""
    truncated_values: list[TruncatedValue]
    """Values too long for any answer, cut to fit it; the whole values are in `whole_values_file`."""
    whole_values_file: str | None
    """The result file (S3 URI) holding every value whole, where a value here was cut; else null."""


class TableEstimate(TypedDict):
    table: str
    input_bytes: int | None
    """Athena's estimate of the data the query reads from the table, from its statistics (the data's size: for
    compressed columnar files, more than the bytes Athena scans and bills); null where it has no statistics."""
    input_rows: int | None


class Estimate(TypedDict, total=False):
    available: bool
    tables: list[TableEstimate]
    input_bytes: int | None
    input_rows: int | None
    billed_bytes: int | None
    cost_usd: float | None
    """What `input_bytes` would cost at `price_per_tb_usd`, billed as Athena bills (10 MB at least)."""
    price_per_tb_usd: float
    over_cutoff: bool | None
    """Whether `input_bytes` exceed the workgroup's bytes-scanned cutoff (Athena would cancel the query once it had
    read that much); null without an estimate or a cutoff."""
    reason: str
    """Why there is no estimate (`available` false)."""
    plan: str
    """Athena's output as it came, where it is not the JSON an estimate is read from."""


class ResultFile(TypedDict, total=False):
    s3_uri: str
    presigned_url: str | None
    expires_in_seconds: int
    reason: str
    error: dict[str, Any]


@dataclass(frozen=True)
class Results:
    """A page of a query's rows, and the index of its first row in the whole result."""

    page: Page
    first_row: int


class QuerySummary(TypedDict):
    """One query as every answer about it starts, a history row included."""

    execution_id: str
    uri: str
    state: str | None
    state_reason: str | None
    """Athena's StateChangeReason (no local path)."""
    workgroup: str | None
    database: str | None
    statement_type: str | None
    """Athena's StatementType: DML (a SELECT), DDL or UTILITY (SHOW, DESCRIBE, EXPLAIN)."""
    submitted: str | None
    completed: str | None
    query: str
    """The statement as Athena received it, cut to SQL_PREVIEW_CHARS."""
    query_truncated: bool
    statistics: QueryStatistics
    error: QueryError | None
    """Why it failed or was stopped by the workgroup's cutoff (null otherwise), in the error vocabulary."""


class QueryAnswer(QuerySummary):
    """A query with its results: the tool's answer, and every page of `athena://queries/{id}`."""

    next_step: str | None
    results: QueryResults | None
    """Null until the query has SUCCEEDED, or when its results could not be read (see `results_error`)."""
    results_error: NotRequired[ItemError]
    result_file: ResultFile | None
    """Where the whole result is; on a first page, a download link where one may be given."""


def query_uri(query_id: str, cursor: Cursor | None = None) -> str:
    base = QUERY_URI.format(query_id)
    return in_current(f"{base}?{urlencode({'cursor': cursor.encode()})}" if cursor else base)


def statistics(execution: Mapping[str, Any], price_per_tb: float) -> QueryStatistics:
    """Data scanned, engine and queue time, and the cost at `price_per_tb` (Athena bills what it scanned for a
    read that ran: succeeded, cancelled, or stopped by the cutoff; not DDL, EXPLAIN or a failed statement)."""
    stats = execution.get("Statistics") or {}
    state = (execution.get("Status") or {}).get("State")
    explain = _UNBILLED_EXPLAIN.match(execution.get("Query") or "")
    charged = execution.get("StatementType") == "DML" and not explain and (
        state in ("SUCCEEDED", "CANCELLED") or stopped_by_cutoff(execution))
    return QueryStatistics(
        **billed_cost(stats.get("DataScannedInBytes"), price_per_tb, charged),
        engine_ms=stats.get("EngineExecutionTimeInMillis"),
        queued_ms=stats.get("QueryQueueTimeInMillis"),
        total_ms=stats.get("TotalExecutionTimeInMillis"),
    )


def estimate(plan: str, price_per_tb: float, cutoff_bytes: int | None = None) -> Estimate:
    """What EXPLAIN (TYPE IO, FORMAT JSON) says a query would read: per table and in all, with its cost.

    Athena estimates from table statistics only; without them its figures are NaN (or absent), and then there is
    no estimate at all, never a guess."""
    try:
        start = plan.index("{")  # the JSON, after a header row where Athena repeats the column name
        document, _ = json.JSONDecoder().raw_decode(plan, start)
        tables = [_table_estimate(info) for info in document["inputTableColumnInfos"]]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return Estimate(available=False, price_per_tb_usd=price_per_tb, plan=plan,
                        reason=f"Athena's EXPLAIN (TYPE IO) output is not the JSON expected ({type(exc).__name__}: "
                               f"{exc}): no estimate; its output is in `plan` as it came")
    figures = [table[key] for table in tables for key in ("input_bytes", "input_rows")]
    if any(figure is None for figure in figures):
        return Estimate(available=False, tables=tables, input_bytes=None, input_rows=None, billed_bytes=None,
                        cost_usd=None, price_per_tb_usd=price_per_tb, reason=NO_STATISTICS)
    total = sum(table["input_bytes"] or 0 for table in tables)
    cost = billed_cost(total, price_per_tb, charged=True)
    return Estimate(available=True, tables=tables, input_bytes=total,
                    input_rows=sum(table["input_rows"] or 0 for table in tables),
                    billed_bytes=cost["billed_bytes"], cost_usd=cost["cost_usd"], price_per_tb_usd=price_per_tb,
                    over_cutoff=None if cutoff_bytes is None else total > cutoff_bytes)


def _table_estimate(info: Mapping[str, Any]) -> TableEstimate:
    table = info["table"]
    names = table["schemaTable"]
    figures = info.get("estimate") or {}
    return TableEstimate(table=f"{table.get('catalog', '')}.{names['schema']}.{names['table']}".lstrip("."),
                         input_bytes=_figure(figures.get("outputSizeInBytes")),
                         input_rows=_figure(figures.get("outputRowCount")))


def _figure(value: Any) -> int | None:
    """One of Trino's estimates: a number, or "NaN" (a JSON string) where it has none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return math.ceil(number) if math.isfinite(number) and number >= 0 and not isinstance(value, bool) else None


def results(execution: Mapping[str, Any], page: Page, first_row: int) -> QueryResults:
    """One page of rows: columns listed once, rows as arrays in their order, and where the next page is."""
    query_id = execution["QueryExecutionId"]
    return QueryResults(
        columns=page.columns,
        rows=page.rows,
        returned=len(page.rows),
        first_row=first_row,
        more_rows=page.next_cursor is not None,
        next_uri=query_uri(query_id, page.next_cursor) if page.next_cursor else None,
        cut_to_budget=page.cut_to_budget,
        truncated_values=page.truncated,
        whole_values_file=_output_location(execution) if page.truncated else None,
    )


def summary(execution: Mapping[str, Any], price_per_tb: float, cutoff_bytes: int | None = None) -> QuerySummary:
    """A GetQueryExecution (or BatchGetQueryExecution) answer as every answer about the query starts."""
    status = execution.get("Status") or {}
    sql = execution.get("Query") or ""
    query_id = execution["QueryExecutionId"]
    return QuerySummary(
        execution_id=query_id,
        uri=query_uri(query_id),
        state=status.get("State"),
        state_reason=scrubbed(status.get("StateChangeReason")),
        workgroup=execution.get("WorkGroup"),
        database=(execution.get("QueryExecutionContext") or {}).get("Database"),
        statement_type=execution.get("StatementType"),
        submitted=iso(status.get("SubmissionDateTime")),
        completed=iso(status.get("CompletionDateTime")),
        query=sql[:SQL_PREVIEW_CHARS],
        query_truncated=len(sql) > SQL_PREVIEW_CHARS,
        statistics=statistics(execution, price_per_tb),
        error=query_error(execution, cutoff_bytes),
    )


def answer(execution: Mapping[str, Any], price_per_tb: float, *, cutoff_bytes: int | None = None,
           page: Results | None = None, page_error: ItemError | None = None,
           file: ResultFile | None = None) -> QueryAnswer:
    """The query with `page` of its results (or `page_error`, why they could not be read), and its file (else the
    file by name)."""
    head = summary(execution, price_per_tb, cutoff_bytes)
    state = head["state"]
    next_step = (f"Still {state}: read {head['uri']} again for its state and, once it succeeds, its rows; "
                 "athena_stop_query stops it.") if state in UNFINISHED else None
    found = QueryAnswer(**head, next_step=next_step, results=None,  # type: ignore[typeddict-item]
                        result_file=file if file is not None else _file_named(execution))
    if page_error is not None:
        found["results_error"] = page_error
    if page is not None:
        found["results"] = results(execution, page.page, page.first_row)
    return found


def _output_location(execution: Mapping[str, Any]) -> str | None:
    location = (execution.get("ResultConfiguration") or {}).get("OutputLocation")
    return location if location and location.startswith("s3://") else None


def _file_named(execution: Mapping[str, Any]) -> ResultFile | None:
    """The result file by name only: a download link is on the query's first page."""
    location = _output_location(execution)
    state = (execution.get("Status") or {}).get("State")
    if location is None or state != "SUCCEEDED":
        return None
    return ResultFile(s3_uri=location, presigned_url=None,
                      reason=f"the download link is on the first page: {query_uri(execution['QueryExecutionId'])}")


def result_file(s3: Any, execution: Mapping[str, Any], *, temporary_credentials: bool) -> ResultFile | None:
    """Where the whole result is and, where the caller may read it (HeadObject says so), a download link that
    lasts PRESIGNED_SECONDS, signed with the caller's own credentials.

    Not with temporary credentials (every hosted caller, SSO and assumed roles locally): a presigned URL carries
    the session token in its query string, and no session token ever leaves this server."""
    location = _output_location(execution)
    if location is None:
        return None
    bucket, _, key = location[len("s3://"):].partition("/")
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except (ClientError, BotoCoreError) as exc:
        return ResultFile(s3_uri=location, presigned_url=None, error=as_failure(exc, "s3:GetObject").brief())
    if temporary_credentials:
        return ResultFile(s3_uri=location, presigned_url=None,
                          reason="your credentials are temporary: a presigned URL would carry their session token; "
                                 "download the file with your own AWS tools (aws s3 cp)")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=PRESIGNED_SECONDS)
    return ResultFile(s3_uri=location, presigned_url=url, expires_in_seconds=PRESIGNED_SECONDS)


def has_session_token(session: Any) -> bool:
    """Whether `session`'s credentials are temporary (they carry a session token); unknown counts as temporary."""
    credentials = session.get_credentials()
    return credentials is None or bool(credentials.get_frozen_credentials().token)
