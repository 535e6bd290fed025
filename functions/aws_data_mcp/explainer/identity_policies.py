"""The caller's identity policies, read where a refusal has no Deny in the resource's policy.

An explicit Deny always wins, so each fix changes the policy that holds it.
They are read only after a refusal: an allowed chain costs no call here.
Which fix each policy gets: docs/access.md, under fixes for a Deny.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer.deny_narrowing import without_one
from aws_data_mcp.explainer.fix_reach import Reach
from aws_data_mcp.explainer.model import Fix, principal_kind, statements
from aws_data_mcp.explainer.policy_grammar import listed
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.call_memo import across_reads
from aws_data_mcp.reading.fanout import Call, Chain, Outcome

AWS_MANAGED = "arn:aws:iam::aws:policy/"
"""AWS's own managed policies cannot be edited (a Deny there is rare): attached ones are not read; a boundary that
is one is read (it caps the caller) but is not rewritten."""
Holder = Literal["principal", "group", "permissions_boundary"]


@dataclass(frozen=True)
class IdentityPolicy:
    principal: str
    """The caller's user or role ARN."""
    name: str
    """The inline policy's name, or the managed policy's ARN."""
    managed: bool
    document: dict[str, Any]
    holder: Holder = "principal"
    """What holds it: the principal itself, one of its groups (`group`), or its permissions boundary."""
    group: str | None = None
    """The group's name, for a group's policy."""
    group_arn: str | None = None
    """The group's ARN (ListGroupsForUser's), the fix's target."""

    @property
    def held_by(self) -> str:
        """The holder in words: "the role alice", "group analysts", "the permissions boundary arn:..."."""
        if self.holder == "group":
            return f"group {self.group}"
        if self.holder == "permissions_boundary":
            return f"the permissions boundary {self.name}"
        kind, name = principal_kind(self.principal)
        return f"the {kind} {name}"

    @property
    def named(self) -> str:
        """The policy in words, with what holds it: "the policy no-lake of group analysts"."""
        return self.held_by if self.holder == "permissions_boundary" else f"the policy {self.name} of {self.held_by}"


def _kept(action: str, fn: Callable[[], Any]) -> Call[Any]:
    """A read of the caller's policies: its answers kept for the caller across reads for a short while
    (`call_memo.across_reads`), since every table explainer of a read, and the next read, asks the same."""
    return Call(action, across_reads(fn))


def _document(value: Any) -> dict[str, Any]:
    return json.loads(value) if isinstance(value, str) else dict(value)


def _managed(iam: Any, arn: str) -> dict[str, Any]:
    """A managed policy's default version's document."""
    version = iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"]
    return _document(iam.get_policy_version(PolicyArn=arn, VersionId=version)["PolicyVersion"]["Document"])


def _listed(iam: Any, operation: str, key: str, **named: str) -> list[Any]:
    """Every page's `key` of a listing (its paginator)."""
    return [entry for page in iam.get_paginator(operation).paginate(**named) for entry in page.get(key, [])]


def _inline(iam: Any, kind: str, name: str, policy: str) -> dict[str, Any]:
    answer = getattr(iam, f"get_{kind}_policy")(**{f"{kind.capitalize()}Name": name}, PolicyName=policy)
    return _document(answer["PolicyDocument"])


def _boundary_arn(iam: Any, kind: str, name: str) -> str | None:
    """The user's or role's permissions boundary (GetUser / GetRole), None where it has none."""
    entity = getattr(iam, f"get_{kind}")(**{f"{kind.capitalize()}Name": name})[kind.capitalize()]
    return (entity.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn")


def _held_by(iam: Any, kind: str, name: str) -> list[Call[Any]]:
    """A user's, role's or group's listings: its inline policies' names, the policies attached to it."""
    named = {f"{kind.capitalize()}Name": name}
    return [_kept(f"iam:List{kind.capitalize()}Policies", partial(_listed, iam, f"list_{kind}_policies",
                                                                 "PolicyNames", **named)),
            _kept(f"iam:ListAttached{kind.capitalize()}Policies", partial(
                _listed, iam, f"list_attached_{kind}_policies", "AttachedPolicies", **named))]


def _documents(iam: Any, kind: str, name: str, inline: Outcome[Any, Any], attached: Outcome[Any, Any]
               ) -> list[tuple[str, bool, Call[Any]]]:
    """The reads of the documents two listings named: (name, managed, the call that reads it)."""
    reads = [(policy, False, _kept(f"iam:Get{kind.capitalize()}Policy", partial(_inline, iam, kind, name, policy)))
             for policy in inline.value or []]
    return reads + [(entry["PolicyArn"], True, _kept("iam:GetPolicyVersion",
                                                      partial(_managed, iam, entry["PolicyArn"])))
                    for entry in attached.value or [] if not entry["PolicyArn"].startswith(AWS_MANAGED)]


def _seen(outcome: Outcome[Any, Any], *, required: bool) -> bool:
    """Whether an answer may be used: a refused (or missing) read of a group's or the boundary's is left out, the
    rest kept; any failure of the principal's own policies' reads fails them all (no fix is then read from them)."""
    if outcome.error is None:
        return True
    if required or outcome.error.code not in (ErrorCode.ACCESS_DENIED, ErrorCode.NOT_FOUND):
        raise outcome.error
    return False


def identity_policies(iam: Any, principal: str) -> Chain[list[IdentityPolicy]]:
    """The principal's inline policies and the customer managed policies attached to it (their default versions);
    for a user, each of its groups' too; and its permissions boundary, where it has one. A chain of calls
    (`fanout.Chain`, run as one Call of the explainer's): the listings and GetUser/GetRole side by side, then every
    document (and each group's listings) side by side, then the groups' documents. A group's or the boundary's read
    that IAM refuses is left out (its policies cannot be named), the rest kept."""
    kind, name = principal_kind(principal)
    first = [*_held_by(iam, kind, name), _kept(f"iam:Get{kind.capitalize()}", partial(_boundary_arn, iam, kind, name))]
    if kind == "user":
        first.append(_kept("iam:ListGroupsForUser", partial(_listed, iam, "list_groups_for_user", "Groups",
                                                           UserName=name)))
    inline, attached, boundary, *groups = yield first
    own = _documents(iam, kind, name, inline, attached) if _seen(inline, required=True) and _seen(
        attached, required=True) else []
    arn = boundary.value if _seen(boundary, required=False) else None
    member_of = (groups[0].value or []) if groups and _seen(groups[0], required=False) else []
    boundary_read = [_kept("iam:GetPolicyVersion", partial(_managed, iam, arn))] if arn else []
    second = [read for _, _, read in own] + boundary_read
    for group in member_of:
        second += _held_by(iam, "group", group["GroupName"])
    answers = yield second
    found = [IdentityPolicy(principal, policy, managed, answer.value) for (policy, managed, _), answer
             in zip(own, answers, strict=False) if _seen(answer, required=True)]
    if arn and _seen(answers[len(own)], required=False):
        found.append(IdentityPolicy(principal, arn, True, answers[len(own)].value, "permissions_boundary"))
    listings = answers[len(own) + bool(arn):]
    third = [(group, [(policy, managed, read) for policy, managed, read in _documents(
        iam, "group", group["GroupName"], listings[2 * i], listings[2 * i + 1])])
        for i, group in enumerate(member_of) if _seen(listings[2 * i], required=False)
        and _seen(listings[2 * i + 1], required=False)]
    documents = yield [read for _, reads in third for _, _, read in reads]
    at = iter(documents)
    for group, reads in third:
        for (policy, managed, _), answer in zip(reads, at, strict=False):
            if _seen(answer, required=False):
                found.append(IdentityPolicy(principal, policy, managed, answer.value, "group", group["GroupName"],
                                            group["Arn"]))
    return found


# --------------------------------------------------------------------------- fixes

def _put(policy: IdentityPolicy, document: Mapping[str, Any]) -> str:
    """The CLI command that puts `document` as the policy: a new default version of a managed policy (a policy
    keeps at most five versions: an administrator may have to delete the oldest first), else the inline one."""
    text = shlex.quote(json.dumps(document, separators=(",", ":")))
    if policy.managed:
        return f"aws iam create-policy-version --policy-arn {policy.name} --policy-document {text} --set-as-default"
    kind, name = ("group", policy.group or "") if policy.holder == "group" else principal_kind(policy.principal)
    return (f"aws iam put-{kind}-policy --{kind}-name {shlex.quote(name)} --policy-name {shlex.quote(policy.name)} "
            f"--policy-document {text}")


def _kind(policy: IdentityPolicy) -> Literal["identity_policy", "group_policy", "permissions_boundary"]:
    return "group_policy" if policy.holder == "group" else (
        "permissions_boundary" if policy.holder == "permissions_boundary" else "identity_policy")


def _target(policy: IdentityPolicy) -> str:
    return (policy.group_arn or f"group/{policy.group}") if policy.holder == "group" else (
        policy.name if policy.holder == "permissions_boundary" else policy.principal)


def _shared(policy: IdentityPolicy) -> bool:
    """Whether others may be bound by the policy too: a group's, the boundary, any managed policy."""
    return policy.holder != "principal" or policy.managed


def _deny_fix(policy: IdentityPolicy, denying: Sequence[dict[str, Any]], action: str, resource: str,
              allow: bool = False) -> Fix:
    """The policy with each denying statement out (the caller's own inline one) or narrowed to leave out the
    caller (one others share); with `allow` (a boundary that does not allow the access), an Allow of exactly the
    one action on the one resource for the caller's principal added: it lifts the cap for that access only, for
    no one else, and grants nothing by itself."""
    removes, narrows, kept, widens = [], [], [], []
    statement = {"Sid": "AwsDataMcpBoundary", "Effect": "Allow", "Action": action, "Resource": resource,
                 "Condition": {"ArnEquals": {"aws:PrincipalArn": policy.principal}}}
    for entry in listed(policy.document.get("Statement")):
        if entry not in denying:
            kept.append(entry)
            continue
        replaced, wider = without_one(entry, action, resource, policy.principal, _shared(policy))
        widens += wider
        kept += replaced
        if replaced:
            narrows += replaced
        else:
            removes.append(entry)
    fixed = {"Version": policy.document.get("Version", "2012-10-17"),
             "Statement": [*kept, statement] if allow else kept}
    words = [f"{policy.named} denies {action} on {resource}: the Deny is narrowed to leave out that one access "
             f"of {policy.principal} only" + ("; everyone else it refused, it still refuses" if _shared(policy)
                                              else "")] if narrows else []
    words += [f"{policy.named} denies {action} on {resource}: its denying statements bind the caller alone"
              + ("" if widens else " and deny nothing else") + ", and are taken out"] if removes else []
    words += [f"a wildcard leaves the caller no longer denied {', '.join(widens)}: narrow it by hand if that "
              "must stay denied"] if widens else []
    words += [f"the permissions boundary {policy.name} does not allow {action} on {resource}: a boundary caps "
              "what the identity policies grant and never grants by itself, so the Allow added grants nothing alone "
              "(an identity policy must allow it too); it names this caller only (ArnEquals aws:PrincipalArn), so "
              "every other principal using this boundary keeps the cap it shares today"] if allow else []
    fix = Fix(kind=_kind(policy), apply_by="administrator", target=_target(policy), policy_name=policy.name,
              policy=fixed, holder=policy.held_by, note="; ".join(words), command=_put(policy, fixed))
    if allow:
        fix["statement"] = statement
    if removes:
        fix["removes"] = removes
    if narrows:
        fix["narrows"] = narrows
    if widens:
        fix["widens"] = widens
    if policy.name.startswith(AWS_MANAGED):  # AWS's cannot be edited: a customer managed copy replaces it
        kind, name = principal_kind(policy.principal)
        fix["command"] = (f"aws iam create-policy --policy-name aws-data-mcp-boundary --policy-document "
                          f"{shlex.quote(json.dumps(fixed, separators=(',', ':')))} && aws iam put-{kind}-"
                          f"permissions-boundary --{kind}-name {shlex.quote(name)} --permissions-boundary "
                          f"arn:aws:iam::{policy.principal.split(':')[4]}:policy/aws-data-mcp-boundary")
    return fix


def _simulated_sources(simulated: Mapping[str, Any] | None) -> tuple[set[str] | None, bool | None]:
    """What IAM's simulator said decided one action (its EvaluationResult): the policies its matched statements
    came from (SourcePolicyId: an inline policy's name, or a managed policy's name or ARN), and whether the
    permissions boundary allowed it; None for what it did not say."""
    if not simulated:
        return None, None
    matched = [m for m in simulated.get("MatchedStatements") or [] if m.get("SourcePolicyId")]
    sources = {str(m["SourcePolicyId"]) for m in matched} if matched else None
    detail = simulated.get("PermissionsBoundaryDecisionDetail") or {}
    return sources, detail.get("AllowedByPermissionsBoundary")


def _named(policy: IdentityPolicy, sources: set[str]) -> bool:
    """Whether the simulator's SourcePolicyIds name the policy (an inline policy by its name, a managed one by its
    name or ARN)."""
    return policy.name in sources or policy.name.rsplit("/", 1)[-1] in sources


def denial_fixes(policies: Sequence[IdentityPolicy], action: str, resource: str,
                 simulated: Mapping[str, Any] | None = None, reach: Reach | None = None) -> list[Fix]:
    """The fixes of the caller's identity policies for `action` on `resource`: each policy with a Deny of it,
    narrowed (or, the caller's own inline one, with those statements out); a permissions boundary that does not
    allow it, with that Allow added. `simulated`, IAM's simulator's EvaluationResult for the action where one was
    made: AWS's own word on which policies matched and whether the boundary allowed, preferred to the statements'
    reading here. `reach`: whom the caller's principal is (fix_reach), said in each fix's note."""
    sources, bounded = _simulated_sources(simulated)
    if sources is not None and not any(_named(policy, sources) for policy in policies):
        sources = None  # it names none of the policies read (one the caller could not read): their statements tell
    fixes = []
    for policy in policies:
        denying = statements(policy.document, "Deny", action, resource, (), None, identity=True)
        denying = denying if sources is None or _named(policy, sources) else []
        capped = not statements(policy.document, "Allow", action, resource, (), None, identity=True)
        # AWS's word where it is given, unless the boundary's own Deny explains its "not allowed"
        allow = policy.holder == "permissions_boundary" and (capped if bounded is None or denying else not bounded)
        if denying or allow:
            fixes.append(_deny_fix(policy, denying, action, resource, allow))
            if reach is not None:  # a Deny narrowed for a role's ARN frees every session of the role
                fixes[-1]["note"] += f"; it reaches {reach.words}"
    return fixes

def simulation_principal(caller: Caller) -> str | None:
    """The IAM ARN IAM's simulator accepts for the caller: a user as is, an assumed role as its role.

    A role's path is not in its session ARN, so a role under a path (e.g. /service-role/) cannot be
    simulated this way: its write checks come back "unavailable".
    """
    arn = caller.principal_arn or ""
    parts = arn.split(":", 5)
    if len(parts) != 6:
        return None
    resource = parts[5]
    if parts[2] == "iam" and resource.startswith(("user/", "role/")):
        return arn
    if parts[2] == "sts" and resource.startswith("assumed-role/"):
        return f"arn:{parts[1]}:iam::{parts[4]}:role/{resource.split('/')[1]}"
    return None
