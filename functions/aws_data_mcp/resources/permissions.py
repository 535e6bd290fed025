"""permissions://: what the caller may really do with each bucket, and what to grant where it falls short.

Access is established only by checks that cannot change data: the bucket's location,
a listing, the head of a listed object, and IAM's policy simulator for writes. A level
is never guessed: write access that the simulator cannot confirm is "unknown".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import urlparse

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.identity import Caller
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.athena import ItemError

Level = Literal["none", "list", "read", "write"]
Check = Literal["ok", "denied", "error", "not_checked"]
WriteCheck = Literal["allowed", "denied", "unavailable"]
LEVELS: tuple[Level, ...] = ("none", "list", "read", "write")
LIST_SAMPLE = 10
SIMULATION_CHUNK = 50
"""Bucket ARNs per SimulatePrincipalPolicy call."""


class Evidence(TypedDict):
    location: Check
    list: Check
    read: Check
    simulate_write: WriteCheck


class BucketAccess(TypedDict):
    bucket: str
    region: str | None
    level: Level
    write: Literal["allowed", "denied", "unknown"]
    evidence: Evidence
    errors: list[ItemError]
    note: NotRequired[str]


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


def _attempt(action: str, call: Callable[[], Any], errors: list[ItemError]) -> tuple[Check, Any]:
    try:
        return "ok", call()
    except (ClientError, BotoCoreError) as exc:
        failure = as_failure(exc, action)
        errors.append(failure.brief())  # type: ignore[arg-type]
        return _check(failure), None


def _check_bucket(request: ResourceRequest, bucket: str) -> BucketAccess:
    """Location, then a listing in the bucket's own region, then the head of one listed object."""
    errors: list[ItemError] = []
    evidence = Evidence(location="not_checked", list="not_checked", read="not_checked", simulate_write="unavailable")
    s3 = request.client("s3")
    evidence["location"], located = _attempt("s3:GetBucketLocation",
                                             lambda: s3.get_bucket_location(Bucket=bucket), errors)
    region = _region(located.get("LocationConstraint")) if located is not None else None
    regional = request.client("s3", region=region) if region else s3
    evidence["list"], listing = _attempt("s3:ListBucket",
                                         lambda: regional.list_objects_v2(Bucket=bucket, MaxKeys=LIST_SAMPLE), errors)
    keys = [o["Key"] for o in (listing or {}).get("Contents", []) if not o["Key"].endswith("/")]
    note = None
    if keys:
        evidence["read"], _ = _attempt("s3:GetObject", lambda: regional.head_object(Bucket=bucket, Key=keys[0]),
                                       errors)
    elif listing is not None:
        note = "no object to read: read access is not established"
    level: Level = "read" if evidence["read"] == "ok" else "list" if evidence["list"] == "ok" else "none"
    access = BucketAccess(bucket=bucket, region=region, level=level, write="unknown", evidence=evidence,
                          errors=errors)
    if note:
        access["note"] = note
    return access


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


def _simulate_writes(iam: Any, principal: str, buckets: Sequence[str]) -> dict[str, str]:
    """s3:PutObject decisions per bucket ("allowed", "explicitDeny", "implicitDeny"), all result pages."""
    try:
        pages = list(iam.get_paginator("simulate_principal_policy").paginate(
            PolicySourceArn=principal, ActionNames=["s3:PutObject"],
            ResourceArns=[f"arn:aws:s3:::{b}/*" for b in buckets]))
    except (ClientError, BotoCoreError) as exc:
        raise as_failure(exc, "iam:SimulatePrincipalPolicy") from exc
    decisions: dict[str, str] = {}
    for result in (r for page in pages for r in page.get("EvaluationResults", [])):
        name = str(result.get("EvalResourceName") or "")
        decisions[name.removeprefix("arn:aws:s3:::").removesuffix("/*")] = result["EvalDecision"]
    return decisions


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[start:start + size]) for start in range(0, len(items), size)]


@registry.resource(
    "permissions://discover",
    name="permissions-discover",
    title="What the caller may do with each bucket",
    description="The caller's identity and, for every bucket it can see, an access level (none/list/read/write) "
    "established by checks that never modify data, with the evidence of each check and each bucket's own "
    "errors; write is 'unknown' where the policy simulator cannot confirm it.",
    requires="auth",
    aws_calls=["s3:ListAllMyBuckets", "s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject",
               "iam:SimulatePrincipalPolicy"],
    list_field="buckets",
)
def discover(request: ResourceRequest) -> Discovery:
    """ListBuckets, then one fan-out: every bucket's checks (location -> list -> head) and the write
    simulations (50 buckets a call) side by side, so the slowest chain, not the sum, sets the time."""
    caller = request.caller
    names = [b["Name"] for page in request.client("s3").get_paginator("list_buckets").paginate()
             for b in page.get("Buckets", [])]
    principal = simulation_principal(caller)
    jobs: list[Callable[[], Any]] = [partial(_check_bucket, request, name) for name in names]
    chunks = _chunks(names, SIMULATION_CHUNK) if principal else []
    iam = request.client("iam") if principal else None
    jobs += [partial(_simulate_writes, iam, principal, chunk) for chunk in chunks]
    outcomes = request.fan_out(lambda job: job(), jobs, action="s3:ListBucket")
    checked, simulated = outcomes[:len(names)], outcomes[len(names):]
    decisions = {bucket: d for o in simulated if o.ok for bucket, d in (o.value or {}).items()}
    simulation_failure = next((o.error for o in simulated if o.error is not None), None)
    entries: list[BucketAccess] = []
    for name, outcome in zip(names, checked, strict=True):
        if outcome.error is not None:  # the whole chain timed out or broke
            entries.append(BucketAccess(bucket=name, region=None, level="none", write="unknown",
                                        evidence=Evidence(location="error", list="not_checked", read="not_checked",
                                                          simulate_write="unavailable"),
                                        errors=[outcome.error.brief()]))  # type: ignore[list-item]
            continue
        entry = outcome.value
        decision = decisions.get(name)
        if decision is not None:
            allowed = decision == "allowed"
            entry["write"] = "allowed" if allowed else "denied"
            entry["evidence"]["simulate_write"] = "allowed" if allowed else "denied"
            if allowed:
                entry["level"] = "write"
        entries.append(entry)
    if not principal:
        simulation = f"unavailable: {caller.principal_arn} cannot be simulated (only IAM users and roles can)"
    elif simulation_failure is not None:
        simulation = f"unavailable: {simulation_failure.message}"
    else:
        simulation = f"iam:SimulatePrincipalPolicy as {principal}"
    levels = {level: sum(e["level"] == level for e in entries) for level in LEVELS}
    return Discovery(principal_arn=caller.principal_arn, account=caller.account, simulation=simulation,
                     levels=levels, buckets=entries)


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


def _recommend(severity: Severity, finding: str, action: str, arn: str) -> Recommendation:
    return Recommendation(severity=severity, finding=finding, missing_action=action, resource_arn=arn,
                          fix=f"Allow {action} on {arn} in a policy attached to the caller's IAM identity.")


def _s3_location(uri: str) -> tuple[str, str]:
    parsed = urlparse(uri)
    return parsed.netloc, parsed.path.lstrip("/")


def _workgroup_findings(workgroups: Sequence[Mapping[str, Any]], access: Mapping[str, BucketAccess],
                        region: str, account: str) -> list[Recommendation]:
    found: list[Recommendation] = []
    for workgroup in workgroups:
        name = workgroup["name"]
        if workgroup["access"] == "denied":
            found.append(_recommend("medium", f"Workgroup {name} can be listed but not described",
                                    "athena:GetWorkGroup", f"arn:aws:athena:{region}:{account}:workgroup/{name}"))
            continue
        location = workgroup.get("result_location")
        if not location:
            continue
        bucket, prefix = _s3_location(location)
        seen = access.get(bucket)
        results_arn = f"arn:aws:s3:::{bucket}/{prefix}*"
        if seen is None or seen["evidence"]["list"] != "ok":
            found.append(_recommend("high", f"Workgroup {name} writes results to s3://{bucket}/, which the caller "
                                    "cannot list", "s3:ListBucket", f"arn:aws:s3:::{bucket}"))
        if seen is None or seen["write"] == "denied":
            found.append(_recommend("high", f"Workgroup {name}'s result location {location} is not writable by the "
                                    "caller: its queries would fail", "s3:PutObject", results_arn))
        elif seen["write"] == "unknown":
            found.append(_recommend("info", f"Could not confirm that the caller may write query results to {location} "
                                    "(the policy simulator was unavailable)", "s3:PutObject", results_arn))
    return found


def _table_findings(table_buckets: Sequence[Mapping[str, Any]],
                    access: Mapping[str, BucketAccess]) -> list[Recommendation]:
    found: list[Recommendation] = []
    for entry in table_buckets:
        bucket = entry["bucket"]
        seen = access.get(bucket)
        if seen is not None and seen["level"] in ("read", "write"):
            continue
        tables = [f"{d['database']}.{t}" for d in entry["databases"] for t in d["tables"]]
        shown = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
        found.append(_recommend("high", f"Tables {shown} are stored in s3://{bucket}/, which the caller cannot read: "
                                "queries on them would fail", "s3:GetObject", f"arn:aws:s3:::{bucket}/*"))
    return found


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
    """Built from other resources' (cached) results: discover, athena://workgroups and tabulator://buckets."""
    discovery = request.read_related("permissions://discover")
    access = {b["bucket"]: b for b in discovery["buckets"]}
    account = request.caller.account or "*"
    found: list[Recommendation] = []
    try:
        found += _workgroup_findings(request.read_related("athena://workgroups")["workgroups"], access,
                                     request.caller.region, account)
    except ResourceFailure as failure:
        found.append(_recommend("medium", f"Athena workgroups could not be read: {failure.message}",
                                failure.action or "athena:ListWorkGroups", f"arn:aws:athena:*:{account}:workgroup/*"))
    try:
        found += _table_findings(request.read_related("tabulator://buckets")["buckets"], access)
    except ResourceFailure as failure:
        found.append(_recommend("medium", f"Glue tables could not be read: {failure.message}",
                                failure.action or "glue:GetDatabases", f"arn:aws:glue:*:{account}:catalog"))
    found += [_recommend("medium", f"The location of bucket {b['bucket']} could not be read, so its region is "
                         "unknown", "s3:GetBucketLocation", f"arn:aws:s3:::{b['bucket']}")
              for b in discovery["buckets"] if b["evidence"]["location"] == "denied"]
    order = {"high": 0, "medium": 1, "info": 2}
    found.sort(key=lambda r: (order[r["severity"]], r["resource_arn"]))
    return Recommendations(principal_arn=request.caller.principal_arn, count=len(found), recommendations=found)
