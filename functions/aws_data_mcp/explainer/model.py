"""The explainers' shared model: one link of an access chain, its verdict and evidence, and the fix to copy.

A verdict is the outcome of the call that IS the check, made as the caller (a Glue GetTable, an S3 listing, a
one-byte read), or IAM's simulator where no call can be made without changing data (a write). What cannot be seen
from the caller's seat is `unknown` with what would settle it, never assumed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.fix_reach import Reach
from aws_data_mcp.explainer.policy_grammar import iam_like, listed
from aws_data_mcp.explainer.resource_narrowing import without_one
from aws_data_mcp.reading.fanout import Outcome

Verdict = Literal["allowed", "denied", "unknown"]
ApplyBy = Literal["caller", "administrator"]
FixKind = Literal["identity_policy", "group_policy", "permissions_boundary", "bucket_policy", "key_policy",
                  "table_bucket_policy", "table_policy", "lake_formation_grant", "lake_formation_registration",
                  "workgroup"]
PolicyKind = Literal["bucket_policy", "key_policy", "table_bucket_policy", "table_policy"]
Governor = Literal["iam", "lake_formation"]
RefusedBy = Literal["aws", "server"]
BEYOND_THE_CALLER = ("Service control and resource control policies of the organization are not visible from the "
                     "caller's seat (its permissions boundary and group policies are read after a refusal, where "
                     "the caller may read them): an administrator of the organization "
                     "(organizations:ListPoliciesForTarget) or IAM's policy simulator run by an administrator "
                     "settles them.")


class Unseen(TypedDict):
    """A check no answer from the caller's seat can settle."""

    check: str
    verdict: Verdict
    settle: str


def unseen_from_the_callers_seat() -> list[Unseen]:
    """What every explainer names as unknown: the organization's policies, which the caller cannot read."""
    return [Unseen(check="organizations:ServiceControlPolicies", verdict="unknown", settle=BEYOND_THE_CALLER)]


class Fix(TypedDict):
    """What to apply, copied as is, and who may apply it."""

    kind: FixKind
    apply_by: ApplyBy
    target: str
    """The role, user, bucket, key, workgroup or Lake Formation resource the fix is applied to."""
    command: str
    """The AWS CLI command that applies it."""
    statement: NotRequired[dict[str, Any]]
    """The policy statement to add (identity, bucket or key policy)."""
    policy: NotRequired[dict[str, Any]]
    """A resource policy with the fix applied: the denying statements removed, the statement added."""
    removes: NotRequired[list[dict[str, Any]]]
    """Statements of that policy that deny the caller and no one else: an Allow cannot override them, so they go."""
    narrows: NotRequired[list[dict[str, Any]]]
    """Statements that deny the caller and others, as the fix leaves them: the caller excepted, the rest kept."""
    request: NotRequired[dict[str, Any]]
    """The API request that applies it (Lake Formation GrantPermissions)."""
    policy_name: NotRequired[str]
    """The identity policy `policy` replaces: an inline policy's name, or a customer managed policy's ARN."""
    holder: NotRequired[str]
    """What holds the identity policy fixed: the caller ("the role alice"), one of its groups ("group analysts"),
    or its permissions boundary ("the permissions boundary arn:..."): a Deny others share is narrowed, not removed."""
    note: NotRequired[str]
    """What the fix changes and for whom, in words."""
    widens: NotRequired[list[str]]
    """What else an identity policy's narrowed Deny no longer denies the caller, where a wildcard (`s3:*`, a wider
    resource pattern) leaves IAM's grammar no way to take out the one access alone."""
    account: NotRequired[str]
    """The account whose administrator applies it, where that is not the caller's: a bucket policy of another
    account's bucket is its owner's to change."""


class Link(TypedDict):
    check: str
    """What was checked, named by the IAM action AWS checks (`glue:GetTable`, `s3:GetObject`, ...)."""
    resource: str
    verdict: Verdict
    evidence: dict[str, Any]
    """The API answer (or the policy statements) that decided, or why nothing could."""
    governed_by: Governor
    """Who decides this link: IAM (identity and resource policies), or Lake Formation for a registered location
    (then the S3 and KMS links of the data are Lake Formation's role's business, not the caller's)."""
    refused_by: NotRequired[RefusedBy]
    """For `denied`: "server" where this server's own rule refuses (its cost guard), not AWS."""
    fix: NotRequired[list[Fix]]
    settle: NotRequired[str]
    """For `unknown`: what would settle it."""
    retryable: NotRequired[bool]
    """For `unknown`: true where AWS throttled the check (after botocore's standard retries) or was unavailable,
    so asking again later may settle it; never a verdict either way."""


def link(check: str, resource: str, verdict: Verdict, evidence: Mapping[str, Any], *,
         fix: Sequence[Fix] = (), settle: str | None = None, governed_by: Governor = "iam",
         refused_by: RefusedBy | None = None) -> Link:
    found = Link(check=check, resource=resource, verdict=verdict, evidence=dict(evidence), governed_by=governed_by)
    if refused_by and verdict == "denied":
        found["refused_by"] = refused_by
    if fix and verdict == "denied":
        found["fix"] = list(fix)
    if settle and verdict == "unknown":
        found["settle"] = settle
    error = found["evidence"].get("error")
    if verdict == "unknown" and isinstance(error, Mapping) and error.get("retryable"):
        found["retryable"] = True
    return found


def overall(links: Iterable[Link]) -> Verdict:
    """Denied if any link is, unknown if any is, else allowed: every link of a chain must hold."""
    verdicts = {entry["verdict"] for entry in links}
    return "denied" if "denied" in verdicts else "unknown" if "unknown" in verdicts else "allowed"


def answered(outcome: Outcome[Any, Any]) -> dict[str, Any]:
    """A call's outcome as evidence: its error where it failed."""
    if outcome.error is not None:
        return {"error": outcome.error.brief()}
    return {"answered": True}


def verdict_of(outcome: Outcome[Any, Any]) -> Verdict:
    """A direct probe's verdict: it ran, AWS refused it, or it could not be told (a timeout, an outage)."""
    if outcome.error is None:
        return "allowed"
    return "denied" if outcome.error.code is ErrorCode.ACCESS_DENIED else "unknown"


def unsettled(outcome: Outcome[Any, Any]) -> str:
    """What settles a probe that neither ran nor was refused."""
    failure: ResourceFailure | None = outcome.error
    return f"{failure.message if failure else 'no answer'}: read this explainer again" + (
        " later" if failure is not None and failure.retryable else "")


# --------------------------------------------------------------------------- the caller's principal

def principal_kind(principal: str) -> tuple[str, str]:
    """("user" | "role", name) of an IAM principal ARN."""
    kind, _, path = principal.split(":", 5)[5].partition("/")
    return kind, path.rsplit("/", 1)[-1]


def identity_fix(principal: str | None, actions: Sequence[str], resources: Sequence[str],
                 reach: Reach | None = None) -> Fix:
    """An identity-policy statement for the caller's user or role, with the CLI command that attaches it; for a
    role session whose trust pins it to the person (`reach`), its Condition names that session alone, and its
    note says whom it reaches."""
    statement: dict[str, Any] = {"Effect": "Allow", "Action": list(actions), "Resource": list(resources)}
    if reach is not None and reach.condition:
        statement["Condition"] = reach.condition
    if principal is None:
        return Fix(kind="identity_policy", apply_by="administrator", target="the caller's IAM identity",
                   statement=statement, command="Attach the statement to the caller's IAM role or user.")
    kind, name = principal_kind(principal)
    document = json.dumps({"Version": "2012-10-17", "Statement": [statement]}, separators=(",", ":"))
    policy_name = "aws-data-mcp-" + "-".join(a.split(":")[1] for a in actions)[:100].lower()
    command = (f"aws iam put-{kind}-policy --{kind}-name {shlex.quote(name)} --policy-name {policy_name} "
               f"--policy-document {shlex.quote(document)}")
    fix = Fix(kind="identity_policy", apply_by="administrator", target=principal, statement=statement,
              command=command)
    if reach is not None:
        fix["note"] = f"allows {', '.join(actions)} on {', '.join(resources)} to {reach.words}"
    return fix


# --------------------------------------------------------------------------- resource policies

def names_principal(principal: Any, identities: Sequence[str], account: str | None) -> bool:
    """Whether a statement's Principal covers the caller: `*`, its account, or one of its ARNs."""
    if principal == "*":
        return True
    named = listed(principal.get("AWS")) if isinstance(principal, Mapping) else []
    whole = {account, f"arn:aws:iam::{account}:root"} if account else set()
    return any(entry == "*" or entry in identities or entry in whole for entry in named)


def _covers(patterns: Any, value: str, *, case: bool) -> bool:
    named = [str(p) for p in listed(patterns)]
    return any(iam_like(p, value, case=case) for p in named)


def statements(policy: Mapping[str, Any] | None, effect: str, action: str, resource: str,
               identities: Sequence[str], account: str | None, *, identity: bool = False) -> list[dict[str, Any]]:
    """The statements of a resource policy with `effect` on `action` and `resource` for the caller: the evidence of
    what decides (a Condition is kept with its statement: whether it holds depends on the request). A Deny naming
    the caller's account binds the caller; an Allow naming it only delegates to the account's IAM policies.
    `identity`: the caller's own identity policy, whose statements name no Principal (they are the caller's)."""
    account = account if effect == "Deny" else None
    found = []
    for statement in listed((policy or {}).get("Statement")):
        if statement.get("Effect") != effect or "NotAction" in statement or "NotResource" in statement:
            continue
        if (_covers(statement.get("Action"), action, case=False) and _covers(statement.get("Resource"), resource,
                                                                             case=True)
                and (identity or names_principal(statement.get("Principal"), identities, account))):
            found.append(dict(statement))
    return found


def delegates(policy: Mapping[str, Any] | None, action: str, resource: str, account: str | None) -> bool:
    """Whether the policy lets the account's IAM policies grant `action` (a key policy's "Enable IAM policies")."""
    root = (f"arn:aws:iam::{account}:root", account or "")
    return bool(statements(policy, "Allow", action, resource, root, None))


def _transport_only(statement: Mapping[str, Any]) -> bool:
    """A Deny conditioned on aws:SecureTransport alone (TLS-only): it refuses no TLS request, the probes' and
    Athena's included, so it never refuses this access, and the fix keeps it."""
    keys = {key.lower() for c in (statement.get("Condition") or {}).values() if isinstance(c, Mapping) for key in c}
    return keys == {"aws:securetransport"}


def grant_sid(principal: str, actions: Sequence[str], resource: str) -> str:
    """The Sid of a fix's Allow: one per caller and access, so a fix printed for one caller never replaces the grant
    another's fix added (Sids are letters and digits, unique within a policy)."""
    digest = hashlib.sha256(json.dumps([principal, sorted(actions), resource]).encode()).hexdigest()[:12]
    return f"AwsDataMcpAccess{digest}"


def resource_policy_fix(kind: PolicyKind, target: str, policy: Mapping[str, Any] | None,
                        principal: str, actions: Sequence[str], resource: str, denying: Sequence[dict[str, Any]],
                        command: str, identities: Sequence[str] = (), reach: Reach | None = None,
                        whole: str | None = None) -> Fix:
    """A bucket- or key-policy fix that grants exactly the one access: each statement that denies the caller
    narrowed for that access only (`resource_narrowing`: everyone else it names stays denied all of it, the caller
    the rest of it; TLS-only is kept as is: it refuses no TLS request), an Allow for it added (for the one session,
    where `reach` can name it); the whole policy as it would be, and `command` (formatted with it) to put it.
    `whole`: all the policy speaks of, where it is neither a bucket's objects nor a key (an S3 table's ARN)."""
    statement: dict[str, Any] = {"Sid": grant_sid(principal, actions, resource), "Effect": "Allow",
                                 "Principal": {"AWS": principal}, "Action": list(actions), "Resource": resource}
    if reach is not None and reach.condition:
        statement["Condition"] = reach.condition
    who = [*identities, principal]
    whole = whole or ("*" if kind == "key_policy" else f"arn:aws:s3:::{target}/*")
    person = reach.person if reach is not None else None
    account = principal.split(":")[4] if principal.count(":") >= 5 else None
    removed, narrows, kept, stricter = [], [], [], []
    for entry in listed((policy or {}).get("Statement")):
        if entry.get("Sid") == statement["Sid"]:  # this very grant, printed before: replaced, never doubled
            continue
        if entry not in denying or _transport_only(entry):
            kept.append(entry)
            continue
        changed = [entry]
        for action in actions:  # each action taken out of the statements left that deny it
            found = [without_one(part, principal, who, action, resource, whole, person)
                     if statements({"Statement": [part]}, "Deny", action, resource, who, account) else ([part], [])
                     for part in changed]
            changed = [part for parts, _ in found for part in parts]
            stricter += [words for _, more in found for words in more]
        if changed:
            narrows += changed
            kept += changed
        else:
            removed.append(entry)
    fixed = {"Version": (policy or {}).get("Version", "2012-10-17"), "Statement": [*kept, statement]}
    fix = Fix(kind=kind, apply_by="administrator", target=target, statement=statement, policy=fixed,
              command=command.format(policy=shlex.quote(json.dumps(fixed, separators=(",", ":")))))
    access = f"{', '.join(actions)} on {resource}"
    words = [f"allows {access} to {reach.words if reach is not None else principal}"]
    if narrows:
        words.append(f"the {kind.replace('_', ' ')}'s Deny is narrowed for {access} only: everyone else it names "
                     "stays denied all it denied, and the caller the rest of it")
    if stricter:
        words.append(f"IAM's grammar cannot take that one access out exactly, so the caller is now also denied "
                     f"{'; '.join(stricter)}: widen it by hand if that must stay allowed")
    fix["note"] = "; ".join(words)
    if removed:
        fix["removes"] = removed
    if narrows:
        fix["narrows"] = narrows
    return fix


def parsed_policy(text: str | None) -> dict[str, Any] | None:
    return json.loads(text) if text else None
