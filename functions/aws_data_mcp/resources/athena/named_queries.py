"""athena://named-queries: the team's saved questions (Athena named queries), with their SQL, so an agent reuses the
canonical query rather than writing its own; `athena_query` runs one by its id (`query.inputs`).

Every call is the caller's. ListNamedQueries lists ids per workgroup; BatchGetNamedQuery describes 50 a call, the
calls of every workgroup side by side.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.reading.fanout import Outcome
from aws_data_mcp.reading.resolving import ItemError, chunks
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.workgroups import list_workgroups

BATCH_GET_LIMIT = 50
"""BatchGetNamedQuery takes at most 50 ids a call."""
SQL_CHARS = 2_000
"""A saved query's SQL as listed: whole for any query a person reads; a longer one is cut and says so."""
_WORKGROUP = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class NamedQuery(TypedDict):
    id: str
    name: str
    description: str | None
    workgroup: str | None
    database: str | None
    sql: str
    sql_cut: NotRequired[bool]


class WorkgroupError(TypedDict):
    workgroup: str
    error: ItemError


class NamedQueries(TypedDict):
    workgroups_read: list[str]
    workgroup_errors: list[WorkgroupError]
    run_with: str
    named_queries: list[NamedQuery]


RUN_WITH = "athena_query with named_query_id=<id> runs one, through the same read-only check and cutoff as any SQL."


def named_query_ids(athena: Any, workgroup: str) -> list[str]:
    pages = athena.get_paginator("list_named_queries").paginate(WorkGroup=workgroup)
    return [query_id for page in pages for query_id in page.get("NamedQueryIds", [])]


def shaped(raw: Mapping[str, Any]) -> NamedQuery:
    sql = str(raw.get("QueryString") or "")
    entry = NamedQuery(id=raw["NamedQueryId"], name=raw.get("Name") or "", description=raw.get("Description"),
                       workgroup=raw.get("WorkGroup"), database=raw.get("Database"), sql=sql[:SQL_CHARS])
    if len(sql) > SQL_CHARS:
        entry["sql_cut"] = True
    return entry


def named_queries_in(request: ResourceRequest, workgroups: Sequence[str]) -> tuple[list[NamedQuery],
                                                                                    list[tuple[str, ResourceFailure]]]:
    """Every saved query of `workgroups`: their ids side by side, then their details side by side (two waves).
    A workgroup that fails is named beside its failure (a batch's, as "*"); the others still answer."""
    athena = request.client("athena")
    listed = request.fan_out(lambda name: named_query_ids(athena, name), workgroups, action="athena:ListNamedQueries")
    failures = [(o.item, o.error) for o in listed if o.error is not None]
    ids = [query_id for o in listed for query_id in o.value or []]
    batches: list[Outcome[list[str], dict[str, Any]]] = request.fan_out(
        lambda chunk: athena.batch_get_named_query(NamedQueryIds=chunk), chunks(ids, BATCH_GET_LIMIT),
        action="athena:BatchGetNamedQuery")
    found: list[NamedQuery] = []
    for batch in batches:
        if batch.error is not None:
            failures.append(("*", batch.error))
            continue
        found += [shaped(raw) for raw in (batch.value or {}).get("NamedQueries", [])]
    return sorted(found, key=lambda q: (q["workgroup"] or "", q["name"].lower(), q["id"])), failures


def workgroup_errors(failures: Sequence[tuple[str, ResourceFailure]]) -> list[WorkgroupError]:
    return [WorkgroupError(workgroup=name, error=failure.brief()) for name, failure in failures]  # type: ignore


def _workgroup_asked(query: Mapping[str, str]) -> str | None:
    name = query.get("workgroup")
    if name is None:
        return None
    if not _WORKGROUP.match(name):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Not a workgroup name: {echo(name)!r}",
                              details=["athena://workgroups lists the workgroups you can see."])
    return name


@registry.resource(
    "athena://named-queries",
    name="athena-named-queries",
    title="Saved queries",
    description="The team's saved questions (Athena named queries) of every workgroup the caller can list "
    "(?workgroup= to narrow): id, name, description, database, workgroup and SQL. athena_query runs one by its id "
    "(named_query_id).",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:ListNamedQueries", "athena:BatchGetNamedQuery"],
    list_field="named_queries",
    query_params=["workgroup"],
)
def named_queries(request: ResourceRequest) -> NamedQueries:
    """ListWorkGroups (unless one is asked), every workgroup's ids side by side, then their details side by side."""
    only = _workgroup_asked(request.query)
    names = [only] if only else [s["Name"] for s in list_workgroups(request.client("athena"))]
    found, failures = named_queries_in(request, names)
    if only and failures and failures[0][0] == only:
        raise failures[0][1]  # the one workgroup asked for: its failure is the answer
    failed = {name for name, _ in failures}
    return NamedQueries(workgroups_read=[n for n in names if n not in failed],
                        workgroup_errors=workgroup_errors(failures), run_with=RUN_WITH, named_queries=found)
