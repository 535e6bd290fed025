"""athena://query/history: the newest query executions across every workgroup the caller can list.

Each round's calls (a page of ids per workgroup, their details 50 a call) fan out in parallel, and a workgroup
the caller may not read stays in the answer with its own error instead of failing the read.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure, from_aws_error
from aws_data_mcp.query.answers import QuerySummary, summary
from aws_data_mcp.reading.fanout import Outcome
from aws_data_mcp.reading.resolving import ItemError, chunks
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.workgroups import list_workgroups

BATCH_GET_LIMIT = 50
"""BatchGetQueryExecution takes at most 50 ids."""
WORKGROUP_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


class WorkGroupError(TypedDict):
    workgroup: str
    error: ItemError


class QueryHistory(TypedDict):
    limit: int
    workgroups_read: list[str]
    workgroup_errors: list[WorkGroupError]
    executions: list[QuerySummary]


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


def _unprocessed(item: Mapping[str, Any]) -> ResourceFailure:
    """An id BatchGetQueryExecution could not return, as the error vocabulary says it."""
    error = {"Error": {"Code": item.get("ErrorCode") or "", "Message": item.get("ErrorMessage") or ""}}
    return from_aws_error(ClientError(error, "BatchGetQueryExecution"), "athena:BatchGetQueryExecution")


def _submitted(execution: QuerySummary) -> str:
    return execution["submitted"] or ""


@dataclass
class _Merge:
    """Several workgroups' newest executions, as far as each has been read: the ids listed (newest first),
    where each list goes on, the executions described, and the errors kept beside their workgroups."""

    listed: dict[str, list[str]] = field(default_factory=dict)
    resume: dict[str, str | None] = field(default_factory=dict)
    known: dict[str, QuerySummary] = field(default_factory=dict)
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
                    workgroup_of: Mapping[str, str], price_per_tb: float) -> None:
        """BatchGetQueryExecution answers; an id that could not be read leaves its error beside its workgroup."""
        for batch in batches:
            if batch.error is not None:
                for execution_id in batch.item:
                    self.failures.setdefault((workgroup_of[execution_id], batch.error.code), batch.error)
                continue
            self.known |= {e["QueryExecutionId"]: summary(e, price_per_tb)
                           for e in batch.value.get("QueryExecutions", [])}
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

    def newest(self, limit: int) -> list[QuerySummary]:
        return sorted(self.known.values(), key=_submitted, reverse=True)[:limit]


HISTORY_ROUNDS = 2
"""After the second round every followed workgroup's unlisted executions are older than `limit` known ones
(see `_Merge.deeper`), so a third never has anything to read."""


@registry.resource(
    "athena://query/history",
    name="athena-query-history",
    title="Athena query history",
    description="The newest query executions across every workgroup the caller can list (default 50, "
    "?limit= up to 500, ?workgroup= to narrow), newest first, each as athena_query answers it: execution_id, uri, "
    "state and its reason, times, statistics (data scanned, billed bytes, cost, engine time), SQL (cut to 500 "
    "characters) and error.",
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
                                  chunks(list(added), BATCH_GET_LIMIT), action="athena:BatchGetQueryExecution")
        merge.add_batches(batches, added, settings.athena_price_per_tb)
        wanted = merge.deeper(limit)
        if not wanted:
            break
    errors = [WorkGroupError(workgroup=name, error=failure.brief()) for (name, _), failure in merge.failures.items()]
    return QueryHistory(limit=limit, workgroups_read=[name for name in names if name in merge.listed],
                        workgroup_errors=errors, executions=merge.newest(limit))
