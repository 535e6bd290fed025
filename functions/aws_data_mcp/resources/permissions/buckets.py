"""permissions://buckets/{bucket}: what the caller may do with one bucket (list, read, write), link by link, with
the evidence and the fix to copy for each refusal.

Two waves: the listing, bucket policy, default encryption, Lake Formation's registered locations, Block Public
Access, object ownership and IAM's simulation of a write, side by side; then a one-byte read of the first object
(S3 and KMS) beside its key's policy.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.permissions.links import (
    Governor,
    Link,
    Unseen,
    Verdict,
    answered,
    link,
    overall,
    unseen_from_the_callers_seat,
)
from aws_data_mcp.resources.permissions.registrations import locations_in, registered_locations
from aws_data_mcp.resources.permissions.storage import Seat, denied_by_identity, own_policies, read_chain, written

BUCKET_NAME = re.compile(r"^(?!xn--)(?!.*\.\.)[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$")
"""S3's rules for a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens."""


class BucketExplained(TypedDict):
    bucket: str
    principal_arn: str | None
    simulated_as: str | None
    list: Verdict
    read: Verdict
    write: Verdict
    decided_by: Governor
    lake_formation_locations: list[str] | None
    """The bucket's locations registered with Lake Formation (their data is read through Lake Formation's grants,
    not the caller's IAM); null where they could not be listed."""
    settings: dict[str, Any]
    """Block Public Access and object ownership: what decides whether a public grant or another account's objects
    could be read at all."""
    links: list[Link]
    unseen: list[Unseen]


def checked_bucket(value: str) -> None:
    if not BUCKET_NAME.match(value):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "bucket must be an S3 bucket name: 3 to 63 lowercase "
                              "letters, digits, dots and hyphens", details=["permissions://discover lists buckets."])


def complete_bucket(request: ResourceRequest, prefix: str) -> list[str]:
    buckets = request.client("s3").list_buckets().get("Buckets", [])
    return [b["Name"] for b in buckets if b["Name"].startswith(prefix)]


def _setting(outcome: Outcome[Any, Any], key: str) -> Any:
    return outcome.value.get(key) if outcome.ok and outcome.value else answered(outcome)


def _explain(request: ResourceRequest, bucket: str) -> Chain[BucketExplained]:
    seat = Seat.of(request.caller)
    s3, objects = request.client("s3"), f"arn:aws:s3:::{bucket}/*"
    beside: list[Call[Any]] = [
        Call("lakeformation:ListResources", partial(registered_locations, request.client("lakeformation"))),
        Call("s3:GetBucketPublicAccessBlock", partial(s3.get_public_access_block, Bucket=bucket)),
        Call("s3:GetBucketOwnershipControls", partial(s3.get_bucket_ownership_controls, Bucket=bucket))]
    if seat.principal:
        beside.append(Call("iam:SimulatePrincipalPolicy", partial(
            request.client("iam").simulate_principal_policy, PolicySourceArn=seat.principal,
            ActionNames=["s3:PutObject"], ResourceArns=[objects])))
    (reads,) = yield [Call("s3:ListBucket", partial(read_chain, request, seat, bucket, "", "iam", beside))]
    if reads.error is not None:
        raise reads.error
    found = reads.value
    listing = found.links[0]
    if (listing["evidence"].get("error") or {}).get("error") == ErrorCode.NOT_FOUND.value:
        raise ResourceFailure(ErrorCode.NOT_FOUND, f"s3:ListBucket: no bucket {bucket!r}",
                              details=["permissions://discover lists the caller's buckets."])
    registered, access_block, ownership, *simulated = found.beside
    locations = None if registered.error else locations_in(bucket, registered.value or [])
    if simulated:
        own = next(iter((yield own_policies(request, seat, denied_by_identity(simulated[0])))), None)
        write = written(seat, bucket, objects, found.policy, simulated[0], own)
    else:
        write = link("s3:PutObject", objects, "unknown", {}, settle=f"IAM's simulator cannot simulate "
                     f"{request.caller.principal_arn}: an administrator runs aws iam simulate-principal-policy for "
                     f"s3:PutObject on {objects}")
    links = [*found.links, write]
    decided_by: Governor = "lake_formation" if locations else "iam"
    by_check = {entry["check"]: entry for entry in links}
    return BucketExplained(
        bucket=bucket, principal_arn=request.caller.principal_arn, simulated_as=seat.principal,
        list=by_check["s3:ListBucket"]["verdict"],
        read=overall([by_check["s3:GetObject"], by_check["kms:Decrypt"]]), write=write["verdict"],
        decided_by=decided_by, lake_formation_locations=locations,
        settings={"public_access_block": _setting(access_block, "PublicAccessBlockConfiguration"),
                  "ownership": _setting(ownership, "OwnershipControls")},
        links=links,
        unseen=unseen_from_the_callers_seat())


@registry.resource(
    "permissions://buckets/{bucket}",
    name="permissions-bucket",
    title="What can I do with this bucket, and why",
    description="The caller's list, read and write access to one bucket, link by link as the caller: the listing, "
    "a one-byte read (S3 and KMS), a simulated write weighed with the bucket policy, Lake Formation registration, "
    "Block Public Access and ownership; each link with its verdict, evidence and, for a denial, the fix to copy.",
    requires="auth",
    aws_calls=["s3:ListBucket", "s3:GetBucketPolicy", "s3:GetEncryptionConfiguration", "s3:GetObject",
               "kms:Decrypt", "kms:GetKeyPolicy", "lakeformation:ListResources", "s3:GetBucketPublicAccessBlock",
               "s3:GetBucketOwnershipControls", "iam:SimulatePrincipalPolicy"],
    completions={"bucket": complete_bucket},
    argument_checks={"bucket": checked_bucket},
    example="permissions://buckets/my-data-lake",
)
def explain_bucket(request: ResourceRequest) -> BucketExplained:
    bucket = request.args["bucket"]
    outcome = request.fan_out(Call.run, [Call("s3:ListBucket", partial(_explain, request, bucket))],
                              action=Call.action_of)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]
