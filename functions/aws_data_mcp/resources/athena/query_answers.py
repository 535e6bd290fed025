"""What a query answers, from the tool and from `athena://queries/{execution_id}` alike: its state, what it
scanned and cost, a page of rows with the URI of the next, and the result file; or Athena's reason as an error
the agent can act on. An estimate (EXPLAIN (TYPE IO)) answers what Athena expects the query to read instead."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, TypedDict
from urllib.parse import urlencode

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.access_links import explainer_in
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.resources.athena.result_pages import Cursor, Page, ResultColumn, billed_cost

QUERY_URI = "athena://queries/{}"
PRESIGNED_SECONDS = 900
_CUTOFF = re.compile(r"bytes scanned limit", re.IGNORECASE)
_DENIED = re.compile(r"access denied|accessdenied|permission denied|not authorized|insufficient permissions|"
                     r"insufficient lake formation permission", re.IGNORECASE)
_ERROR_NAME = re.compile(r"^([A-Z][A-Z_]+):")
"""Trino's error name before a user error (COLUMN_NOT_FOUND: line 1:8: ...)."""
_ACTION = re.compile(r"\b(s3|glue|athena|kms|lakeformation):([A-Za-z]+)\b")
USER_ERROR = 2
"""AthenaError.ErrorCategory: 1 system, 2 user, 3 other."""
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


def query_uri(query_id: str, cursor: Cursor | None = None) -> str:
    base = QUERY_URI.format(query_id)
    return f"{base}?{urlencode({'cursor': cursor.encode()})}" if cursor else base


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


def estimate(plan: str, price_per_tb: float) -> Estimate:
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
                    billed_bytes=cost["billed_bytes"], cost_usd=cost["cost_usd"], price_per_tb_usd=price_per_tb)


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


def stopped_by_cutoff(execution: Mapping[str, Any]) -> bool:
    """Athena stopped the query at the workgroup's bytes-scanned cutoff (it reports it CANCELLED or FAILED)."""
    return bool(_CUTOFF.search((execution.get("Status") or {}).get("StateChangeReason") or ""))


def results(query_id: str, page: Page, first_row: int) -> QueryResults:
    """One page of rows: columns listed once, rows as arrays in their order, and where the next page is."""
    return QueryResults(
        columns=page.columns,
        rows=page.rows,
        returned=len(page.rows),
        first_row=first_row,
        more_rows=page.next_cursor is not None,
        next_uri=query_uri(query_id, page.next_cursor) if page.next_cursor else None,
        cut_to_budget=page.cut_to_budget,
    )


def failure(execution: Mapping[str, Any], cutoff_bytes: int | None = None) -> ResourceFailure:
    """A FAILED query as an error the agent can act on: Athena's own reason, and what to change."""
    status = execution.get("Status") or {}
    reason = status.get("StateChangeReason") or "Athena gave no reason"
    error = status.get("AthenaError") or {}
    scanned = (execution.get("Statistics") or {}).get("DataScannedInBytes")
    query_id = execution.get("QueryExecutionId", "")
    if _CUTOFF.search(reason):
        limit = f"{cutoff_bytes:,} bytes" if cutoff_bytes else "its cutoff"
        return ResourceFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"The query would scan more than workgroup {execution.get('WorkGroup')!r} allows per query ({limit}); "
            f"Athena stopped it after {scanned or 0:,} bytes: {reason}",
            details=["Scan less: filter on the table's partition columns, select only the columns you need, or "
                     "query a smaller table; estimate_only=true asks Athena what a query would scan.",
                     "The cutoff is the operator's (the workgroup's BytesScannedCutoffPerQuery), not a tool argument."])
    name = _ERROR_NAME.match(reason)
    if name and not _DENIED.search(name.group(1).replace("_", " ")):
        # Athena words a missing column or table "cannot be resolved or requester is not authorized": the name says.
        return ResourceFailure(
            ErrorCode.INVALID_ARGUMENT, f"Athena refused the statement: {reason}",
            details=["Fix the statement where Athena says (line:column), e.g. a misspelt column or table: "
                     "athena://databases/{database}/tables/{table} lists the columns."])
    if _DENIED.search(reason):
        action = _ACTION.search(reason)
        database = (execution.get("QueryExecutionContext") or {}).get("Database")
        explain = explainer_in(reason, database)
        return ResourceFailure(
            ErrorCode.ACCESS_DENIED, f"Athena was denied while running query {query_id}: {reason}",
            details=["Ask for the permission named here on the table's data, its catalog entry or the results "
                     "location; the query ran as you.",
                     *([f"Read {explain}: each link of the chain, checked as you, with the fix to copy."]
                       if explain else [])],
            action=f"{action.group(1)}:{action.group(2)}" if action else (
                "lakeformation:SELECT" if "lake formation" in reason.lower() else None), explain=explain)
    if error.get("ErrorCategory") == USER_ERROR:
        return ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Athena refused the statement: {reason}",
                               details=["Change the statement as Athena's reason says."])
    return ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, f"Athena failed query {query_id}: {reason}",
                           details=["Athena reported an error of its own: run the query again later."])


def result_file(s3: Any, execution: Mapping[str, Any], *, temporary_credentials: bool) -> ResultFile | None:
    """Where the whole result is and, where the caller may read it (HeadObject says so), a download link that
    lasts PRESIGNED_SECONDS, signed with the caller's own credentials.

    Not with temporary credentials (every hosted caller, SSO and assumed roles locally): a presigned URL carries
    the session token in its query string, and no session token ever leaves this server."""
    location = (execution.get("ResultConfiguration") or {}).get("OutputLocation")
    if not location or not location.startswith("s3://"):
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
