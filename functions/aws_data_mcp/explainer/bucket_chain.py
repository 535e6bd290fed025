"""permissions://buckets/{bucket}: what the caller may do with one bucket (list, read, write), link by link, with
the evidence and the fix to copy for each refusal.

Two waves: the listing, bucket policy, default encryption, Lake Formation's registered locations, Block Public
Access, object ownership and IAM's simulation of a write, side by side; then a one-byte read of the first object
(S3 and KMS) beside its key's policy.
"""

from __future__ import annotations

from functools import partial
from typing import Any, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.model import (
    Governor,
    Link,
    Unseen,
    Verdict,
    answered,
    link,
    overall,
    unseen_from_the_callers_seat,
)
from aws_data_mcp.explainer.registrations import locations_in, registered_locations
from aws_data_mcp.explainer.results_path import capped, denied_by_identity, owner_call, owner_of, written
from aws_data_mcp.explainer.storage_links import Subject, own_policies, read_chain
from aws_data_mcp.explainer.summary import summary
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest


class BucketExplained(TypedDict):
    summary: str
    """One line: list, read and write, and the first link that refuses (or cannot be told) with its fix."""
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








def _setting(outcome: Outcome[Any, Any], key: str) -> Any:
    return outcome.value.get(key) if outcome.ok and outcome.value else answered(outcome)


def _explain(request: ResourceRequest, bucket: str) -> Chain[BucketExplained]:
    subject = Subject.of(request.caller)
    s3, objects = request.client("s3"), f"arn:aws:s3:::{bucket}/*"
    beside: list[Call[Any]] = [
        Call("lakeformation:ListResources", partial(registered_locations, request.client("lakeformation"))),
        Call("s3:GetBucketPublicAccessBlock", partial(s3.get_public_access_block, Bucket=bucket)),
        Call("s3:GetBucketOwnershipControls", partial(s3.get_bucket_ownership_controls, Bucket=bucket)),
        owner_call(request, bucket)]
    if subject.principal:
        beside.append(Call("iam:SimulatePrincipalPolicy", partial(
            request.client("iam").simulate_principal_policy, PolicySourceArn=subject.principal,
            ActionNames=["s3:PutObject"], ResourceArns=[objects])))
    (reads,) = yield [Call("s3:ListBucket", partial(read_chain, request, subject, bucket, "", "iam", beside))]
    if reads.error is not None:
        raise reads.error
    found = reads.value
    listing = found.links[0]
    if (listing["evidence"].get("error") or {}).get("error") == ErrorCode.NOT_FOUND.value:
        raise ResourceFailure(ErrorCode.NOT_FOUND, f"s3:ListBucket: no bucket {bucket!r}",
                              details=["permissions://discover lists the caller's buckets."])
    registered, access_block, ownership, listing, *simulated = found.beside
    owner = owner_of(subject, listing, found.policy)
    locations = None if registered.error else locations_in(bucket, registered.value or [])
    if simulated:
        refused = denied_by_identity(simulated[0]) or capped(simulated[0], "s3:PutObject")
        own = next(iter((yield own_policies(request, subject, refused))), None)
        write = written(subject, bucket, objects, found.policy, simulated[0], owner, own)
    else:
        write = link("s3:PutObject", objects, "unknown", {}, settle=f"IAM's simulator cannot simulate "
                     f"{request.caller.principal_arn}: an administrator runs aws iam simulate-principal-policy for "
                     f"s3:PutObject on {objects}")
    links = [*found.links, write]
    decided_by: Governor = "lake_formation" if locations else "iam"
    by_check = {entry["check"]: entry for entry in links}
    levels = (f"list {by_check['s3:ListBucket']['verdict']}, read "
              f"{overall([by_check['s3:GetObject'], by_check['kms:Decrypt']])}, write {write['verdict']}")
    verdict = overall(links)
    return BucketExplained(
        summary=f"{levels}; " + summary(verdict, links, f"every link holds on s3://{bucket}/",
                                                  request.settings.summary_resource_chars),
        bucket=bucket, principal_arn=request.caller.principal_arn, simulated_as=subject.principal,
        list=by_check["s3:ListBucket"]["verdict"],
        read=overall([by_check["s3:GetObject"], by_check["kms:Decrypt"]]), write=write["verdict"],
        decided_by=decided_by, lake_formation_locations=locations,
        settings={"public_access_block": _setting(access_block, "PublicAccessBlockConfiguration"),
                  "ownership": _setting(ownership, "OwnershipControls")},
        links=links,
        unseen=unseen_from_the_callers_seat())


def explain_bucket(request: ResourceRequest) -> BucketExplained:
    bucket = request.args["bucket"]
    outcome = request.fan_out(Call.run, [Call("s3:ListBucket", partial(_explain, request, bucket))],
                              action=Call.action_of)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]
