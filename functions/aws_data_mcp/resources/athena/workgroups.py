"""athena://workgroups: the caller's Athena workgroups, and which of the deployment's query workgroups the caller
can run `athena_query` in, and why not.

Every call is the caller's (`request.client`); a workgroup the caller may list but not describe stays in the
answer with its own error instead of failing the read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from botocore.paginate import Paginator

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.fanout import Outcome
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.cost_guard import unguarded
from aws_data_mcp.resources.resolving import ItemError, attempt


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


class QueryWorkgroup(TypedDict):
    """One of the deployment's query workgroups, for this caller."""

    name: str
    default: bool
    usable: bool | None
    """Whether athena_query can run here for you (null: its settings could not be read just now)."""
    why_not: list[str]


class WorkGroups(TypedDict):
    count: int
    denied: int
    query_workgroups: list[QueryWorkgroup]
    """The workgroups this deployment runs queries in (the first the default), each usable or why not."""
    query_checks: str
    workgroups: list[WorkGroup]


QUERY_CHECKS = ("Checked again when a query starts, where your permission to run queries in the workgroup "
                "(athena:StartQueryExecution) is decided too.")


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
    described = attempt("athena:GetWorkGroup", lambda: get_workgroup(athena, name))
    if described.error is not None:
        return {"name": name, "error": described.error.brief()}
    return {"name": name, **workgroup_settings(described.value or {})}


def query_workgroups(allowed: Sequence[str], outcomes: Sequence[Outcome[Any, dict[str, Any]]]) -> list[QueryWorkgroup]:
    """Each of the deployment's query workgroups as the caller's GetWorkGroup found it: usable, or why not."""
    found = {outcome.item["Name"]: outcome for outcome in outcomes}
    return [_query_workgroup(name, index == 0, found.get(name)) for index, name in enumerate(allowed)]


def _query_workgroup(name: str, default: bool, outcome: Outcome[Any, dict[str, Any]] | None) -> QueryWorkgroup:
    if outcome is None:
        return QueryWorkgroup(name=name, default=default, usable=False,
                              why_not=["you cannot list a workgroup of this name in this account and region"])
    if outcome.error is not None:
        denied = outcome.error.code is ErrorCode.ACCESS_DENIED
        reason = (f"you may not describe it ({outcome.error.action or 'athena:GetWorkGroup'}), which every query "
                  "here does first to check its cutoff") if denied else \
            f"its settings could not be read just now: {outcome.error.message}"
        return QueryWorkgroup(name=name, default=default, usable=False if denied else None, why_not=[reason])
    problems = unguarded(outcome.value or {})
    return QueryWorkgroup(name=name, default=default, usable=not problems, why_not=problems)


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
    "access 'denied'. query_workgroups says which of the deployment's query workgroups athena_query can run in "
    "for you (the default first), and why not.",
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
    return WorkGroups(count=len(entries), denied=sum(e["access"] == "denied" for e in entries),
                      query_workgroups=query_workgroups(request.settings.query_workgroups, outcomes),
                      query_checks=QUERY_CHECKS,
                      workgroups=entries)

