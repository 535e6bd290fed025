"""The cost guard: a query runs only in a workgroup the deployment allows, whose cutoff AWS enforces.

Why the workgroup and not the server: a per-query bytes-scanned cutoff set on a workgroup whose configuration is
enforced is applied by Athena itself, to every query, whoever sends it, with no client able to override it or the
result location. The server's part is to refuse, before any `StartQueryExecution`, a workgroup where that is not
so, and to say exactly what to set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo

SUGGESTED_CUTOFF_BYTES = 10 * (1 << 30)
"""10 GiB (USD 0.05 at Athena's list price): the cutoff the advice proposes."""


@dataclass(frozen=True)
class GuardedWorkgroup:
    name: str
    cutoff_bytes: int
    output_location: str | None


def chosen_workgroup(requested: str | None, allowed: Sequence[str]) -> str:
    """The workgroup a query runs in: the one asked for if the deployment allows it, else the first allowed.

    Decided from settings alone, so a refusal costs no AWS call."""
    if not allowed:
        raise ResourceFailure(
            ErrorCode.INVALID_ARGUMENT, "Queries are off: this deployment allows no Athena workgroup",
            details=["The operator sets AWS_DATA_MCP_QUERY_WORKGROUPS (template parameter QueryWorkgroups) to "
                     "workgroups whose bytes-scanned cutoff is set and enforced.", *setup_advice("analysts")])
    if requested is None or requested == "":
        return allowed[0]
    if requested not in allowed:
        raise ResourceFailure(
            ErrorCode.INVALID_ARGUMENT, f"Workgroup {echo(requested)!r} is not one this deployment runs queries in",
            details=[f"This deployment's query workgroups: {', '.join(allowed)} (omit workgroup for {allowed[0]}); "
                     "athena://workgroups says which of them you can query in, and why not."])
    return requested


def get_workgroup(athena: Any, name: str) -> dict[str, Any]:
    """GetWorkGroup's WorkGroup, as the caller (`athena` is their client)."""
    return dict(athena.get_work_group(WorkGroup=name)["WorkGroup"])


def unguarded(work_group: Mapping[str, Any]) -> list[str]:
    """Why queries may not run in `work_group` (GetWorkGroup's WorkGroup): nothing where Athena enforces a cutoff."""
    configuration = work_group.get("Configuration") or {}
    problems = []
    if work_group.get("State", "ENABLED") != "ENABLED":
        problems.append("it is disabled")
    if not configuration.get("BytesScannedCutoffPerQuery"):
        problems.append("it has no per-query bytes-scanned cutoff")
    if configuration.get("EnforceWorkGroupConfiguration") is not True:
        problems.append("its configuration is not enforced, so a client could override the cutoff and the result "
                        "location")
    return problems


def guarded(name: str, work_group: Mapping[str, Any]) -> GuardedWorkgroup:
    """`work_group` (GetWorkGroup's WorkGroup) if Athena enforces a cutoff in it, else a refusal with the fix."""
    problems = unguarded(work_group)
    if problems:
        raise ResourceFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"Workgroup {name!r} cannot run queries from this server: {'; '.join(problems)}",
            details=["No query was started. An operator of the AWS account can make it safe:", *setup_advice(name)])
    configuration = work_group.get("Configuration") or {}
    location = (configuration.get("ResultConfiguration") or {}).get("OutputLocation")
    return GuardedWorkgroup(name, int(configuration["BytesScannedCutoffPerQuery"]), location)


def setup_advice(name: str) -> list[str]:
    """The exact settings that make `name` a workgroup queries may run in: CLI, then template."""
    return [
        f"CLI: aws athena update-work-group --work-group {name} --state ENABLED --configuration-updates "
        f"'EnforceWorkGroupConfiguration=true,BytesScannedCutoffPerQuery={SUGGESTED_CUTOFF_BYTES}'",
        "Template (AWS::Athena::WorkGroup): Properties: {Name: " + name + ", State: ENABLED, WorkGroupConfiguration: "
        "{EnforceWorkGroupConfiguration: true, BytesScannedCutoffPerQuery: " + str(SUGGESTED_CUTOFF_BYTES) + ", "
        "ResultConfiguration: {OutputLocation: s3://<results-bucket>/" + name + "/}}}",
        "Then list it in AWS_DATA_MCP_QUERY_WORKGROUPS (template parameter QueryWorkgroups).",
    ]
