"""Can the caller run queries in each of the deployment's query workgroups, and if not, which link breaks.

One workgroup's links: it can be described and is guarded (enabled, a cutoff Athena enforces), IAM lets the caller
start queries in it, the caller may write its result location and use its results' KMS key. The table explainer
(permissions://tables) runs these checks in its own waves, beside the table's; athena://workgroups runs them alone
(`workgroup_chain`), and athena_query, given no workgroup, runs in the one `first_usable` names: the same choice
the explainer makes, from the same checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.explainer.identity_policies import denial_fixes
from aws_data_mcp.explainer.model import (
    Fix,
    Link,
    answered,
    identity_fix,
    link,
    overall,
    unsettled,
    verdict_of,
)
from aws_data_mcp.explainer.results_path import (
    RESULT_ACTIONS,
    RESULTS_KEY_ACTIONS,
    results_key,
    results_key_chain,
    write_chain,
)
from aws_data_mcp.explainer.storage_links import Subject, own_policies, s3_location
from aws_data_mcp.query.cost_guard import SUGGESTED_CUTOFF_BYTES, get_workgroup, guarded, setup_advice
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

ATHENA_ACTIONS = ("athena:StartQueryExecution", "athena:GetQueryExecution", "athena:GetQueryResults")
DATA_ACCESS = "lakeformation:GetDataAccess"
"""What Athena asks Lake Formation for, as the caller, before it reads a governed table's data: an IAM permission
the caller's own policies must grant (on "*"), beside Lake Formation's grants. Simulated with Athena's actions: one
simulation with every resource evaluates each action on each, two side by side would cost a call more."""
COST_GUARD = "aws-data-mcp:CostGuard"
"""The link of this server's own rule: a workgroup must enforce a bytes-scanned cutoff (not an AWS check)."""


@dataclass
class WorkgroupChecks:
    """The checks of every query workgroup, in two waves: `first()` (GetWorkGroup of each, IAM's simulation of
    Athena's actions), then `second(found)` (each result location's write, each results key, the caller's own
    policies after a refused workgroup); `links(answers)` assembles them."""

    request: ResourceRequest
    subject: Subject
    names: list[str]
    arns: list[str] = field(default_factory=list)
    described: list[Outcome[Any, Any]] = field(default_factory=list)
    simulated: Outcome[Any, Any] | None = None
    writing: list[tuple[str, tuple[str, str]]] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    """Each workgroup's ExpectedBucketOwner, where it sets one (evidence of its results bucket's owner)."""
    asked: bool = False

    @staticmethod
    def of(request: ResourceRequest, subject: Subject) -> WorkgroupChecks:
        names = list(request.settings.query_workgroups)
        region, account = request.caller.region, subject.account or "*"
        return WorkgroupChecks(request, subject, names,
                               [f"arn:aws:athena:{region}:{account}:workgroup/{name}" for name in names])

    def first(self) -> list[Call[Any]]:
        athena = self.request.client("athena")
        calls: list[Call[Any]] = [Call("athena:GetWorkGroup", partial(get_workgroup, athena, name))
                                  for name in self.names]
        if self.subject.principal and self.names:
            calls.append(Call("iam:SimulatePrincipalPolicy", partial(
                _simulate, self.request.client("iam"), self.subject.principal, self.arns)))
        return calls

    def second(self, found: Sequence[Outcome[Any, Any]]) -> list[Call[Any]]:
        """The answers to `first()`'s calls, in order; the calls they lead to."""
        self.described = list(found[:len(self.names)])
        self.simulated = found[len(self.names)] if len(found) > len(self.names) else None
        configurations = {name: (o.value or {}).get("Configuration") or {}
                          for name, o in zip(self.names, self.described, strict=True)}
        results = {name: c.get("ResultConfiguration") or {} for name, c in configurations.items()}
        self.writing = [(name, where) for name in self.names
                        if (where := s3_location(results[name].get("OutputLocation"))) is not None]
        self.expected = {name: str(results[name]["ExpectedBucketOwner"]) for name in self.names
                         if results[name].get("ExpectedBucketOwner")}
        self.keys = {name: key for name in self.names
                     if (key := results_key(results[name].get("EncryptionConfiguration")))}
        asked = own_policies(self.request, self.subject, any(verdict_of(o) == "denied" for o in self.described))
        self.asked = bool(asked)
        return [*(Call("s3:GetBucketPolicy", partial(write_chain, self.request, self.subject, *where, name,
                                                     self.expected.get(name)))
                  for name, where in self.writing),
                *(Call("kms:GetKeyPolicy", partial(results_key_chain, self.request, self.subject, name, key))
                  for name, key in self.keys.items()),
                *asked]  # own policies: after a refused workgroup only

    def links(self, answers: Sequence[Outcome[Any, Any]]) -> dict[str, list[Link]]:
        """The answers to `second()`'s calls, in order; each workgroup's links."""
        answers = list(answers)
        own = answers.pop() if self.asked else None
        chains, key_outcomes = answers[:len(self.writing)], answers[len(self.writing):]
        found = {name: _workgroup_links(self.subject, name, arn, outcome, self.simulated, own)
                 for name, arn, outcome in zip(self.names, self.arns, self.described, strict=True)}
        for (name, (bucket, prefix)), outcome in zip(self.writing, chains, strict=True):
            found[name] += outcome.value if outcome.ok else [link(  # type: ignore[operator]
                action, f"s3://{bucket}/{prefix}", "unknown", answered(outcome), settle=unsettled(outcome))
                for action in RESULT_ACTIONS]
        for (name, key), outcome in zip(self.keys.items(), key_outcomes, strict=True):
            found[name] += outcome.value if outcome.ok else [link(  # type: ignore[operator]
                action, key, "unknown", answered(outcome), settle=unsettled(outcome)) for action in RESULTS_KEY_ACTIONS]
        return found

    def data_access_link(self) -> Link:
        """lakeformation:GetDataAccess in the caller's IAM policies, as IAM's simulator decided it in `first()`
        (read after `second(found)`)."""
        simulated = self.simulated
        if simulated is None or simulated.error is not None:
            return link(DATA_ACCESS, "*", "unknown", answered(simulated) if simulated else {"simulated": False},
                        governed_by="lake_formation", settle=(unsettled(simulated) if simulated else
                        "IAM's simulator cannot simulate the caller: an administrator runs aws iam "
                        f"simulate-principal-policy --action-names {DATA_ACCESS} for the caller's role"))
        decision = next((r["EvalDecision"] for r in simulated.value or [] if r.get("EvalActionName") == DATA_ACCESS
                         and r.get("EvalResourceName") == "*"), None)
        if decision is None:
            return link(DATA_ACCESS, "*", "unknown", {"simulated_identity_policies": None},
                        governed_by="lake_formation",
                        settle="IAM's simulator gave no decision for it: read this explainer again")
        return link(DATA_ACCESS, "*", "allowed" if decision == "allowed" else "denied",
                    {"simulated_identity_policies": decision}, governed_by="lake_formation",
                    fix=[identity_fix(self.subject.principal, [DATA_ACCESS], ["*"], self.subject.reach)])


def workgroup_chain(request: ResourceRequest, subject: Subject) -> Chain[dict[str, list[Link]]]:
    """Every query workgroup's links for the caller, on their own: two waves (and each write check's own)."""
    checks = WorkgroupChecks.of(request, subject)
    found = yield checks.first()
    answers = yield checks.second(found)
    return checks.links(answers)


def first_usable(workgroups: Mapping[str, Sequence[Link]]) -> str | None:
    """The workgroup a query runs in when the caller names none: the first whose links all hold, else the first."""
    return next((name for name, found in workgroups.items() if overall(found) == "allowed"),
                next(iter(workgroups), None))


def no_workgroup_link() -> Link:
    """The link of a deployment that allows no workgroup: no query runs, whatever the table's links say."""
    return link("athena:workgroup", "none", "denied", {"answered": "this deployment allows no Athena workgroup"},
                fix=[Fix(kind="workgroup", apply_by="administrator", target="AWS_DATA_MCP_QUERY_WORKGROUPS",
                         command="Set AWS_DATA_MCP_QUERY_WORKGROUPS (template parameter QueryWorkgroups) to a "
                                 "workgroup whose bytes-scanned cutoff is set and enforced.")])


def why_not(links: Sequence[Link]) -> list[str]:
    """Each link that does not hold, in words: what was checked, on what, and what AWS answered."""
    reasons = []
    for entry in links:
        if entry["verdict"] == "allowed":
            continue
        evidence = entry["evidence"]
        said = (evidence.get("error") or {}).get("message") or evidence.get("answered") or evidence.get("reason")
        said = said if isinstance(said, str) else entry.get("settle") or "AWS refuses it"
        reasons.append(f"{entry['check']} on {entry['resource']} is {entry['verdict']}: {said}")
    return reasons


def _workgroup_links(subject: Subject, name: str, arn: str, described: Outcome[Any, Any],
                     simulated: Outcome[Any, Any] | None, own: Outcome[Any, Any] | None) -> list[Link]:
    """The workgroup: describable and guarded (enabled, a cutoff Athena enforces); the caller may start queries
    in it (IAM's simulator: Athena has no resource policy)."""
    if described.ok:
        results = ((described.value or {}).get("Configuration") or {}).get("ResultConfiguration") or {}
        first = link("athena:GetWorkGroup", arn, "allowed", {
            "result_location": results.get("OutputLocation"),
            "results_encryption": results.get("EncryptionConfiguration")})
        try:
            guard = guarded(name, described.value or {})
            first["evidence"]["cutoff_bytes"] = guard.cutoff_bytes
        except ResourceFailure as refusal:  # AWS answered; this server refuses the workgroup: its own kind of link
            return [first, _guard_link(name, arn, refusal), _start_link(subject, arn, simulated)]
    else:
        removed = denial_fixes(own.value, "athena:GetWorkGroup", arn, None, subject.reach) \
            if own is not None and own.ok else []
        first = link("athena:GetWorkGroup", arn, verdict_of(described), answered(described),
                     fix=[*removed, identity_fix(subject.principal, ["athena:GetWorkGroup"], [arn], subject.reach)],
                     settle=unsettled(described))
    return [first, _start_link(subject, arn, simulated)]


def _guard_link(name: str, arn: str, refusal: ResourceFailure) -> Link:
    """This server's refusal of a workgroup without an enforced cutoff: not AWS's, and fixed in the workgroup."""
    updates = {"EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": SUGGESTED_CUTOFF_BYTES}
    return link(COST_GUARD, arn, "denied", {"reason": refusal.message}, refused_by="server", fix=[Fix(
        kind="workgroup", apply_by="administrator", target=arn, command=setup_advice(name)[0].removeprefix("CLI: "),
        request={"WorkGroup": name, "State": "ENABLED", "ConfigurationUpdates": updates})])


def _start_link(subject: Subject, arn: str, simulated: Outcome[Any, Any] | None) -> Link:
    if simulated is None:
        return link("athena:StartQueryExecution", arn, "unknown", {"simulated": False},
                    settle="IAM's simulator cannot simulate the caller (only IAM users and roles): an administrator "
                           "runs aws iam simulate-principal-policy for these actions on the workgroup")
    if simulated.error is not None:
        return link("athena:StartQueryExecution", arn, "unknown", answered(simulated), settle=unsettled(simulated))
    decisions = {r["EvalActionName"]: r["EvalDecision"] for r in simulated.value or []
                 if r.get("EvalResourceName") == arn}
    missing = [a for a in ATHENA_ACTIONS if decisions.get(a) != "allowed"]
    return link("athena:StartQueryExecution", arn, "denied" if missing else "allowed",
                {"simulated_identity_policies": decisions},
                fix=[identity_fix(subject.principal, missing or list(ATHENA_ACTIONS), [arn], subject.reach)])


def _simulate(iam: Any, principal: str, arns: Sequence[str]) -> list[dict[str, Any]]:
    pages = iam.get_paginator("simulate_principal_policy").paginate(
        PolicySourceArn=principal, ActionNames=[*ATHENA_ACTIONS, DATA_ACCESS], ResourceArns=[*arns, "*"])
    return [result for page in pages for result in page.get("EvaluationResults", [])]
