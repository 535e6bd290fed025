"""athena://workgroups: the caller's Athena workgroups, and which of the deployment's query workgroups the caller
can run `athena_query` in, and why not.

Every call is the caller's (`request.client`); a workgroup the caller may list but not describe stays in the
answer with its own error instead of failing the read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, NotRequired, TypedDict

from botocore.paginate import Paginator

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.query.cost_guard import get_workgroup, unguarded
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, attempt
from aws_data_mcp.registry import ResourceRequest, registry


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
    """Whether athena_query can run here for you: every check holds (false: one denies it; null: none denies it
    but one could not be told, `unchecked`, or its settings could not be read just now). Never true on a guess."""
    why_not: list[str]
    unchecked: NotRequired[list[str]]
    """What could not be told here (IAM's simulator cannot simulate every caller): AWS decides it when a query
    starts."""


class WorkGroups(TypedDict):
    count: int
    denied: int
    query_workgroups: list[QueryWorkgroup]
    """The workgroups this deployment runs queries in (the first the default), each usable or why not."""
    query_checks: str
    workgroups: list[WorkGroup]
    workgroups_error: NotRequired[ItemError]
    """Why the account's workgroups could not be listed (athena:ListWorkGroups); query_workgroups still answer."""


QUERY_CHECKS = ("Checked again when a query starts, where AWS itself decides: IAM's simulator, used here for "
                "athena:StartQueryExecution and s3:PutObject, weighs your identity policies only.")


_LIST_WORK_GROUPS_PAGING = {"input_token": "NextToken", "output_token": "NextToken", "limit_key": "MaxResults",
                            "result_key": "WorkGroups"}


def list_workgroups(athena: Any) -> list[dict[str, Any]]:
    """Every workgroup summary, all pages. botocore ships no ListWorkGroups paginator; its `Paginator`, given the
    operation's paging keys, is one."""
    operation = athena.meta.service_model.operation_model("ListWorkGroups")
    paginator = Paginator(athena.list_work_groups, _LIST_WORK_GROUPS_PAGING, operation)
    return list(paginator.paginate(PaginationConfig={"PageSize": 50}).build_full_result().get("WorkGroups", []))


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


def query_workgroups(names: Sequence[str], described: Mapping[str, Outcome[Any, dict[str, Any]]],
                     links: Mapping[str, Sequence[Mapping[str, Any]]], listed: set[str] | None) -> list[QueryWorkgroup]:
    """Each of the deployment's query workgroups for the caller: usable (every check the table explainer makes of a
    workgroup holds), or why not. `listed`: the names ListWorkGroups gave, None where it could not be read."""
    return [_query_workgroup(name, index == 0, described[name], links.get(name, ()),
                             listed is None or name in listed) for index, name in enumerate(names)]


def _query_workgroup(name: str, default: bool, outcome: Outcome[Any, dict[str, Any]],
                     links: Sequence[Mapping[str, Any]], listed: bool) -> QueryWorkgroup:
    from aws_data_mcp.explainer.workgroup_checks import why_not

    if outcome.error is not None:
        if not listed:
            return QueryWorkgroup(name=name, default=default, usable=False,
                                  why_not=["you cannot list a workgroup of this name in this account and region"])
        denied = outcome.error.code is ErrorCode.ACCESS_DENIED
        reason = (f"you may not describe it ({outcome.error.action or 'athena:GetWorkGroup'}), which every query "
                  "here does first to check its cutoff") if denied else \
            f"its settings could not be read just now: {outcome.error.message}"
        return QueryWorkgroup(name=name, default=default, usable=False if denied else None, why_not=[reason])
    unsafe = unguarded(outcome.value or {})
    # The first link is GetWorkGroup's; the cost guard's own link is `unsafe`, already in words.
    checks = [entry for entry in links[1:] if entry.get("refused_by") != "server"]
    denied = [entry for entry in checks if entry["verdict"] == "denied"]
    unchecked = [entry for entry in checks if entry["verdict"] == "unknown"]
    usable = False if unsafe or denied else None if unchecked else True
    found = QueryWorkgroup(name=name, default=default, usable=usable,
                           why_not=[*unsafe, *why_not(denied)])  # type: ignore[arg-type]
    if unchecked:
        found["unchecked"] = why_not(unchecked)  # type: ignore[arg-type]
    return found


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
    "for you (the default first; a query naming none runs in the first usable), and why not: each is checked as "
    "permissions://tables checks it (described and guarded, StartQueryExecution allowed, its result location "
    "writable, its results key usable). A caller who may not list workgroups still gets query_workgroups, with "
    "the list's error beside them.",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:GetWorkGroup", "iam:SimulatePrincipalPolicy", "s3:GetBucketPolicy",
               "s3:ListAllMyBuckets", "kms:GetKeyPolicy"],
    list_field="workgroups",
)
def workgroups(request: ResourceRequest) -> WorkGroups:
    """ListWorkGroups (all pages) beside the query workgroups' first checks, then GetWorkGroup of each listed
    workgroup those checks did not describe, beside their second checks: two waves, each item answering by the
    deadline on its own."""
    # The explainer's checks, imported on the first read: they are off the cold path, as the explainers are.
    from aws_data_mcp.explainer.storage_links import Subject
    from aws_data_mcp.explainer.workgroup_checks import WorkgroupChecks

    athena = request.client("athena")
    checks = WorkgroupChecks.of(request, Subject.of(request.caller))
    found = _wave(request, [Call("athena:ListWorkGroups", partial(list_workgroups, athena)), *checks.first()])
    listing, checked = found[0], found[1:]
    described = dict(zip(checks.names, checked, strict=False))
    summaries = listing.value or []
    rest = [s for s in summaries if s["Name"] not in described]
    answers = _wave(request, [*(Call("athena:GetWorkGroup", partial(get_workgroup, athena, s["Name"])) for s in rest),
                              *checks.second(checked)])
    described |= {s["Name"]: o for s, o in zip(rest, answers, strict=False)}
    links = checks.links(answers[len(rest):])
    entries = [_workgroup(s, described[s["Name"]]) for s in summaries]
    listed = None if listing.error is not None else {s["Name"] for s in summaries}
    answer = WorkGroups(count=len(entries), denied=sum(e["access"] == "denied" for e in entries),
                        query_workgroups=query_workgroups(checks.names, described, links, listed),
                        query_checks=QUERY_CHECKS, workgroups=entries)
    if listing.error is not None:  # a caller who may not list workgroups still learns where they can query
        answer["workgroups_error"] = listing.error.brief() | (  # type: ignore[typeddict-item]
            {"details": listing.error.details} if listing.error.details else {})
    return answer


def _wave(request: ResourceRequest, calls: list[Call[Any]]) -> list[Outcome[Any, Any]]:
    return request.fan_out(Call.run, calls, action=Call.action_of)
