"""athena_query's estimate path for a resource read: one SELECT's EXPLAIN (TYPE IO), no data read.

A resolver runs in a worker thread without the tool's MCP context: it cannot await the tool.
So it takes the tool's own steps, in the tool's order: the guard's verdict, the workgroup choice
(athena://workgroups), the cost guard, StartQueryExecution, then the estimate read from the plan.
"""

from __future__ import annotations

import time
from typing import Any

from aws_data_mcp.aws import current_deadline
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.query.answers import answer, estimate
from aws_data_mcp.query.cost_guard import chosen_workgroup, guarded
from aws_data_mcp.query.tool import (
    ANSWER_MARGIN_SECONDS,
    FINISHED,
    POLL_FIRST_SECONDS,
    POLL_MAX_SECONDS,
    choice_of,
    estimate_statement,
    plan_text,
    query_context,
)
from aws_data_mcp.registry import ResourceRequest

_CODES = {code.value: code for code in ErrorCode}


def _query_workgroups(request: ResourceRequest) -> list[dict[str, Any]] | None:
    """athena://workgroups' query_workgroups for the caller, as the tool's choice reads them."""
    try:
        return list(request.read_related("athena://workgroups").get("query_workgroups") or [])
    except ResourceFailure:
        return None  # unreadable: the tool then runs in the default workgroup too


def _waited(athena: Any, query_id: str) -> dict[str, Any]:
    """GetQueryExecution until the EXPLAIN ends, or the request's time does (answered as running)."""
    until = (current_deadline() or time.monotonic() + 10) - ANSWER_MARGIN_SECONDS
    pause = POLL_FIRST_SECONDS
    while True:
        execution = dict(athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"])
        if execution["Status"]["State"] in FINISHED or time.monotonic() + pause > until:
            return execution
        time.sleep(pause)  # a resolver's worker thread: no event loop to give back
        pause = min(pause * 1.5, POLL_MAX_SECONDS)


def estimate_sql(request: ResourceRequest, sql: str, database: str) -> dict[str, Any]:
    """What `athena_query` with `estimate_only` answers for `sql` in `database`, as the caller."""
    from aws_data_mcp.guard.read_only import read_only_statement

    settings = request.settings
    statement = estimate_statement(read_only_statement(sql, settings.query_catalogs))
    context = query_context(statement, database, None, settings.query_catalogs)
    default = chosen_workgroup(None, settings.query_workgroups)
    choice = choice_of(_query_workgroups(request), default)
    athena = request.client("athena")
    guard = guarded(choice.name, athena.get_work_group(WorkGroup=choice.name)["WorkGroup"])
    started = athena.start_query_execution(QueryString=statement.sql, QueryExecutionContext=context,
                                           WorkGroup=choice.name)
    execution = _waited(athena, started["QueryExecutionId"])
    price = settings.athena_price_per_tb
    extras = {"workgroup": choice.name, "cutoff_bytes": guard.cutoff_bytes,
              **({"workgroup_choice": choice.note} if choice.note else {})}
    if execution["Status"]["State"] != "SUCCEEDED":
        found = answer(execution, price, cutoff_bytes=guard.cutoff_bytes)
        error = found.get("error")
        if error is not None:  # Athena's refusal, in the error vocabulary a read answers with
            code = _CODES.get(str(error.get("error")), ErrorCode.UPSTREAM_UNAVAILABLE)
            raise ResourceFailure(code, str(error.get("message")),
                                  details=[f"Athena failed the estimate: {found['uri']}."])
        return dict(found) | extras
    plan = plan_text(athena, started["QueryExecutionId"], execution, settings)
    estimated = estimate(plan, price, guard.cutoff_bytes)
    return dict(answer(execution, price)) | extras | {"estimate": estimated}
