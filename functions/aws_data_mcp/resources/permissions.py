"""permissions://: what the caller may really do with each bucket, and what to grant where it falls short.

Access is established only by checks that cannot change data: the bucket's location,
a listing, the head of a listed object, and IAM's policy simulator for writes, weighing
the bucket's own policy where the caller may read it. A level is never guessed: write
access that the simulator cannot settle is "unknown", with the reason beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import urlparse

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.fanout import Call, Outcome
from aws_data_mcp.identity import Caller
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena import ItemError

Level = Literal["none", "list", "read", "write"]
Check = Literal["ok", "denied", "error", "not_checked"]
PolicyCheck = Literal["ok", "none", "denied", "error", "not_checked"]
"""GetBucketPolicy: read, the bucket has none, refused, failed, or not asked (the simulator is unavailable, or
the caller's own policies already deny)."""
Decision = Literal["allowed", "explicit_deny", "implicit_deny", "unavailable"]
Write = Literal["allowed", "denied", "unknown"]
LEVELS: tuple[Level, ...] = ("none", "list", "read", "write")
LIST_SAMPLE = 10
SIMULATION_CHUNK = 50
"""Bucket ARNs per identity-only SimulatePrincipalPolicy call (a bucket policy is one per call)."""
LIST_BUCKETS_PAGE = 1000
"""ListBuckets pages: AWS answers an unpaginated ListBuckets only for accounts at the default bucket quota."""
_DECISIONS: dict[str, Decision] = {"allowed": "allowed", "explicitDeny": "explicit_deny",
                                   "implicitDeny": "implicit_deny"}


class Evidence(TypedDict):
    location: Check
    list: Check
    read: Check
    bucket_policy: PolicyCheck
    simulate_write: Decision
    """IAM's simulator on s3:PutObject to the bucket's objects ("unavailable" when it could not be asked)."""
    simulated_with_bucket_policy: bool
    """Whether that simulation weighed the bucket policy, or the caller's identity policies only."""


class BucketAccess(TypedDict):
    bucket: str
    region: str | None
    level: Level
    write: Write
    evidence: Evidence
    errors: list[ItemError]
    note: NotRequired[str]
    """Why read access is not established though the bucket could be listed."""
    write_note: NotRequired[str]
    """What the write verdict could not weigh, and so why it is "unknown" (or "allowed" on identity policies only)."""


class Discovery(TypedDict):
    principal_arn: str | None
    account: str | None
    simulation: str
    """Whether write checks could use IAM's policy simulator, and for which principal."""
    levels: dict[str, int]
    buckets: list[BucketAccess]


def _check(failure: ResourceFailure) -> Check:
    return "denied" if failure.code is ErrorCode.ACCESS_DENIED else "error"


def _region(location: str | None) -> str:
    """GetBucketLocation's answer as a region: us-east-1 answers nothing, old eu-west-1 buckets answer "EU"."""
    return {None: "us-east-1", "": "us-east-1", "EU": "eu-west-1"}.get(location, location)  # type: ignore[arg-type]


def _attempt(action: str, call: Callable[[], Any], errors: list[ItemError],
             absent: str | None = None) -> tuple[str, Any]:
    """("ok", the answer), ("none", None) when AWS answers the `absent` error code (a bucket with no policy), or
    the failure's check with the failure kept in `errors`."""
    try:
        return "ok", call()
    except ClientError as exc:
        if absent is not None and exc.response.get("Error", {}).get("Code") == absent:
            return "none", None
        failure = as_failure(exc, action)
    except BotoCoreError as exc:
        failure = as_failure(exc, action)
    errors.append(failure.brief())  # type: ignore[arg-type]
    return _check(failure), None


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


def _objects(bucket: str) -> str:
    return f"arn:aws:s3:::{bucket}/*"


def _simulate_writes(iam: Any, principal: str, buckets: Sequence[str]) -> dict[str, str]:
    """s3:PutObject decisions per bucket from the caller's identity policies only ("allowed", "explicitDeny",
    "implicitDeny"), all result pages."""
    try:
        pages = list(iam.get_paginator("simulate_principal_policy").paginate(
            PolicySourceArn=principal, ActionNames=["s3:PutObject"], ResourceArns=[_objects(b) for b in buckets]))
    except (ClientError, BotoCoreError) as exc:
        raise as_failure(exc, "iam:SimulatePrincipalPolicy") from exc
    decisions: dict[str, str] = {}
    for result in (r for page in pages for r in page.get("EvaluationResults", [])):
        name = str(result.get("EvalResourceName") or "")
        decisions[name.removeprefix("arn:aws:s3:::").removesuffix("/*")] = result["EvalDecision"]
    return decisions


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[start:start + size]) for start in range(0, len(items), size)]


@dataclass(frozen=True)
class _Found:
    """What one chain of checks established about a bucket: the evidence it settled, and its own errors.

    Each chain returns its own (none mutates shared state), so a chain still running when the deadline came
    cannot change an answer already assembled.
    """

    checks: Mapping[str, str]
    errors: list[ItemError] = field(default_factory=list)
    region: str | None = None
    note: str | None = None
    with_policy: str | None = None
    """The simulator's decision with the bucket policy weighed, when it could be."""


_BROKEN: dict[str, dict[str, str]] = {"s3:GetBucketLocation": {"location": "error"}, "s3:ListBucket": {"list": "error"},
                                      "s3:GetBucketPolicy": {"bucket_policy": "error"}}
"""What a chain that timed out or broke as a whole leaves unsettled, by the action that starts it."""


def _found(outcome: Outcome[Call[_Found], _Found]) -> _Found:
    if outcome.error is None:
        return outcome.value  # type: ignore[return-value]
    return _Found(_BROKEN[outcome.item.action], [outcome.error.brief()])  # type: ignore[list-item]


def _locate(request: ResourceRequest, bucket: str) -> _Found:
    errors: list[ItemError] = []
    check, located = _attempt("s3:GetBucketLocation", lambda: request.client("s3").get_bucket_location(Bucket=bucket),
                              errors)
    region = _region(located.get("LocationConstraint")) if located is not None else None
    return _Found({"location": check}, errors, region=region)


def _check_reads(request: ResourceRequest, bucket: str, region: str | None) -> _Found:
    """A listing in the bucket's own region, then the head of one listed object."""
    errors: list[ItemError] = []
    s3 = request.client("s3", region=region)
    listed, listing = _attempt("s3:ListBucket", lambda: s3.list_objects_v2(Bucket=bucket, MaxKeys=LIST_SAMPLE), errors)
    keys = [o["Key"] for o in (listing or {}).get("Contents", []) if not o["Key"].endswith("/")]
    if not keys:
        note = "no object to read: read access is not established" if listing is not None else None
        return _Found({"list": listed}, errors, note=note)
    read, _ = _attempt("s3:GetObject", lambda: s3.head_object(Bucket=bucket, Key=keys[0]), errors)
    return _Found({"list": listed, "read": read}, errors)


def _check_policy(request: ResourceRequest, principal: str, bucket: str, region: str | None) -> _Found:
    """The bucket policy, and (for an IAM user) the simulator's write decision with it weighed.

    IAM's simulator weighs a resource policy only for an IAM user (its CallerArn cannot be a role), so for a
    role the policy is read only to learn whether there is one.
    """
    errors: list[ItemError] = []
    check, found = _attempt("s3:GetBucketPolicy", lambda: request.client("s3", region=region).get_bucket_policy(
        Bucket=bucket), errors, absent="NoSuchBucketPolicy")
    if found is None or ":user/" not in principal:
        return _Found({"bucket_policy": check}, errors)
    _, simulated = _attempt("iam:SimulatePrincipalPolicy", lambda: request.client("iam").simulate_principal_policy(
        PolicySourceArn=principal, ActionNames=["s3:PutObject"], ResourceArns=[_objects(bucket)],
        ResourcePolicy=found["Policy"]), errors)
    results = (simulated or {}).get("EvaluationResults") or []
    return _Found({"bucket_policy": check}, errors, with_policy=results[0]["EvalDecision"] if results else None)


def _unweighed(policy: str, errors: Sequence[ItemError]) -> str:
    """Why the bucket policy is not in the write verdict."""
    if policy == "denied":
        return "its bucket policy could not be read (s3:GetBucketPolicy denied)"
    if policy != "ok":
        return "its bucket policy could not be read"
    if any(e.get("action") == "iam:SimulatePrincipalPolicy" for e in errors):
        return "the simulation weighing its bucket policy failed"
    return "IAM's simulator weighs a bucket policy only for an IAM user, and the caller is a role"


def _write(identity: str | None, policy: str, with_policy: str | None,
           errors: Sequence[ItemError]) -> tuple[Write, str | None]:
    """The write verdict and what it could not weigh. Denied only on an explicit deny, or a deny with the bucket
    policy weighed (or known absent): a bucket policy can grant what identity policies do not."""
    if identity is None:
        return "unknown", None  # the simulator was unavailable: Discovery.simulation says why
    if identity == "explicitDeny":
        return "denied", None
    decided = with_policy or (identity if policy == "none" else None)
    if decided is not None:
        return ("allowed" if decided == "allowed" else "denied"), None
    if identity == "allowed":
        return "allowed", (f"Identity policies allow s3:PutObject, but {_unweighed(policy, errors)}: a Deny there "
                           "is not seen.")
    return "unknown", f"Identity policies do not allow s3:PutObject and {_unweighed(policy, errors)}: it may grant it."


def _access(bucket: str, found: Sequence[_Found], identity: str | None) -> BucketAccess:
    """One bucket's entry from what its chains found and the identity-only simulation's decision."""
    checks: dict[str, str] = {"location": "not_checked", "list": "not_checked", "read": "not_checked",
                              "bucket_policy": "not_checked"}
    for part in found:
        checks |= part.checks
    errors = [error for part in found for error in part.errors]
    with_policy = next((part.with_policy for part in found if part.with_policy), None)
    write, write_note = _write(identity, checks["bucket_policy"], with_policy, errors)
    evidence = Evidence(location=checks["location"], list=checks["list"], read=checks["read"],  # type: ignore[typeddict-item]
                        bucket_policy=checks["bucket_policy"],  # type: ignore[typeddict-item]
                        simulate_write=_DECISIONS.get(with_policy or identity or "", "unavailable"),
                        simulated_with_bucket_policy=with_policy is not None)
    level: Level = ("write" if write == "allowed" else "read" if checks["read"] == "ok"
                    else "list" if checks["list"] == "ok" else "none")
    access = BucketAccess(bucket=bucket, region=next((part.region for part in found if part.region), None),
                          level=level, write=write, evidence=evidence, errors=errors)
    note = next((part.note for part in found if part.note), None)
    if note:
        access["note"] = note
    if write_note:
        access["write_note"] = write_note
    return access


@registry.resource(
    "permissions://discover",
    name="permissions-discover",
    title="What the caller may do with each bucket",
    description="The caller's identity and, for every bucket it can see, an access level (none/list/read/write) "
    "established by checks that never modify data, with the evidence of each check and each bucket's own "
    "errors; write is 'unknown' where the policy simulator cannot confirm it.",
    requires="auth",
    aws_calls=["s3:ListAllMyBuckets", "s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject",
               "s3:GetBucketPolicy", "iam:SimulatePrincipalPolicy"],
    list_field="buckets",
)
def discover(request: ResourceRequest) -> Discovery:
    """ListBuckets; then every bucket's location beside the identity-only write simulations (50 buckets a call);
    then, in each bucket's region, its listing -> object head beside its policy -> simulation with it. Two
    fan-outs, so the slowest chain, not the sum of calls, sets the time."""
    caller = request.caller
    names = [b["Name"] for page in request.client("s3").get_paginator("list_buckets").paginate(
        PaginationConfig={"PageSize": LIST_BUCKETS_PAGE}) for b in page.get("Buckets", [])]
    principal = simulation_principal(caller)
    first: list[Call[Any]] = [Call("s3:GetBucketLocation", partial(_locate, request, name)) for name in names]
    first += [Call("iam:SimulatePrincipalPolicy", partial(_simulate_writes, request.client("iam"), principal, chunk))
              for chunk in (_chunks(names, SIMULATION_CHUNK) if principal else [])]
    outcomes = request.fan_out(Call.run, first, action=Call.action_of)
    located, simulated = [_found(o) for o in outcomes[:len(names)]], outcomes[len(names):]
    identity = {name: decision for o in simulated if o.ok for name, decision in (o.value or {}).items()}
    weigh = [i for i, name in enumerate(names) if principal and identity.get(name) not in (None, "explicitDeny")]
    second = [Call("s3:ListBucket", partial(_check_reads, request, name, found.region))
              for name, found in zip(names, located, strict=True)]
    second += [Call("s3:GetBucketPolicy", partial(_check_policy, request, principal, names[i], located[i].region))
               for i in weigh]
    checked = [_found(o) for o in request.fan_out(Call.run, second, action=Call.action_of)]
    policies = dict(zip(weigh, checked[len(names):], strict=True))
    entries = [_access(name, [located[i], checked[i], *([policies[i]] if i in policies else [])], identity.get(name))
               for i, name in enumerate(names)]
    levels = {level: sum(e["level"] == level for e in entries) for level in LEVELS}
    return Discovery(principal_arn=caller.principal_arn, account=caller.account,
                     simulation=_simulation(caller, principal, simulated), levels=levels, buckets=entries)


def _simulation(caller: Caller, principal: str | None, simulated: Sequence[Outcome[Any, Any]]) -> str:
    """Whether the write checks could ask IAM's simulator, and as whom."""
    failure = next((o.error for o in simulated if o.error is not None), None)
    if not principal:
        return f"unavailable: {caller.principal_arn} cannot be simulated (only IAM users and roles can)"
    if failure is not None:
        return f"unavailable: {failure.message}"
    return f"iam:SimulatePrincipalPolicy as {principal}"


# --------------------------------------------------------------------------- recommendations

Severity = Literal["high", "medium", "info"]


class Recommendation(TypedDict):
    severity: Severity
    finding: str
    missing_action: str
    resource_arn: str
    fix: str


class Recommendations(TypedDict):
    principal_arn: str | None
    count: int
    recommendations: list[Recommendation]


def _recommend(severity: Severity, finding: str, action: str, arn: str, fix: str | None = None) -> Recommendation:
    return Recommendation(severity=severity, finding=finding, missing_action=action, resource_arn=arn,
                          fix=fix or f"Allow {action} on {arn} in a policy attached to the caller's IAM identity.")


def _unchecked(bucket: str, action: str, arn: str, what: str) -> Recommendation:
    """A bucket discover did not see: listing covers the caller's own account's buckets only, so it is most often
    another account's. Nothing is known of it, so nothing is claimed."""
    return _recommend("info", f"{what} s3://{bucket}/, which is not among the buckets of the caller's account "
                      "(another account's?): the caller's access to it could not be checked", action, arn,
                      fix=f"If queries fail there, allow {action} on {arn} in the caller's identity policy and ask "
                      "the bucket's owner to grant it in the bucket policy (both are needed across accounts).")


def _s3_location(uri: str) -> tuple[str, str]:
    parsed = urlparse(uri)
    return parsed.netloc, parsed.path.lstrip("/")


def _result_location_findings(name: str, location: str, seen: BucketAccess | None) -> list[Recommendation]:
    """What stops a workgroup's queries from writing their results: Athena lists and writes its result location."""
    bucket, prefix = _s3_location(location)
    results_arn = f"arn:aws:s3:::{bucket}/{prefix}*"
    if seen is None:
        return [_unchecked(bucket, "s3:PutObject", results_arn, f"Workgroup {name} writes query results to")]
    found: list[Recommendation] = []
    if seen["evidence"]["list"] == "denied":
        found.append(_recommend("high", f"Workgroup {name} writes results to s3://{bucket}/, which the caller "
                                "cannot list", "s3:ListBucket", f"arn:aws:s3:::{bucket}"))
    if seen["write"] == "denied":
        found.append(_recommend("high", f"Workgroup {name}'s result location {location} is not writable by the "
                                "caller: its queries would fail", "s3:PutObject", results_arn))
    elif seen["write"] == "unknown":
        why = seen.get("write_note") or "the policy simulator was unavailable"
        found.append(_recommend("info", f"Could not confirm that the caller may write query results to {location}: "
                                f"{why}", "s3:PutObject", results_arn))
    return found


def _workgroup_findings(workgroups: Sequence[Mapping[str, Any]], access: Mapping[str, BucketAccess],
                        region: str, account: str) -> list[Recommendation]:
    found: list[Recommendation] = []
    for workgroup in workgroups:
        name = workgroup["name"]
        if workgroup["access"] == "denied":
            found.append(_recommend("medium", f"Workgroup {name} can be listed but not described",
                                    "athena:GetWorkGroup", f"arn:aws:athena:{region}:{account}:workgroup/{name}"))
        elif workgroup.get("result_location"):
            location = workgroup["result_location"]
            found += _result_location_findings(name, location, access.get(_s3_location(location)[0]))
    return found


def _tables_finding(bucket: str, tables: str, seen: BucketAccess | None) -> Recommendation | None:
    """Athena lists a table's location and reads its objects: what the checks say of that, claiming no more."""
    objects, whole = f"arn:aws:s3:::{bucket}/*", f"arn:aws:s3:::{bucket}"
    if seen is None:
        return _unchecked(bucket, "s3:GetObject", objects, f"Tables {tables} are stored in")
    evidence = seen["evidence"]
    if evidence["read"] == "ok" or seen["level"] == "write":
        return None
    if evidence["read"] == "denied":
        return _recommend("high", f"Tables {tables} are stored in s3://{bucket}/, whose objects the caller cannot "
                          "read: queries on them would fail", "s3:GetObject", objects)
    if evidence["list"] == "denied":
        return _recommend("high", f"Tables {tables} are stored in s3://{bucket}/, which the caller cannot list: "
                          "queries on them would fail", "s3:ListBucket", whole)
    if evidence["list"] == "ok":
        return _recommend("info", f"Tables {tables} are stored in s3://{bucket}/, where the caller's listing found "
                          "no object (an empty bucket?): read access is unverified", "s3:GetObject", objects,
                          fix=f"Nothing to do if the tables are empty; otherwise check s3:GetObject on {objects}.")
    why = next((e["message"] for e in seen["errors"]), "its checks did not finish")
    return _recommend("info", f"Tables {tables} are stored in s3://{bucket}/, whose access could not be checked: "
                      f"{why}", "s3:GetObject", objects, fix="Read permissions://discover again later.")


def _table_findings(table_buckets: Sequence[Mapping[str, Any]],
                    access: Mapping[str, BucketAccess]) -> list[Recommendation]:
    found: list[Recommendation] = []
    for entry in table_buckets:
        names = [f"{d['database']}.{t}" for d in entry["databases"] for t in d["tables"]]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        finding = _tables_finding(entry["bucket"], shown, access.get(entry["bucket"]))
        if finding is not None:
            found.append(finding)
    return found


RELATED = {"permissions://discover": "s3:ListAllMyBuckets", "athena://workgroups": "athena:ListWorkGroups",
           "tabulator://buckets": "glue:GetDatabases"}
"""What recommendations are derived from, each with the action its whole read fails on."""


def _unread(what: str, failure: ResourceFailure, uri: str, arn: str) -> Recommendation:
    """A source that could not be read at all: what it would have shown is unknown, and why is the finding."""
    return _recommend("medium", f"{what} could not be read: {failure.message}", failure.action or RELATED[uri], arn)


@registry.resource(
    "permissions://recommendations",
    name="permissions-recommendations",
    title="Permission recommendations",
    description="Concrete advice from permissions://discover and the Athena set-up: result locations the caller "
    "cannot write, workgroups it cannot describe, buckets behind tables it cannot read; each names the missing "
    "IAM action and the resource ARN.",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:GetWorkGroup", "glue:GetDatabases", "glue:GetTables"],
    list_field="recommendations",
)
def recommendations(request: ResourceRequest) -> Recommendations:
    """Built from other resources' results: discover, athena://workgroups and tabulator://buckets, read side by
    side (each from the cache when it is warm). Only discover failing fails the read: the others' failures
    become recommendations."""
    discovery, workgroups, table_buckets = request.fan_out(request.read_related, list(RELATED),
                                                           action=RELATED.__getitem__)
    if discovery.error is not None:
        raise discovery.error
    access = {b["bucket"]: b for b in discovery.value["buckets"]}  # type: ignore[index]
    account = request.caller.account or "*"
    found: list[Recommendation] = []
    if workgroups.error is None:
        found += _workgroup_findings(workgroups.value["workgroups"], access,  # type: ignore[index]
                                     request.caller.region, account)
    else:
        found.append(_unread("Athena workgroups", workgroups.error, workgroups.item,
                             f"arn:aws:athena:*:{account}:workgroup/*"))
    if table_buckets.error is None:
        found += _table_findings(table_buckets.value["buckets"], access)  # type: ignore[index]
    else:
        found.append(_unread("Glue tables", table_buckets.error, table_buckets.item,
                             f"arn:aws:glue:*:{account}:catalog"))
    found += [_recommend("medium", f"The location of bucket {b['bucket']} could not be read, so its region is "
                         "unknown", "s3:GetBucketLocation", f"arn:aws:s3:::{b['bucket']}")
              for b in access.values() if b["evidence"]["location"] == "denied"]
    order = {"high": 0, "medium": 1, "info": 2}
    found.sort(key=lambda r: (order[r["severity"]], r["resource_arn"]))
    return Recommendations(principal_arn=request.caller.principal_arn, count=len(found), recommendations=found)
