"""The `athena_query` and `athena_stop_query` tools: Athena SQL as the caller, guarded before any cost.

Each step refuses before the next costs anything: the read-only guard, the allowed workgroup, its
enforced cutoff, then StartQueryExecution and a bounded wait (docs/queries.md lists them). A
cancelled call stops its query. `estimate_only` runs `EXPLAIN (TYPE IO)` instead, which reads no
data.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
from botocore.exceptions import BotoCoreError, ClientError
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ResourceLink
from pydantic import Field

from aws_data_mcp.audit import note_query, note_statement
from aws_data_mcp.aws import client, deadline_scope
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure, echo
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.identity.accounts import in_current
from aws_data_mcp.observability import logger
from aws_data_mcp.query.answers import (
    QueryAnswer,
    Results,
    answer,
    estimate,
    has_session_token,
    query_uri,
    result_file,
)
from aws_data_mcp.query.cost_guard import chosen_workgroup, guarded
from aws_data_mcp.query.inputs import (
    first_usable,
    saved_query,
    usable_names,
    validated_execution_id,
)
from aws_data_mcp.query.output_schema import QUERY_ANSWER
from aws_data_mcp.query.result_pages import ATHENA_PAGE_ROWS, FIRST_PAGE, Page, read_page
from aws_data_mcp.reading.deadlines import request_budget, seconds_to_edge_deadline
from aws_data_mcp.registry import registry
from aws_data_mcp.server.answers import failure_result, tool_result
from aws_data_mcp.server.rendering import to_json
from aws_data_mcp.server.tool_host import host_of

if TYPE_CHECKING:
    from aws_data_mcp.guard.read_only import ReadOnlyStatement

T = TypeVar("T")
POLL_FIRST_SECONDS = 0.2
POLL_MAX_SECONDS = 2.0
ANSWER_MARGIN_SECONDS = 1.5
"""Kept from the request's budget after waiting: to read the first page and answer."""
STOP_BUDGET_SECONDS = 5.0
_DATABASE_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,255}$")
_CATALOG_NAME = re.compile(r"^[A-Za-z0-9_\-:/.@]{1,256}$")
"""Athena's catalog names: a data catalog's, or a Glue child catalog's path (s3tablescatalog/acme-analytics)."""
FINISHED = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})

Sql = Annotated[str | None, Field(
    description="One read-only statement in Athena's SQL (engine v3, Trino): SELECT, WITH ... SELECT, VALUES, SHOW, "
                "DESCRIBE or EXPLAIN. Required unless named_query_id is given.")]
Database = Annotated[str | None, Field(
    description="The database the statement's unqualified table names refer to, in `catalog` (athena://databases, "
                "athena://catalogs/{catalog}/databases list them). Optional for a SELECT, VALUES or EXPLAIN whose "
                "every table name is qualified (sales.orders, or catalog.schema.table); required otherwise, and for "
                "SHOW and DESCRIBE.")]
Catalog = Annotated[str | None, Field(
    description="The catalog the statement's names are read in (Athena's query context catalog): AwsDataCatalog, "
                "the Glue catalog, unless given; e.g. s3tablescatalog/acme-analytics for an S3 table bucket "
                "(athena://catalogs lists them). It must be one the deployment allows (AWS_DATA_MCP_QUERY_CATALOGS, "
                "config://server), as must every catalog the SQL names.")]
Workgroup = Annotated[str | None, Field(description="The Athena workgroup to run in; omit it to run in the first of "
                                                    "the deployment's query workgroups usable for you (the answer "
                                                    "says which). athena://workgroups (query_workgroups) says which "
                                                    "are usable for you, and why not.")]
MaxRows = Annotated[int | None, Field(ge=1, description="At most this many rows in the first answer (the server's "
                                                        "cap applies: asking for more gets the cap).")]
WaitSeconds = Annotated[float | None, Field(ge=0, description="How long to wait for the query before answering with a "
                                                              "link to read later (the server's cap applies).")]
NamedQueryId = Annotated[str | None, Field(description="Run a saved query (athena://named-queries, athena://search) "
                                                     "by its id instead of `sql`; its database unless `database` "
                                                     "is given. The same checks and cutoff apply.")]
EstimateOnly = Annotated[bool, Field(description="Ask Athena what the query would scan and cost (EXPLAIN (TYPE "
                                                 "IO)) without running it: an `estimate`, or why Athena has none.")]


@dataclass(frozen=True)
class Limits:
    max_rows: int
    wait_seconds: float
    notes: tuple[str, ...]
    """What the caller asked for beyond the operator's caps, and what it got instead."""


def limits(settings: Settings, max_rows: int | None, wait_seconds: float | None, budget: float) -> Limits:
    """The operator's caps applied to what the caller asked for; a caller asking for more is told so."""
    notes = []
    rows = settings.query_max_rows if max_rows is None else min(max_rows, settings.query_max_rows)
    if max_rows is not None and max_rows > settings.query_max_rows:
        notes.append(f"max_rows {max_rows} is over this deployment's cap: {settings.query_max_rows} rows per answer")
    ceiling = min(settings.query_wait_seconds, max(budget - ANSWER_MARGIN_SECONDS, 0.0))
    wait = ceiling if wait_seconds is None else min(wait_seconds, ceiling)
    if wait_seconds is not None and wait_seconds > ceiling:
        notes.append(f"wait_seconds {wait_seconds:g} is over what this request may wait: {ceiling:.1f} s")
    return Limits(rows, wait, tuple(notes))


def _database(name: str) -> str:
    if not _DATABASE_NAME.match(name):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "database must be a Glue database name (letters, digits, "
                              "_ and -, at most 255)", details=["athena://databases lists the databases you can read."])
    return name


def _catalog(name: str, patterns: tuple[str, ...]) -> str:
    """The query context's catalog, if the deployment allows it (the guard's patterns; no AWS call)."""
    from aws_data_mcp.guard.catalog_patterns import catalog_allowed

    if not _CATALOG_NAME.match(name) or not catalog_allowed(name, patterns):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"The catalog {echo(name)!r} is not one this deployment "
                              "lets queries read", details=[
                                  f"Allowed (AWS_DATA_MCP_QUERY_CATALOGS): {', '.join(patterns)}; athena://catalogs "
                                  "lists your catalogs by the name a query gives them."])
    return name


def query_context(statement: ReadOnlyStatement, database: str | None, catalog: str | None,
                   patterns: tuple[str, ...]) -> dict[str, str]:
    """Athena's QueryExecutionContext. The catalog, where it is given or a name is read in it (not qualified by its
    catalog), must be one the deployment allows. Without a database, Athena would read unqualified names in
    `default`: the statement must qualify every table it names (a SHOW or DESCRIBE needs one always)."""
    catalog = _catalog(catalog or GLUE_CATALOG, patterns) if catalog is not None or statement.in_context \
        else GLUE_CATALOG
    if database is not None:
        return {"Database": _database(database), "Catalog": catalog}
    unqualified = [name for name in statement.relations if "." not in name]
    if statement.kind in ("SHOW", "DESCRIBE") or unqualified:
        what = f"names {unqualified[0]!r} without its database" if unqualified else f"is a {statement.kind}"
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"athena_query needs a database: the statement {what}",
                              details=["Give database, or qualify every table (sales.orders); athena://databases "
                                       "lists the databases you can read."])
    return {"Catalog": catalog}


@registry.tool(
    name="athena_query",
    title="Run an Athena query",
    description="Run one read-only SQL statement in Athena as you, in a workgroup whose bytes-scanned cutoff AWS "
    "enforces. Answers the first page of typed rows (next_uri pages the rest) with data scanned, engine time and "
    "cost, in the shape athena://queries/{id} answers (execution_id, state, statistics, error, results); a query "
    "still running when the wait ends answers that link to read later; a failed one, its error and cost. "
    "Writes, DDL and a second statement are refused before anything runs. estimate_only asks Athena what the "
    "query would scan without running it.",
    output_schema=QUERY_ANSWER,
)
async def athena_query(ctx: Context, sql: Sql = None, database: Database = None,
                       workgroup: Workgroup = None, max_rows: MaxRows = None, wait_seconds: WaitSeconds = None,
                       estimate_only: EstimateOnly = False, named_query_id: NamedQueryId = None,
                       catalog: Catalog = None) -> CallToolResult:
    host = host_of(ctx)
    settings = host.config
    try:
        sql, database = await _statement_of(ctx, sql, database, named_query_id)
        statement = await _read_only(sql, settings.query_catalogs, _budget(ctx))
        name = chosen_workgroup(workgroup, settings.query_workgroups)
        context = query_context(statement, database, catalog, settings.query_catalogs)
        note_statement(statement.sql, statement.kind, statement.relations, context.get("Database"),
                       context["Catalog"])
        if estimate_only:
            statement = estimate_statement(statement)
        choice = await _choose_workgroup(ctx, name) if not workgroup else Choice(name, None, None)
        budget = _budget(ctx)
        bounds = limits(settings, max_rows, wait_seconds, budget)
        return await _run(ctx, statement, context, choice, bounds, time.monotonic() + budget)
    except ResourceFailure as failure:
        return failure_result(failure)


@registry.tool(
    name="athena_stop_query",
    title="Stop an Athena query",
    description="Stop a running Athena query by execution id (StopQueryExecution as you): what athena_query answers "
    "when it returns before the query ends. Stopping a finished query changes nothing.",
    read_only=False,
    destructive=True,  # a stopped query cannot be resumed: its run and the rows it had not written are lost
    idempotent=True,
    output_schema=QUERY_ANSWER,
)
async def athena_stop_query(ctx: Context, execution_id: Annotated[str, Field(
        description="The query's execution id (athena_query's answer, or athena://query/history).")]) -> CallToolResult:
    try:
        query_id = validated_execution_id(execution_id)
        budget = _budget(ctx)
        athena = await _athena(ctx, time.monotonic() + budget)
        await _call(athena.stop_query_execution, time.monotonic() + budget, QueryExecutionId=query_id)
        found = await _call(athena.get_query_execution, time.monotonic() + budget, QueryExecutionId=query_id)
    except ResourceFailure as failure:
        return failure_result(failure)
    except (ClientError, BotoCoreError) as exc:
        return failure_result(as_failure(exc, "athena:StopQueryExecution"))
    return _answer(answer(found["QueryExecution"], host_of(ctx).config.athena_price_per_tb), _link(query_id))


@dataclass(frozen=True)
class Choice:
    """The workgroup a query runs in, and, where the caller named none, why this one."""

    name: str
    note: str | None
    found: list[dict[str, Any]] | None
    """athena://workgroups' query_workgroups as the choice read them; None where nothing was read."""


async def _query_workgroups(ctx: Context) -> list[dict[str, Any]] | None:
    """athena://workgroups' query_workgroups for the caller, in the account the tool acts in, through the same cache
    as a read; None where it cannot be read (the query then meets AWS's own answer)."""
    try:
        reading = await host_of(ctx).read(in_current("athena://workgroups"), ctx.request_context)
    except ResourceFailure:
        return None
    return list(json.loads(reading.text).get("query_workgroups") or [])


async def _choose_workgroup(ctx: Context, default: str) -> Choice:
    """A query that names no workgroup runs in the first of the deployment's query workgroups usable for the
    caller: the one the table explainer picks, from the same checks (athena://workgroups)."""
    return choice_of(await _query_workgroups(ctx), default)


def choice_of(found: list[dict[str, Any]] | None, default: str) -> Choice:
    """The choice, from athena://workgroups' query_workgroups (None: they could not be read)."""
    name = first_usable(found or [])
    if found is None or name is None:
        return Choice(default, None if found is None else f"You named no workgroup and none of this deployment's is "
                      f"usable for you: ran in the default, {default}.", found)
    skipped = [entry["name"] for entry in found[:[entry["name"] for entry in found].index(name)]]
    why = f" (not {', '.join(skipped)}: athena://workgroups says why)" if skipped else ""
    return Choice(name, f"You named no workgroup: ran in {name}, the first of this deployment's query workgroups "
                        f"usable for you{why}.", found)


def usable_details(found: list[dict[str, Any]] | None) -> list[str]:
    """What a refusal adds: the workgroups the caller can use, or why none."""
    if found is None:
        return ["athena://workgroups says which of this deployment's query workgroups you can use."]
    names = usable_names(found)
    if names:
        return [f"Workgroups you can query in: {', '.join(names)} (athena://workgroups says why not the others)."]
    return ["No query workgroup of this deployment is usable for you: " + "; ".join(
        f"{entry['name']}: {', '.join(entry.get('why_not') or ['its checks could not all be told'])}"
        for entry in found) + "."]


async def _statement_of(ctx: Context, sql: str | None, database: str | None,
                        named_query_id: str | None) -> tuple[str, str | None]:
    """The SQL and database to run: as given, or a saved query's (GetNamedQuery as the caller), which then goes
    through the same checks as any SQL."""
    if named_query_id is None:
        if sql is None:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "athena_query needs sql, or named_query_id",
                                  details=["athena://named-queries lists the saved queries you can run by id."])
        return sql, database
    if sql is not None:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "Give sql or named_query_id, not both",
                              details=["named_query_id runs the saved query's own SQL."])
    deadline = time.monotonic() + _budget(ctx)
    try:
        saved = await _call(saved_query, deadline, athena=await _athena(ctx, deadline), named_query_id=named_query_id)
    except (ClientError, BotoCoreError) as exc:
        raise as_failure(exc, "athena:GetNamedQuery") from exc
    return str(saved.get("QueryString") or ""), database or saved.get("Database") or None


def _budget(ctx: Context) -> float:
    return request_budget(seconds_to_edge_deadline(ctx.request_context), host_of(ctx).config.request_timeout_seconds)


def _answer(payload: QueryAnswer | dict[str, Any], link: ResourceLink) -> CallToolResult:
    """A query's answer; an error (`isError`) where the query failed or the workgroup's cutoff stopped it, still in
    the query's shape: its `error` says why, beside its state and what it cost."""
    body = dict(payload)
    note_query(body)
    return tool_result(to_json(body), body, link=link, is_error=body.get("error") is not None)


async def _read_only(sql: object, catalogs: tuple[str, ...], seconds: float) -> ReadOnlyStatement:
    """The parser's verdict on `sql`, off the event loop (other callers' requests go on meanwhile), waited for as long
    as the request may take. The guard bounds its work, not its time (at most MAX_TOKENS tokens, a bounded look-ahead
    and nesting), so a text gets the same verdict on a busy machine as on an idle one, and its thread ends soon even
    when the wait is given up. Imported on the first query rather than with this module: sqlglot and Trino's parser
    take about half a second to import, which every cold start would otherwise pay for a tool most invocations
    never call."""
    from aws_data_mcp.guard.read_only import TOO_LONG_ADVICE, read_only_statement

    with anyio.move_on_after(seconds):
        return await anyio.to_thread.run_sync(read_only_statement, sql, catalogs, abandon_on_cancel=True)
    raise ResourceFailure(ErrorCode.TIMEOUT, "The guard could not read the SQL within the request's time",
                          details=[TOO_LONG_ADVICE])


def estimate_statement(statement: ReadOnlyStatement) -> ReadOnlyStatement:
    """EXPLAIN (TYPE IO) of the accepted SELECT: the guard's verdict on it stands (the text is not read twice)."""
    from aws_data_mcp.guard.read_only import estimate_of

    if statement.kind not in ("SELECT", "EXPLAIN") or (statement.kind == "EXPLAIN" and not statement.estimate):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"estimate_only needs a SELECT, not {statement.kind}",
                              details=["Athena estimates the input of a SELECT (EXPLAIN (TYPE IO)) only."])
    return estimate_of(statement)


async def _call(operation: Callable[..., T], deadline: float, **kwargs: Any) -> T:
    """One blocking AWS call off the event loop, bounded by the request's deadline."""
    def run() -> T:
        with deadline_scope(deadline):
            return operation(**kwargs)

    return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)


async def _athena(ctx: Context, deadline: float) -> Any:
    host = host_of(ctx)

    def run() -> Any:
        with deadline_scope(deadline):
            caller = host.caller_for(ctx.request_context)
            return client(caller.require_session(), "athena", host.config, caller.region)

    return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)


async def _run(ctx: Context, statement: ReadOnlyStatement, context: dict[str, str], choice: Choice,
               bounds: Limits, deadline: float) -> CallToolResult:
    settings = host_of(ctx).config
    workgroup = choice.name
    try:
        athena = await _athena(ctx, deadline)
        found = await _call(athena.get_work_group, deadline, WorkGroup=workgroup)
        guard = guarded(workgroup, found["WorkGroup"])
        started = await _call(athena.start_query_execution, deadline, QueryString=statement.sql,
                              QueryExecutionContext=context,
                              WorkGroup=workgroup)
    except (ClientError, BotoCoreError, ResourceFailure) as exc:
        operation = getattr(exc, "operation_name", "") or "StartQueryExecution"
        failure = exc if isinstance(exc, ResourceFailure) else as_failure(exc, f"athena:{operation}")
        if failure.code in (ErrorCode.ACCESS_DENIED, ErrorCode.INVALID_ARGUMENT, ErrorCode.NOT_FOUND):
            failure.details += [*([choice.note] if choice.note else []),
                                *usable_details(choice.found if choice.found is not None
                                                else await _query_workgroups(ctx))]
        return failure_result(failure)
    query_id = started["QueryExecutionId"]
    logger.info("query started", extra={"execution_id": query_id, "workgroup": workgroup, "kind": statement.kind})
    try:
        execution = await _wait(ctx, athena, query_id, bounds.wait_seconds, deadline)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await _stop(athena, query_id)
        raise
    except (ClientError, BotoCoreError) as exc:
        return failure_result(as_failure(exc, "athena:GetQueryExecution"))
    price = settings.athena_price_per_tb
    extras = {"statement": statement.kind, "workgroup": workgroup, **({"workgroup_choice": choice.note}
                                                                        if choice.note else {}),
              "cutoff_bytes": guard.cutoff_bytes,
              "limits": {"max_rows": bounds.max_rows, "wait_seconds": round(bounds.wait_seconds, 1),
                         "notes": list(bounds.notes)}}
    if execution["Status"]["State"] != "SUCCEEDED":
        return _answer(answer(execution, price, cutoff_bytes=guard.cutoff_bytes) | extras, _link(query_id))
    if statement.estimate:
        try:
            plan = await anyio.to_thread.run_sync(
                lambda: _plan(ctx, athena, query_id, execution, deadline), abandon_on_cancel=True)
        except (ClientError, BotoCoreError) as exc:
            return failure_result(as_failure(exc, "athena:GetQueryResults"))
        estimated = {"estimate": estimate(plan, price, guard.cutoff_bytes)}
        return _answer(answer(execution, price) | extras | estimated, _link(query_id))
    try:
        page, file = await anyio.to_thread.run_sync(
            lambda: _first_page(ctx, athena, query_id, execution, bounds, deadline), abandon_on_cancel=True)
    except (ClientError, BotoCoreError) as exc:
        return failure_result(as_failure(exc, "athena:GetQueryResults"))
    return _answer(answer(execution, price, page=Results(page, 0), file=file) | extras, _link(query_id))


async def _wait(ctx: Context, athena: Any, query_id: str, wait_seconds: float, deadline: float) -> Mapping[str, Any]:
    """GetQueryExecution until the query ends or the wait does, reporting state and data scanned as progress."""
    until = min(time.monotonic() + wait_seconds, deadline - ANSWER_MARGIN_SECONDS)
    pause, polls = POLL_FIRST_SECONDS, 0
    while True:
        execution = (await _call(athena.get_query_execution, deadline, QueryExecutionId=query_id))["QueryExecution"]
        state = execution["Status"]["State"]
        if state in FINISHED or time.monotonic() + pause > until:
            return execution
        polls += 1
        scanned = (execution.get("Statistics") or {}).get("DataScannedInBytes") or 0
        await ctx.report_progress(polls, None, f"{state}: {scanned:,} bytes scanned so far")
        await anyio.sleep(pause)
        pause = min(pause * 1.5, POLL_MAX_SECONDS)


async def _stop(athena: Any, query_id: str) -> None:
    """The tool call was cancelled: its query must not go on costing money."""
    try:
        await _call(athena.stop_query_execution, time.monotonic() + STOP_BUDGET_SECONDS, QueryExecutionId=query_id)
        logger.info("query stopped: its tool call was cancelled", extra={"execution_id": query_id})
    except (ClientError, BotoCoreError) as exc:
        logger.warning("could not stop the query of a cancelled tool call",
                       extra={"execution_id": query_id, "error": type(exc).__name__})


def _results_of(athena: Any, query_id: str) -> Callable[[str | None, int], Mapping[str, Any]]:
    def fetch(token: str | None, size: int) -> Mapping[str, Any]:
        extra = {"NextToken": token} if token else {}
        return athena.get_query_results(QueryExecutionId=query_id, MaxResults=size, **extra)

    return fetch


def _first_page(ctx: Context, athena: Any, query_id: str, execution: Mapping[str, Any], bounds: Limits,
                deadline: float) -> tuple[Page, dict[str, Any]]:
    host = host_of(ctx)
    with deadline_scope(deadline):
        page = read_page(_results_of(athena, query_id), FIRST_PAGE, max_rows=bounds.max_rows,
                         char_budget=host.config.response_char_budget * 3 // 4,
                         header_row=execution.get("StatementType") == "DML")
        caller = host.caller_for(ctx.request_context)
        s3 = client(caller.require_session(), "s3", host.config, caller.region)
        return page, result_file(s3, execution, temporary_credentials=has_session_token(caller.require_session()))


def _plan(ctx: Context, athena: Any, query_id: str, execution: Mapping[str, Any], deadline: float) -> str:
    """EXPLAIN's output as one text: Athena answers it in one row, or a row a line (reported DML or UTILITY)."""
    with deadline_scope(deadline):
        return plan_text(athena, query_id, execution, host_of(ctx).config)


def plan_text(athena: Any, query_id: str, execution: Mapping[str, Any], settings: Settings) -> str:
    """The finished EXPLAIN's rows as one text (GetQueryResults, within the answer's budget)."""
    page = read_page(_results_of(athena, query_id), FIRST_PAGE, max_rows=ATHENA_PAGE_ROWS,
                     char_budget=settings.response_char_budget * 3 // 4,
                     header_row=execution.get("StatementType") == "DML")
    return "\n".join(str(row[0]) for row in page.rows if row and row[0] is not None)


def _link(query_id: str) -> ResourceLink:
    return ResourceLink(type="resource_link", uri=query_uri(query_id), name=f"athena-query-{query_id}",
                        title="The query's state and results", mime_type="application/json")

