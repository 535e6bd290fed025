"""permissions://discover: what the caller may really do with each bucket.

Access is established only by checks that cannot change data: the bucket's location,
a listing, the head of a listed object, and IAM's policy simulator for writes, weighing
the bucket's own policy where the caller may read it. A level is never guessed: write
access that the simulator cannot settle is "unknown", with the reason beside it.

A check is asked once: a bucket's region comes from the listing where S3 names it there (a listing asked in pages
names each bucket's region), and GetBucketLocation is asked only for the others; each entry says which call
answered it (`region_from`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.identity_policies import simulation_principal
from aws_data_mcp.explainer.registrations import locations_in, registered_locations
from aws_data_mcp.explainer.uris import bucket_uri
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.reading.resolving import ItemError, attempt, chunks, side_by_side
from aws_data_mcp.registry import ResourceRequest, registry

Level = Literal["none", "list", "read", "write"]
RegionSource = Literal["s3:ListBuckets", "s3:GetBucketLocation"]
Check = Literal["ok", "denied", "error", "not_checked"]
PolicyCheck = Literal["ok", "none", "denied", "error", "not_checked"]
"""GetBucketPolicy: read, the bucket has none, refused, failed, or not asked (the simulator is unavailable, or
the caller's own policies already deny)."""
Decision = Literal["allowed", "explicit_deny", "implicit_deny", "unavailable"]
Write = Literal["allowed", "denied", "unknown"]
Governor = Literal["iam", "lake_formation", "unknown"]
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
    region_from: NotRequired[RegionSource]
    """The call whose answer gave `region`: ListBuckets' own entry for the bucket (GetBucketLocation is then not
    asked, and `evidence.location` reports that answer), else GetBucketLocation."""
    level: Level
    write: Write
    evidence: Evidence
    errors: list[ItemError]
    note: NotRequired[str]
    """Why read access is not established though the bucket could be listed."""
    write_note: NotRequired[str]
    """What the write verdict could not weigh, and so why it is "unknown" (or "allowed" on identity policies only)."""
    decided_by: Governor
    """Who decides reads of the bucket's data: Lake Formation where a location in it is registered (then the levels
    above, IAM's, are not what a query gets), IAM where none is, unknown where registrations could not be read."""
    lake_formation_locations: list[str]
    explain: str
    """permissions://buckets/{bucket}: every link of the caller's access to it, with the fix for each refusal."""


class Discovery(TypedDict):
    principal_arn: str | None
    account: str | None
    simulation: str
    """Whether write checks could use IAM's policy simulator, and for which principal."""
    levels: dict[str, int]
    lake_formation: str
    """Whether Lake Formation's registered locations could be read (lakeformation:ListResources), or its error."""
    buckets: list[BucketAccess]


def _check(failure: ResourceFailure) -> Check:
    return "denied" if failure.code is ErrorCode.ACCESS_DENIED else "error"


def _region(location: str | None) -> str:
    """GetBucketLocation's answer as a region: us-east-1 answers nothing, old eu-west-1 buckets answer "EU"."""
    return {None: "us-east-1", "": "us-east-1", "EU": "eu-west-1"}.get(location, location)  # type: ignore[arg-type]


def _checked(outcome: Outcome[Any, Any], errors: list[ItemError]) -> tuple[Check, Any]:
    """("ok", a call's answer), or its failure's check with the failure kept in `errors`."""
    if outcome.error is None:
        return "ok", outcome.value
    errors.append(outcome.error.brief())  # type: ignore[arg-type]
    return _check(outcome.error), None



def _objects(bucket: str) -> str:
    return f"arn:aws:s3:::{bucket}/*"


def _simulate_writes(iam: Any, principal: str, buckets: Sequence[str]) -> dict[str, str]:
    """s3:PutObject decisions per bucket from the caller's identity policies only ("allowed", "explicitDeny",
    "implicitDeny"), all result pages."""
    pages = iam.get_paginator("simulate_principal_policy").paginate(
        PolicySourceArn=principal, ActionNames=["s3:PutObject"], ResourceArns=[_objects(b) for b in buckets])
    decisions: dict[str, str] = {}
    for result in (r for page in pages for r in page.get("EvaluationResults", [])):
        name = str(result.get("EvalResourceName") or "")
        decisions[name.removeprefix("arn:aws:s3:::").removesuffix("/*")] = result["EvalDecision"]
    return decisions


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
    region_from: RegionSource | None = None
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
    check, located = _checked(attempt("s3:GetBucketLocation", partial(request.client("s3").get_bucket_location,
                                                                      Bucket=bucket)), errors)
    if located is None:
        return _Found({"location": check}, errors)
    return _Found({"location": check}, errors, region=_region(located.get("LocationConstraint")),
                  region_from="s3:GetBucketLocation")


def _check_reads(request: ResourceRequest, bucket: str, region: str | None) -> Chain[_Found]:
    """A listing in the bucket's own region, then the head of one listed object."""
    errors: list[ItemError] = []
    s3 = request.client("s3", region=region)
    listed, listing = _checked((yield Call("s3:ListBucket", partial(s3.list_objects_v2, Bucket=bucket,
                                                                    MaxKeys=LIST_SAMPLE))), errors)
    keys = [o["Key"] for o in (listing or {}).get("Contents", []) if not o["Key"].endswith("/")]
    if not keys:
        note = "no object to read: read access is not established" if listing is not None else None
        return _Found({"list": listed}, errors, note=note)
    read, _ = _checked((yield Call("s3:GetObject", partial(s3.head_object, Bucket=bucket, Key=keys[0]))), errors)
    return _Found({"list": listed, "read": read}, errors)


def _bucket_policy(s3: Any, bucket: str) -> str | None:
    """The bucket's policy document; None for a bucket that has none (AWS answers that with an error)."""
    try:
        return s3.get_bucket_policy(Bucket=bucket)["Policy"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "NoSuchBucketPolicy":
            raise
        return None


def _check_policy(request: ResourceRequest, principal: str, bucket: str, region: str | None) -> Chain[_Found]:
    """The bucket policy, and (for an IAM user) the simulator's write decision with it weighed.

    IAM's simulator weighs a resource policy only for an IAM user (its CallerArn cannot be a role), so for a
    role the policy is read only to learn whether there is one.
    """
    errors: list[ItemError] = []
    check, policy = _checked((yield Call("s3:GetBucketPolicy", partial(
        _bucket_policy, request.client("s3", region=region), bucket))), errors)
    settled: PolicyCheck = "none" if check == "ok" and policy is None else check
    if policy is None or ":user/" not in principal:
        return _Found({"bucket_policy": settled}, errors)
    _, simulated = _checked((yield Call("iam:SimulatePrincipalPolicy", partial(
        request.client("iam").simulate_principal_policy, PolicySourceArn=principal, ActionNames=["s3:PutObject"],
        ResourceArns=[_objects(bucket)], ResourcePolicy=policy))), errors)
    results = (simulated or {}).get("EvaluationResults") or []
    return _Found({"bucket_policy": settled}, errors, with_policy=results[0]["EvalDecision"] if results else None)


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


def _registered_in(bucket: str, registered: Sequence[str] | None) -> tuple[Governor, list[str]]:
    """Who decides reads of the bucket's data, and its locations registered with Lake Formation."""
    if registered is None:
        return "unknown", []
    inside = locations_in(bucket, registered)
    return ("lake_formation" if inside else "iam"), inside


def _access(bucket: str, found: Sequence[_Found], identity: str | None,
            registered: Sequence[str] | None) -> BucketAccess:
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
    decided_by, locations = _registered_in(bucket, registered)
    access = BucketAccess(bucket=bucket, region=next((part.region for part in found if part.region), None),
                          level=level, write=write, evidence=evidence, errors=errors, decided_by=decided_by,
                          lake_formation_locations=locations, explain=bucket_uri(bucket))
    region_from = next((part.region_from for part in found if part.region_from), None)
    if region_from:
        access["region_from"] = region_from
    note = next((part.note for part in found if part.note), None)
    if note:
        access["note"] = note
    if write_note:
        access["write_note"] = write_note
    return access


@dataclass(frozen=True)
class _Writes:
    """What the write checks found: the identity-only simulations (per chunk of buckets) and each weighed bucket's
    policy chain."""

    simulated: Sequence[Outcome[Any, Any]]
    identity: Mapping[str, str]
    policies: Mapping[str, _Found]


def _check_writes(request: ResourceRequest, principal: str, names: Sequence[str],
                  located: Mapping[str, _Found]) -> Chain[_Writes]:
    """The identity-only simulations (50 buckets a call), then, in each bucket's region, its policy -> a simulation
    with it, except where the identity policies already deny."""
    iam = request.client("iam")
    simulated = yield [Call("iam:SimulatePrincipalPolicy", partial(_simulate_writes, iam, principal, chunk))
                       for chunk in chunks(names, SIMULATION_CHUNK)]
    identity = {name: decision for o in simulated if o.ok for name, decision in (o.value or {}).items()}
    weigh = [name for name in names if identity.get(name) not in (None, "explicitDeny")]
    policies = yield [Call("s3:GetBucketPolicy", partial(_check_policy, request, principal, name,
                                                         located[name].region)) for name in weigh]
    return _Writes(simulated, identity, dict(zip(weigh, map(_found, policies), strict=True)))


def _listed_region(bucket: Mapping[str, Any]) -> _Found | None:
    """The location check settled by ListBuckets' own entry, where it names the bucket's region."""
    region = bucket.get("BucketRegion")
    return _Found({"location": "ok"}, region=region, region_from="s3:ListBuckets") if region else None


@registry.resource(
    "permissions://discover",
    name="permissions-discover",
    title="What the caller may do with each bucket",
    description="The caller's identity and, for every bucket it can see, an access level (none/list/read/write) "
    "established by checks that never modify data, with the evidence of each check and each bucket's own "
    "errors; write is 'unknown' where the policy simulator cannot confirm it; a bucket with a location registered "
    "with Lake Formation is marked decided by it; each links its permissions://buckets/{bucket} explainer.",
    requires="auth",
    aws_calls=["s3:ListAllMyBuckets", "s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject",
               "s3:GetBucketPolicy", "iam:SimulatePrincipalPolicy", "lakeformation:ListResources"],
    list_field="buckets",
)
def discover(request: ResourceRequest) -> Discovery:
    """ListBuckets (which names each bucket's region when S3 answers it in pages); GetBucketLocation for the buckets
    it did not place; then, side by side in one fan-out, each bucket's listing -> object head in its region, and the
    write checks (identity simulations -> each bucket's policy -> a simulation with it). Each is a chain of calls
    (`fanout.Chain`): the fan-out's slots go to calls, not to chains, so none idles while a chain waits for its
    next call or while the write checks wait for the simulations."""
    caller = request.caller
    listed = [b for page in request.client("s3").get_paginator("list_buckets").paginate(
        PaginationConfig={"PageSize": LIST_BUCKETS_PAGE}) for b in page.get("Buckets", [])]
    names = [b["Name"] for b in listed]
    located = {b["Name"]: found for b in listed if (found := _listed_region(b)) is not None}
    unplaced = [name for name in names if name not in located]
    located.update(zip(unplaced, map(_found, request.fan_out(
        Call.run, [Call("s3:GetBucketLocation", partial(_locate, request, name)) for name in unplaced],
        action=Call.action_of)), strict=True))
    principal = simulation_principal(caller)
    writing = ([Call("iam:SimulatePrincipalPolicy", partial(_check_writes, request, principal, names, located))]
               if principal else [])
    checked = side_by_side(
        request, writes=writing,
        reads=[Call("s3:ListBucket", partial(_check_reads, request, name, located[name].region)) for name in names],
        lake=[Call("lakeformation:ListResources", partial(registered_locations, request.client("lakeformation")))])
    writes = next((o.value for o in checked["writes"] if o.ok), _Writes(checked["writes"], {}, {}))
    reads = dict(zip(names, map(_found, checked["reads"]), strict=True))
    (lake,) = checked["lake"]
    entries = [_access(name, [part for part in (located[name], reads[name], writes.policies.get(name)) if part],
                       writes.identity.get(name), lake.value if lake.ok else None) for name in names]
    levels = {level: sum(e["level"] == level for e in entries) for level in LEVELS}
    return Discovery(principal_arn=caller.principal_arn, account=caller.account,
                     simulation=_simulation(caller, principal, writes.simulated), levels=levels,
                     lake_formation="read" if lake.ok else lake.error.message,  # type: ignore[union-attr]
                     buckets=entries)


def _simulation(caller: Caller, principal: str | None, simulated: Sequence[Outcome[Any, Any]]) -> str:
    """Whether the write checks could ask IAM's simulator, and as whom."""
    failure = next((o.error for o in simulated if o.error is not None), None)
    if not principal:
        return f"unavailable: {caller.principal_arn} cannot be simulated (only IAM users and roles can)"
    if failure is not None:
        return f"unavailable: {failure.message}"
    return f"iam:SimulatePrincipalPolicy as {principal}"
