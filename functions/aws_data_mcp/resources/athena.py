"""athena://: the caller's workgroups, query history, one query, and the Glue-backed databases and tables.

Every call is the caller's (`request.client`); per-item calls (a workgroup's details, a
database's tables, a chunk of executions) fan out in parallel, and an item the caller
may not read stays in the answer with its own error instead of failing the read.
"""

from __future__ import annotations

import re
import uuid
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from botocore.exceptions import BotoCoreError, ClientError
from botocore.paginate import Paginator

from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure, from_aws_error
from aws_data_mcp.fanout import Outcome
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.rendering import to_json

T = TypeVar("T")

GLUE_CATALOG = "AwsDataCatalog"
"""Athena's built-in catalog, backed by Glue: Glue is the truth for its databases and tables."""
SQL_PREVIEW_CHARS = 500
BATCH_GET_LIMIT = 50
"""BatchGetQueryExecution takes at most 50 ids."""
RESULT_ROWS_PAGE = 100
_HIDDEN_TABLE_PARAMETERS = ("spark.sql.sources.schema", "projection.", "storage.location.template")
"""Parameters that repeat the columns in another form (Spark's schema JSON), or that `partition_projection`
summarises."""
PARAMETER_VALUE_CHARS = 200
WORKGROUP_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


# --------------------------------------------------------------------------- shapes

class ItemError(TypedDict):
    error: str
    message: str
    retryable: bool
    action: NotRequired[str]


class WorkGroup(TypedDict):
    name: str
    state: str | None
    description: str | None
    access: str
    """"allowed" (described), "denied" (listed but GetWorkGroup refused) or "error"."""
    engine_version: NotRequired[str | None]
    result_location: NotRequired[str | None]
    enforce_configuration: NotRequired[bool | None]
    bytes_scanned_cutoff: NotRequired[int | None]
    error: NotRequired[ItemError]


class WorkGroups(TypedDict):
    count: int
    denied: int
    workgroups: list[WorkGroup]


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


class WorkGroupError(TypedDict):
    workgroup: str
    error: ItemError


class QueryHistory(TypedDict):
    limit: int
    workgroups_read: list[str]
    workgroup_errors: list[WorkGroupError]
    executions: list[Execution]


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


class Database(TypedDict):
    catalog: str
    name: str
    description: str | None
    location: str | None
    table_count: int | None
    """Glue databases only: another catalog (Hive, Lambda) would need one ListTableMetadata walk per database,
    whose cost grows with its tables, so its count stays null."""
    error: NotRequired[ItemError]


class Catalog(TypedDict):
    name: str
    type: str | None
    database_count: int | None
    error: NotRequired[ItemError]


class Databases(TypedDict):
    catalogs: list[Catalog]
    catalogs_error: ItemError | None
    databases: list[Database]


class Column(TypedDict):
    name: str
    type: str | None
    comment: NotRequired[str]


class TableSummary(TypedDict):
    name: str
    type: str | None
    format: str | None
    location: str | None
    column_count: int
    partition_keys: list[str]
    updated: str | None


class Tables(TypedDict):
    database: str
    tables: list[TableSummary]


class PartitionProjection(TypedDict):
    """Athena partition projection: the table's projection.* parameters, summarised."""

    enabled: bool
    keys: dict[str, str]
    """Projected key -> projection type (date, integer, enum, injected)."""
    location_template: str | None
    """Where each partition's files are (storage.location.template), when set."""


class Table(TypedDict):
    database: str
    name: str
    type: str | None
    description: str | None
    format: str | None
    location: str | None
    input_format: str | None
    serde: str | None
    columns: list[Column]
    partition_keys: list[Column]
    parameters: dict[str, str]
    partition_projection: PartitionProjection | None
    view_sql: str | None
    created: str | None
    updated: str | None


# --------------------------------------------------------------------------- workgroups

_LIST_WORK_GROUPS_PAGING = {"input_token": "NextToken", "output_token": "NextToken", "limit_key": "MaxResults",
                            "result_key": "WorkGroups"}


def list_workgroups(athena: Any) -> list[dict[str, Any]]:
    """Every workgroup summary, all pages. botocore ships no ListWorkGroups paginator; its `Paginator`, given the
    operation's paging keys, is one."""
    operation = athena.meta.service_model.operation_model("ListWorkGroups")
    paginator = Paginator(athena.list_work_groups, _LIST_WORK_GROUPS_PAGING, operation)
    return list(paginator.paginate(PaginationConfig={"PageSize": 50}).build_full_result().get("WorkGroups", []))


def get_workgroup(athena: Any, name: str) -> dict[str, Any]:
    return dict(athena.get_work_group(WorkGroup=name)["WorkGroup"])


def workgroup_settings(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a GetWorkGroup answer a user checks: where results go and what is enforced."""
    config = detail.get("Configuration") or {}
    engine = config.get("EngineVersion") or {}
    return {
        "engine_version": engine.get("EffectiveEngineVersion") or engine.get("SelectedEngineVersion"),
        "result_location": (config.get("ResultConfiguration") or {}).get("OutputLocation"),
        "enforce_configuration": config.get("EnforceWorkGroupConfiguration"),
        "bytes_scanned_cutoff": config.get("BytesScannedCutoffPerQuery"),
    }


def query_workgroup(athena: Any, name: str) -> dict[str, Any]:
    """The workgroup the server's table queries use: its settings, or why they could not be read."""
    try:
        return {"name": name, **workgroup_settings(get_workgroup(athena, name))}
    except (ClientError, BotoCoreError, ResourceFailure) as exc:
        return {"name": name, "error": as_failure(exc, "athena:GetWorkGroup").brief()}


def _workgroup(summary: Mapping[str, Any], outcome: Outcome[Any, dict[str, Any]]) -> WorkGroup:
    entry = WorkGroup(name=summary["Name"], state=summary.get("State"), description=summary.get("Description"),
                      access="allowed")
    if outcome.error is not None:
        denied = outcome.error.code is ErrorCode.ACCESS_DENIED
        return entry | WorkGroup(access="denied" if denied else "error",  # type: ignore[typeddict-item]
                                 error=outcome.error.brief())
    return entry | workgroup_settings(outcome.value or {})  # type: ignore[return-value]


@registry.resource(
    "athena://workgroups",
    name="athena-workgroups",
    title="Athena workgroups",
    description="Every Athena workgroup with state, engine version, result location, whether it enforces its "
    "configuration and the bytes-scanned cutoff; one the caller may list but not describe is kept with "
    "access 'denied'.",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:GetWorkGroup"],
    list_field="workgroups",
)
def workgroups(request: ResourceRequest) -> WorkGroups:
    """ListWorkGroups (all pages), then GetWorkGroup for each in parallel: two waves of calls."""
    athena = request.client("athena")
    summaries = list_workgroups(athena)
    outcomes = request.fan_out(lambda s: get_workgroup(athena, s["Name"]), summaries, action="athena:GetWorkGroup")
    entries = [_workgroup(o.item, o) for o in outcomes]
    return WorkGroups(count=len(entries), denied=sum(e["access"] == "denied" for e in entries), workgroups=entries)


# --------------------------------------------------------------------------- query history

def _limit(query: Mapping[str, str], default: int, maximum: int) -> int:
    raw = query.get("limit")
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= maximum:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"limit must be a whole number from 1 to {maximum}",
                              details=[f"e.g. athena://query/history?limit={default}"])
    return int(raw)


def _workgroup_asked(query: Mapping[str, str]) -> str | None:
    name = query.get("workgroup")
    if name is not None and not WORKGROUP_NAME.fullmatch(name):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{name[:130]!r} is not an Athena workgroup name",
                              details=["Workgroup names are 1-128 letters, digits, '.', '_' or '-'; "
                                       "athena://workgroups lists the caller's."])
    return name


def iso(value: Any) -> str | None:
    """Timestamps as ISO 8601 text, so the typed shapes hold what JSON holds."""
    return value.isoformat() if value is not None and hasattr(value, "isoformat") else value


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


HISTORY_PAGE = 50
"""ListQueryExecutions returns at most 50 ids a page."""


class _Ask(NamedTuple):
    """Up to `count` more execution ids of `workgroup`, from `resume` (a paginator token; None: the newest)."""

    workgroup: str
    count: int
    resume: str | None = None


def _list_ids(athena: Any, ask: _Ask) -> tuple[list[str], str | None]:
    """Execution ids of one workgroup, newest first (Athena lists them so), as far as `ask` says; and the
    paginator's token to go on from, None at the end of the list."""
    config: dict[str, Any] = {"MaxItems": ask.count, "PageSize": min(ask.count, HISTORY_PAGE)}
    if ask.resume is not None:
        config["StartingToken"] = ask.resume
    listed = athena.get_paginator("list_query_executions").paginate(WorkGroup=ask.workgroup,
                                                                     PaginationConfig=config)
    result = listed.build_full_result()
    return list(result.get("QueryExecutionIds", [])), result.get("NextToken")


def _chunks(items: Sequence[str], size: int) -> Iterator[list[str]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _unprocessed(item: Mapping[str, Any]) -> ResourceFailure:
    """An id BatchGetQueryExecution could not return, as the error vocabulary says it."""
    error = {"Error": {"Code": item.get("ErrorCode") or "", "Message": item.get("ErrorMessage") or ""}}
    return from_aws_error(ClientError(error, "BatchGetQueryExecution"), "athena:BatchGetQueryExecution")


def _submitted(execution: Execution) -> str:
    return execution["submitted"] or ""


@dataclass
class _Merge:
    """Several workgroups' newest executions, as far as each has been read: the ids listed (newest first),
    where each list goes on, the executions described, and the errors kept beside their workgroups."""

    listed: dict[str, list[str]] = field(default_factory=dict)
    resume: dict[str, str | None] = field(default_factory=dict)
    known: dict[str, Execution] = field(default_factory=dict)
    failures: dict[tuple[str, ErrorCode], ResourceFailure] = field(default_factory=dict)
    """Once per workgroup and error code."""

    def add_listings(self, outcomes: Sequence[Outcome[_Ask, tuple[list[str], str | None]]]) -> dict[str, str]:
        """One round of listings; returns the ids it added, each with its workgroup."""
        added: dict[str, str] = {}
        for outcome in outcomes:
            workgroup = outcome.item.workgroup
            if outcome.error is not None:
                self.failures.setdefault((workgroup, outcome.error.code), outcome.error)
                continue
            ids, self.resume[workgroup] = outcome.value  # type: ignore[misc]
            self.listed[workgroup] = self.listed.get(workgroup, []) + ids
            added |= dict.fromkeys(ids, workgroup)
        return added

    def add_batches(self, batches: Sequence[Outcome[list[str], dict[str, Any]]],
                    workgroup_of: Mapping[str, str]) -> None:
        """BatchGetQueryExecution answers; an id that could not be read leaves its error beside its workgroup."""
        for batch in batches:
            if batch.error is not None:
                for execution_id in batch.item:
                    self.failures.setdefault((workgroup_of[execution_id], batch.error.code), batch.error)
                continue
            self.known |= {e["QueryExecutionId"]: execution_summary(e) for e in batch.value.get("QueryExecutions", [])}
            for item in batch.value.get("UnprocessedQueryExecutionIds", []):
                failure = _unprocessed(item)
                self.failures.setdefault((workgroup_of.get(item.get("QueryExecutionId"), "unknown"), failure.code),
                                         failure)

    def deeper(self, limit: int) -> list[_Ask]:
        """How many more ids each workgroup could still add to the newest `limit`, and where its list goes on.

        A workgroup's unlisted executions are older than its oldest listed one: if `n` known executions are
        at least as new as that one, at most `limit - n` unlisted ones can be among the newest `limit`. A
        workgroup whose oldest listed execution could not be read is not followed (its error is reported).
        """
        times = sorted(_submitted(e) for e in self.known.values())
        wanted: list[_Ask] = []
        for workgroup, ids in self.listed.items():
            token, oldest = self.resume.get(workgroup), self.known.get(ids[-1]) if ids else None
            if token is None or oldest is None:
                continue
            newer = len(times) - bisect_left(times, _submitted(oldest))
            if newer < limit:
                wanted.append(_Ask(workgroup, limit - newer, token))
        return wanted

    def newest(self, limit: int) -> list[Execution]:
        return sorted(self.known.values(), key=_submitted, reverse=True)[:limit]


HISTORY_ROUNDS = 2
"""After the second round every followed workgroup's unlisted executions are older than `limit` known ones
(see `_Merge.deeper`), so a third never has anything to read."""


@registry.resource(
    "athena://query/history",
    name="athena-query-history",
    title="Athena query history",
    description="The newest query executions across every workgroup the caller can list (default 50, "
    "?limit= up to 500, ?workgroup= to narrow), newest first: state, times, bytes scanned, run time, SQL "
    "(cut to 500 characters), error and state reason.",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:ListQueryExecutions", "athena:BatchGetQueryExecution"],
    list_field="executions",
    query_params=["limit", "workgroup"],
)
def query_history(request: ResourceRequest) -> QueryHistory:
    """ListWorkGroups; every workgroup's newest ids (one page) and their details (BatchGetQueryExecution, 50 a
    call); then, only for the workgroups that could still hold some of the newest `limit`, as many more ids as
    could, and theirs. Each step's calls run in parallel.

    Listing every workgroup `limit` deep instead would describe up to workgroups x limit executions (45 x 500:
    450 BatchGetQueryExecution calls) to answer `limit`.
    """
    settings = request.settings
    limit = _limit(request.query, settings.query_history_default, settings.query_history_max)
    only = _workgroup_asked(request.query)
    athena = request.client("athena")
    names = [only] if only else [s["Name"] for s in list_workgroups(athena)]
    merge = _Merge()
    wanted = [_Ask(name, min(limit, HISTORY_PAGE)) for name in names]
    for _ in range(HISTORY_ROUNDS):
        listings = request.fan_out(lambda ask: _list_ids(athena, ask), wanted, action="athena:ListQueryExecutions")
        if only and not merge.listed and listings[0].error is not None:
            raise listings[0].error  # the one workgroup asked for: its failure is the answer
        added = merge.add_listings(listings)
        batches = request.fan_out(lambda chunk: athena.batch_get_query_execution(QueryExecutionIds=chunk),
                                  list(_chunks(list(added), BATCH_GET_LIMIT)), action="athena:BatchGetQueryExecution")
        merge.add_batches(batches, added)
        wanted = merge.deeper(limit)
        if not wanted:
            break
    errors = [WorkGroupError(workgroup=name, error=failure.brief()) for (name, _), failure in merge.failures.items()]
    return QueryHistory(limit=limit, workgroups_read=[name for name in names if name in merge.listed],
                        workgroup_errors=errors, executions=merge.newest(limit))


def complete_execution_id(request: ResourceRequest, prefix: str) -> list[str]:
    history = request.read_related("athena://query/history")
    return [e["id"] for e in history["executions"] if e["id"].startswith(prefix)]


# --------------------------------------------------------------------------- one query

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
    try:
        page = athena.get_query_results(QueryExecutionId=execution_id, MaxResults=RESULT_ROWS_PAGE)
    except (ClientError, BotoCoreError) as exc:
        return QueryDetail(execution=execution, results=None,
                           results_error=as_failure(exc, "athena:GetQueryResults").brief())  # type: ignore[typeddict-item]
    columns, rows = _result_rows(page, execution["statement_type"])
    fitted = _fit_rows(columns, rows, request.settings.response_char_budget)
    results = QueryResults(columns=columns, rows=fitted, returned=len(fitted), more_rows=bool(page.get("NextToken")),
                           rows_cut_to_budget=len(rows) - len(fitted))
    return QueryDetail(execution=execution, results=results)


# --------------------------------------------------------------------------- databases and tables

def glue_databases(glue: Any) -> list[dict[str, Any]]:
    pages = glue.get_paginator("get_databases").paginate()
    return [database for page in pages for database in page.get("DatabaseList", [])]


def glue_tables(glue: Any, database: str) -> list[dict[str, Any]]:
    pages = glue.get_paginator("get_tables").paginate(DatabaseName=database)
    return [table for page in pages for table in page.get("TableList", [])]


def glue_table_names(glue: Any, database: str) -> list[str]:
    """A database's table names only (GetTables with AttributesToGet): a fraction of the bytes of whole tables."""
    pages = glue.get_paginator("get_tables").paginate(DatabaseName=database, AttributesToGet=["NAME"])
    return [table["Name"] for page in pages for table in page.get("TableList", [])]


def _as_action(action: str, call: Callable[[], T]) -> T:
    """`call()`, an AWS failure named after `action`: for a fan-out whose items call different operations."""
    try:
        return call()
    except (ClientError, BotoCoreError) as exc:
        raise from_aws_error(exc, action) from exc


def _glue_call(call: Callable[[], T], not_found: str) -> T:
    """`call()`, Glue's EntityNotFoundException as a `not_found` that says what is missing."""
    try:
        return call()
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "EntityNotFoundException":
            raise
        raise ResourceFailure(ErrorCode.NOT_FOUND, not_found,
                              details=["athena://databases lists the databases the caller can see."],
                              valid_uris=["athena://databases"]) from exc


def data_catalogs(athena: Any) -> tuple[list[dict[str, Any]], ItemError | None]:
    """Athena's data catalogs; the Glue catalog is always there, even when listing catalogs is denied."""
    glue_catalog = {"CatalogName": GLUE_CATALOG, "Type": "GLUE"}
    try:
        listed = [c for page in athena.get_paginator("list_data_catalogs").paginate()
                  for c in page.get("DataCatalogsSummary", [])]
    except (ClientError, BotoCoreError) as exc:
        return [glue_catalog], as_failure(exc, "athena:ListDataCatalogs").brief()  # type: ignore[return-value]
    if all(c.get("CatalogName") != GLUE_CATALOG for c in listed):
        listed = [glue_catalog, *listed]
    return listed, None


def _other_catalog_databases(athena: Any, catalog: str) -> list[dict[str, Any]]:
    pages = athena.get_paginator("list_databases").paginate(CatalogName=catalog)
    return _as_action("athena:ListDatabases",
                      lambda: [database for page in pages for database in page.get("DatabaseList", [])])


@registry.resource(
    "athena://databases",
    name="athena-databases",
    title="Athena databases",
    description="Databases per data catalog (the Glue catalog from Glue itself) with descriptions and table "
    "counts; a catalog or database the caller cannot read is kept with its error.",
    requires="auth",
    aws_calls=["athena:ListDataCatalogs", "glue:GetDatabases", "glue:GetTables", "athena:ListDatabases"],
    list_field="databases",
)
def databases(request: ResourceRequest) -> Databases:
    """Catalogs, then the databases of every catalog in parallel, then each Glue database's table count."""
    athena, glue = request.client("athena"), request.client("glue")
    catalogs, catalogs_error = data_catalogs(athena)

    def catalog_databases(catalog: Mapping[str, Any]) -> list[dict[str, Any]]:
        if catalog["CatalogName"] == GLUE_CATALOG:
            return glue_databases(glue)
        return _other_catalog_databases(athena, catalog["CatalogName"])

    listed = request.fan_out(catalog_databases, catalogs, action="glue:GetDatabases")
    glue_names = next((o.value or [] for o in listed if o.item["CatalogName"] == GLUE_CATALOG), [])
    counts = {o.item["Name"]: o for o in request.fan_out(lambda d: len(glue_table_names(glue, d["Name"])),
                                                            glue_names, action="glue:GetTables")}
    catalog_entries: list[Catalog] = []
    entries: list[Database] = []
    for outcome in listed:
        name = outcome.item["CatalogName"]
        entry = Catalog(name=name, type=outcome.item.get("Type"), database_count=None)
        if outcome.error is not None:
            catalog_entries.append(entry | Catalog(error=outcome.error.brief()))  # type: ignore[typeddict-item]
            continue
        catalog_entries.append(entry | Catalog(database_count=len(outcome.value or [])))  # type: ignore[typeddict-item]
        for found in outcome.value or []:
            database = Database(catalog=name, name=found["Name"], description=found.get("Description"),
                                location=found.get("LocationUri"), table_count=None)
            count = counts.get(found["Name"]) if name == GLUE_CATALOG else None
            if count is not None and count.error is not None:
                database["error"] = count.error.brief()
            elif count is not None:
                database["table_count"] = count.value
            entries.append(database)
    return Databases(catalogs=catalog_entries, catalogs_error=catalogs_error, databases=entries)


def table_format(table: Mapping[str, Any]) -> str | None:
    """What a user calls the format: a view, an open table format, Glue's classification, else read off the SerDe
    and input format."""
    if table.get("TableType") == "VIRTUAL_VIEW":
        return "view"
    parameters = table.get("Parameters") or {}
    declared = str(parameters.get("table_type", "")).lower()
    if declared in ("iceberg", "delta"):
        return declared
    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    hints = f"{descriptor.get('InputFormat', '')} {serde.get('SerializationLibrary', '')}".lower()
    if "hudi" in hints:  # HoodieParquetInputFormat: Hudi, though its files are Parquet
        return "hudi"
    if parameters.get("classification"):
        return str(parameters["classification"]).lower()
    for name in ("parquet", "orc", "avro", "json", "delta"):
        if name in hints:
            return name
    if "lazysimpleserde" in hints or "opencsvserde" in hints:
        return "tsv" if (serde.get("Parameters") or {}).get("field.delim") == "\t" else "csv"
    return None


def partition_projection(parameters: Mapping[str, str]) -> PartitionProjection | None:
    if not any(key.startswith("projection.") for key in parameters):
        return None
    keys = {key[len("projection."):-len(".type")]: value for key, value in parameters.items()
            if key.startswith("projection.") and key.endswith(".type")}
    return PartitionProjection(enabled=str(parameters.get("projection.enabled", "")).lower() == "true", keys=keys,
                               location_template=parameters.get("storage.location.template"))


def _columns(raw: Sequence[Mapping[str, Any]]) -> list[Column]:
    columns = []
    for column in raw:
        entry = Column(name=column["Name"], type=column.get("Type"))
        if column.get("Comment"):
            entry["comment"] = column["Comment"]
        columns.append(entry)
    return columns


def _table_summary(table: Mapping[str, Any]) -> TableSummary:
    descriptor = table.get("StorageDescriptor") or {}
    return TableSummary(
        name=table["Name"], type=table.get("TableType"), format=table_format(table),
        location=descriptor.get("Location"), column_count=len(descriptor.get("Columns") or []),
        partition_keys=[k["Name"] for k in table.get("PartitionKeys") or []], updated=iso(table.get("UpdateTime")),
    )


def complete_database(request: ResourceRequest, prefix: str) -> list[str]:
    return [d["Name"] for d in glue_databases(request.client("glue")) if d["Name"].startswith(prefix)]


def complete_table(request: ResourceRequest, prefix: str) -> list[str]:
    database = request.args.get("database")
    if not database:
        return []
    return [name for name in glue_table_names(request.client("glue"), database) if name.startswith(prefix)]


@registry.resource(
    "athena://databases/{database}/tables",
    name="athena-tables",
    title="Tables of a database",
    description="The tables of one Glue database: type, format, S3 location, column count and partition keys.",
    requires="auth",
    aws_calls=["glue:GetTables"],
    list_field="tables",
    completions={"database": complete_database},
    example="athena://databases/sales/tables",
)
def tables(request: ResourceRequest) -> Tables:
    """Every page of GetTables, each table summarised; an unknown database is not_found, not an empty list."""
    database = request.args["database"]
    found = _glue_call(lambda: glue_tables(request.client("glue"), database),
                       f"No Glue database {database!r} in this account's AwsDataCatalog")
    return Tables(database=database, tables=[_table_summary(t) for t in found])


def _shown_parameters(parameters: Mapping[str, Any]) -> dict[str, str]:
    return {key: str(value)[:PARAMETER_VALUE_CHARS] for key, value in sorted(parameters.items())
            if not key.startswith(_HIDDEN_TABLE_PARAMETERS)}


@registry.resource(
    "athena://databases/{database}/tables/{table}",
    name="athena-table",
    title="One table",
    description="One Glue table: columns with types and comments, partition keys, S3 location, format, SerDe, "
    "the parameters worth showing, and a view's SQL.",
    requires="auth",
    aws_calls=["glue:GetTable"],
    completions={"database": complete_database, "table": complete_table},
    example="athena://databases/sales/tables/orders",
)
def table(request: ResourceRequest) -> Table:
    """GetTable, shaped for a reader writing SQL: Glue's bookkeeping parameters are left out, long values cut."""
    database, name = request.args["database"], request.args["table"]
    found = _glue_call(lambda: request.client("glue").get_table(DatabaseName=database, Name=name)["Table"],
                       f"No table {name!r} in Glue database {database!r}")
    descriptor = found.get("StorageDescriptor") or {}
    parameters = found.get("Parameters") or {}
    view_sql = found.get("ViewOriginalText")
    return Table(
        database=database, name=found["Name"], type=found.get("TableType"), description=found.get("Description"),
        format=table_format(found), location=descriptor.get("Location"), input_format=descriptor.get("InputFormat"),
        serde=(descriptor.get("SerdeInfo") or {}).get("SerializationLibrary"),
        columns=_columns(descriptor.get("Columns") or []), partition_keys=_columns(found.get("PartitionKeys") or []),
        parameters=_shown_parameters(parameters), partition_projection=partition_projection(parameters),
        view_sql=view_sql[:SQL_PREVIEW_CHARS] if view_sql else None,
        created=iso(found.get("CreateTime")), updated=iso(found.get("UpdateTime")),
    )
