"""A query workgroup's results path: Athena writes and reads back results as the caller.

Writes are not probed but simulated, then weighed with the bucket policy.
The bucket's owner decides how the two combine. ListBuckets learns it as the caller.
How the owner is learned, and what stays `unknown`: docs/access.md, the results path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer.athena_context import athena_request
from aws_data_mcp.explainer.identity_policies import denial_fixes
from aws_data_mcp.explainer.model import (
    Fix,
    Link,
    Verdict,
    answered,
    delegates,
    identity_fix,
    link,
    resource_policy_fix,
    statements,
    unsettled,
)
from aws_data_mcp.explainer.storage_links import (
    OTHER_ACCOUNT,
    Subject,
    bucket_policy,
    key_arn,
    key_policy,
    own_policies,
    policy_evidence,
    put_bucket_policy,
)
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

RESULT_ACTIONS = ("s3:PutObject", "s3:GetObject")
"""Athena writes a query's results as the caller, and GetQueryResults reads them back as the caller."""
LISTED_AT_MOST = 1000
"""Buckets ListBuckets is asked for (S3 answers an unpaged ListBuckets only to accounts at the default quota): the
bucket itself sorts first among the names it prefixes, so one would do; more cover an emulator that does not sort."""


@dataclass(frozen=True)
class BucketOwner:
    """Who owns a bucket, as far as the caller can learn it, and how it was learned."""

    callers: bool | None
    """True: the caller's own account; False: another account; None: not known."""
    account: str | None
    """The owning account's ID, where it is named."""
    learned: str
    """How, in words."""
    expected: str | None = None
    """The workgroup's ResultConfiguration.ExpectedBucketOwner, if set."""
    workgroup: str | None = None

    def evidence(self) -> dict[str, Any]:
        found: dict[str, Any] = {"account": self.account, "callers_account": self.callers, "learned": self.learned}
        if self.expected:
            found["expected_bucket_owner"] = self.expected
        return found

    def mismatch(self, subject: Subject) -> str | None:
        """Why Athena's every request to the bucket is refused (ExpectedBucketOwner names another owner), if it is."""
        if not self.expected or self.callers is None:
            return None
        if self.callers and self.expected != subject.account:
            return (f"the workgroup's ExpectedBucketOwner is {self.expected}, but the caller's account "
                    f"{subject.account} owns the bucket: S3 refuses every request Athena makes to it")
        if not self.callers and self.expected == subject.account:
            return (f"the workgroup's ExpectedBucketOwner is the caller's account {subject.account}, which does not "
                    "own the bucket: S3 refuses every request Athena makes to it")
        return None


def owned(s3: Any, bucket: str) -> bool:
    """Whether the caller's account owns `bucket`: ListBuckets lists only the buckets of the account that asks."""
    answer = s3.list_buckets(Prefix=bucket, MaxBuckets=LISTED_AT_MOST)
    return any(entry.get("Name") == bucket for entry in answer.get("Buckets") or [])


def owner_call(request: ResourceRequest, bucket: str) -> Call[bool]:
    return Call("s3:ListAllMyBuckets", partial(owned, request.client("s3"), bucket))


def owner_of(subject: Subject, listing: Outcome[Any, Any], policy: Outcome[Any, Any], expected: str | None = None,
             workgroup: str | None = None) -> BucketOwner:
    """The bucket's owner from ListBuckets' answer (`listing`), the bucket policy's, and ExpectedBucketOwner."""
    other = expected if expected and expected != subject.account else None
    if listing.ok and listing.value:
        return BucketOwner(True, subject.account, "s3:ListBuckets lists it among the caller's account's buckets",
                           expected, workgroup)
    if listing.ok:
        return BucketOwner(False, other, "s3:ListBuckets, which lists the caller's account's buckets, does not list "
                           "it" + (": the workgroup's ExpectedBucketOwner names the owner" if other else ""),
                           expected, workgroup)
    error = listing.error
    refused = (f"s3:ListBuckets was refused ({error.message})" if error and error.code is ErrorCode.ACCESS_DENIED
               else f"s3:ListBuckets gave no answer ({error.message if error else 'none'})")
    if policy.error is not None and policy.error.message == OTHER_ACCOUNT:
        return BucketOwner(False, other, f"{refused}; S3 answered s3:GetBucketPolicy with 405, as it answers "
                           "another account's identity", expected, workgroup)
    if expected:
        return BucketOwner(expected == subject.account, expected, f"{refused}; the workgroup's ExpectedBucketOwner "
                           "names it (S3 refuses Athena's every request to the bucket if another account owns it)",
                           expected, workgroup)
    return BucketOwner(None, None, f"{refused}, and the workgroup names no ExpectedBucketOwner", expected,
                       workgroup)


def write_chain(request: ResourceRequest, subject: Subject, bucket: str, prefix: str, workgroup: str | None = None,
                expected: str | None = None) -> Chain[list[Link]]:
    """Whether the caller may write under `prefix` (a query result location) and read the results back: the bucket
    policy beside ListBuckets (its owner), then IAM's simulator on the caller's identity policies; two waves."""
    objects = f"arn:aws:s3:::{bucket}/{prefix}*"
    s3 = request.client("s3")
    policy, listing = yield [Call("s3:GetBucketPolicy", partial(bucket_policy, s3, bucket)),
                             owner_call(request, bucket)]
    owner = owner_of(subject, listing, policy, expected, workgroup)
    if subject.principal is None:
        return [link(action, objects, "unknown", {"bucket_policy": policy_evidence(policy),
                                                  "bucket_owner": owner.evidence()},
                     settle=f"IAM's simulator cannot simulate {request.caller.principal_arn}: an administrator runs "
                            f"aws iam simulate-principal-policy for {action} on {objects}")
                for action in RESULT_ACTIONS]
    simulated = yield Call("iam:SimulatePrincipalPolicy", partial(
        request.client("iam").simulate_principal_policy, PolicySourceArn=subject.principal,
        ActionNames=list(RESULT_ACTIONS), ResourceArns=[objects],
        # Athena writes and reads them as the caller
        ContextEntries=athena_request(subject.principal, subject.account)))
    refused = any(denied_by_identity(simulated, action) or capped(simulated, action) for action in RESULT_ACTIONS)
    own = next(iter((yield own_policies(request, subject, refused))), None)
    return [written(subject, bucket, objects, policy, simulated, owner, own, action, RESULT_ACTIONS)
            for action in RESULT_ACTIONS]


def evaluation(simulated: Outcome[Any, Any], action: str) -> dict[str, Any] | None:
    """IAM's simulator's EvaluationResult for `action`, None where it gave none."""
    results = (simulated.value or {}).get("EvaluationResults") or []
    return next((r for r in results if r.get("EvalActionName", action) == action), None)


def decision(simulated: Outcome[Any, Any], action: str) -> str | None:
    """IAM's simulator's decision on `action` ("allowed", "explicitDeny", "implicitDeny"), None where it gave none."""
    return (evaluation(simulated, action) or {}).get("EvalDecision")


def capped(simulated: Outcome[Any, Any], action: str) -> bool:
    """Whether IAM's simulator says the caller's permissions boundary does not allow `action`: an Allow added to
    its own policies would change nothing, so they are read for the boundary's fix."""
    detail = (evaluation(simulated, action) or {}).get("PermissionsBoundaryDecisionDetail") or {}
    return detail.get("AllowedByPermissionsBoundary") is False


def denied_by_identity(simulated: Outcome[Any, Any], action: str = "s3:PutObject") -> bool:
    """Whether IAM's simulator found a Deny in the caller's own policies (then they are read, for the fix)."""
    return decision(simulated, action) == "explicitDeny"


def _allows(subject: Subject, policy: Outcome[Any, Any], action: str, objects: str, *,
            account: bool) -> list[dict[str, Any]]:
    """The bucket policy's Allows of `action` naming the caller (or, with `account`, its account: from another
    account that delegates to the caller's IAM, as S3 reads it)."""
    delegating = (subject.account, f"arn:aws:iam::{subject.account}:root") if account and subject.account else ()
    names = (*subject.identities, *delegating)
    return statements(policy.value, "Allow", action, objects, names, None) if policy.ok else []


def written(subject: Subject, bucket: str, objects: str, policy: Outcome[Any, Any], simulated: Outcome[Any, Any],
            owner: BucketOwner, own: Outcome[Any, Any] | None = None, action: str = "s3:PutObject",
            grant: Sequence[str] = ()) -> Link:
    """The write (or read-back) verdict: a Deny in the bucket policy or the identity's decides, and so does an
    ExpectedBucketOwner that names another owner; else the owner decides how the two Allows combine (the module's
    docstring). An unreadable bucket policy leaves anything no identity refuses `unknown`. `grant`: the actions a
    bucket-policy fix adds for the caller (a result location's: both the write and the read-back, in one statement
    that a second fix replaces rather than narrows)."""
    identity = decision(simulated, action)
    evidence: dict[str, Any] = {"bucket_policy": policy_evidence(policy), "simulated_identity_policies": identity,
                                "bucket_owner": owner.evidence()}
    if simulated.error is not None:
        evidence["error"] = simulated.error.brief()
    denying = (statements(policy.value, "Deny", action, objects, subject.identities, subject.account)
               if policy.ok else [])
    if denying:
        return link(action, objects, "denied", evidence | {"bucket_policy_denies": denying}, fix=[
            resource_policy_fix("bucket_policy", bucket, policy.value, subject.principal or "", [action],
                                objects, denying, put_bucket_policy(bucket), subject.identities, subject.reach)])
    # a Deny in the caller's own, a group's or the boundary's policy, or a boundary that does not allow it
    own_fixes = denial_fixes(own.value, action, objects, evaluation(simulated, action), subject.reach) \
        if own is not None and own.ok else []
    identity_fixes = [*own_fixes, identity_fix(subject.principal, [action], [objects], subject.reach)]
    if identity == "explicitDeny":
        return link(action, objects, "denied", evidence, fix=identity_fixes)
    if policy.error is not None and policy.error.code is ErrorCode.NOT_FOUND:  # Athena fails every query
        return link(action, objects, "denied", evidence | {"reason": f"S3 answers that there is no bucket {bucket}: "
                                                                     "Athena cannot write the results there"})
    if (reason := owner.mismatch(subject)) is not None:
        return link(action, objects, "denied", evidence | {"reason": reason}, fix=_owner_fix(owner, subject))
    if identity is None:
        return link(action, objects, "unknown", evidence, settle=unsettled(simulated))
    if identity != "allowed" and owner.callers is False:  # from another account, the identity must allow too
        return link(action, objects, "denied", evidence, fix=identity_fixes)
    if not policy.ok:
        return link(action, objects, "unknown", evidence, settle=_unreadable(subject, bucket, objects, owner, action))
    return _weighed(subject, bucket, objects, policy, identity, owner, action, grant or [action], evidence,
                    identity_fixes)


def _weighed(subject: Subject, bucket: str, objects: str, policy: Outcome[Any, Any], identity: str, owner: BucketOwner,
             action: str, grant: Sequence[str], evidence: dict[str, Any], identity_fixes: list[Fix]) -> Link:
    """No Deny decides: the bucket policy's Allows and the identity's, combined as the owner makes S3 combine them.
    `identity_fixes`: what the caller's identity needs where it does not allow (its boundary's first, if any)."""
    named = _allows(subject, policy, action, objects, account=False)
    trusted = _allows(subject, policy, action, objects, account=True)
    if owner.callers:  # within the account: either suffices
        if identity == "allowed" or named:
            return link(action, objects, "allowed", evidence | ({"bucket_policy_allows": named} if named else {}))
        return link(action, objects, "denied", evidence, fix=identity_fixes)
    found = evidence | ({"bucket_policy_allows": trusted} if trusted else {})
    if identity == "allowed" and trusted and all("Condition" in s for s in trusted):
        return link(action, objects, "unknown", found, settle=(
            f"The bucket policy of {bucket} allows the caller only under a Condition: an administrator of its "
            f"owner simulates {action} on {objects} for {subject.principal} with Athena's request context"))
    if identity == "allowed" and trusted:  # both allow: whoever owns the bucket
        return link(action, objects, "allowed", found)
    if owner.callers is None:
        if identity == "allowed" or named:
            settle = _owner_unknown(subject, bucket, objects, owner, action)
            return link(action, objects, "unknown", found, settle=settle)
        return link(action, objects, "denied", evidence, fix=identity_fixes)
    fix = resource_policy_fix("bucket_policy", bucket, policy.value, subject.principal or "", list(grant), objects, [],
                              put_bucket_policy(bucket), subject.identities, subject.reach)
    if owner.account:
        fix["account"] = owner.account
    return link(action, objects, "denied", found | {"reason": (
        f"{bucket} is another account's ({owner.account or 'not named'}): its bucket policy must allow the caller "
        f"{action} too, and no statement does")}, fix=[fix])


def _statement(subject: Subject, action: str, objects: str) -> str:
    return json.dumps({"Effect": "Allow", "Principal": {"AWS": subject.principal}, "Action": action,
                       "Resource": objects}, separators=(",", ":"))


def _unreadable(subject: Subject, bucket: str, objects: str, owner: BucketOwner, action: str) -> str:
    if owner.callers is False:
        return (f"Only the bucket's owner ({owner.account or 'another account'}) can read its policy: an "
                f"administrator there checks it (aws s3api get-bucket-policy --bucket {bucket}) for an Allow of "
                f"{action} to the caller or its account, and adds one if there is none: "
                f"{_statement(subject, action, objects)}")
    if owner.callers is None:
        return (f"Neither who owns {bucket} nor its policy can be read by the caller ({owner.learned}): "
                "s3:ListAllMyBuckets for the caller settles the owner; the owner reads the policy (aws s3api "
                f"get-bucket-policy) for a Deny naming the caller and, if another account owns it, for an Allow of "
                f"{action} to the caller")
    return (f"The bucket policy of {bucket} cannot be read by the caller: its owner reads it "
            "(aws s3api get-bucket-policy) for a Deny naming the caller")


def _owner_unknown(subject: Subject, bucket: str, objects: str, owner: BucketOwner, action: str) -> str:
    return (f"Who owns {bucket} is not known ({owner.learned}): s3:ListAllMyBuckets for the caller settles it. In "
            "the caller's account one Allow suffices; from another account its bucket policy must also allow "
            f"{action} on {objects} to the caller ({_statement(subject, action, objects)})")


def _owner_fix(owner: BucketOwner, subject: Subject) -> list[Fix]:
    """The workgroup's ExpectedBucketOwner set to the bucket's owner, where it is known."""
    if not owner.workgroup or not owner.account or owner.account == owner.expected:
        return []
    updates = {"ResultConfigurationUpdates": {"ExpectedBucketOwner": owner.account}}
    return [Fix(kind="workgroup", apply_by="administrator", target=owner.workgroup, request={
        "WorkGroup": owner.workgroup, "ConfigurationUpdates": updates},
        command=f"aws athena update-work-group --work-group {owner.workgroup} --configuration-updates "
                f"'ResultConfigurationUpdates={{ExpectedBucketOwner={owner.account}}}'")]


RESULTS_KEY_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")
"""What Athena asks KMS, as the caller, to write SSE-KMS (or CSE-KMS) encrypted results, then to read them back."""


def results_key(encryption: Mapping[str, Any] | None) -> str | None:
    """The KMS key a workgroup's results are encrypted with (its EncryptionConfiguration), if any."""
    found = encryption or {}
    return str(found["KmsKey"]) if found.get("EncryptionOption") in ("SSE_KMS", "CSE_KMS") and found.get(
        "KmsKey") else None


def _put_key_policy(arn: str) -> str:
    return f"aws kms put-key-policy --key-id {arn.rsplit('/', 1)[-1]} --policy-name default --policy {{policy}}"


def results_key_chain(request: ResourceRequest, subject: Subject, workgroup: str, key: str) -> Chain[list[Link]]:
    """Whether the caller may use the results' key to write them and read them back: its key policy, then IAM's
    simulator where the key policy lets the account's IAM policies grant it; two waves, beside the result
    location's write."""
    arn = key_arn(key, request.caller.region, subject.account)
    policy = yield Call("kms:GetKeyPolicy", partial(key_policy, request.client("kms"), arn))
    if policy.error is not None:
        if policy.error.code is ErrorCode.NOT_FOUND:  # Athena fails every query: the key cannot be used
            return [link(action, arn, "denied", answered(policy), fix=[_plain_results(workgroup)])
                    for action in RESULTS_KEY_ACTIONS]
        return [link(action, arn, "unknown", answered(policy), settle=(
            f"The key's administrator reads its policy (aws kms get-key-policy --key-id {arn} --policy-name default) "
            "for a statement that lets the caller use it")) for action in RESULTS_KEY_ACTIONS]
    evidence: dict[str, Any] = {"key_policy": "read", "workgroup": workgroup}
    simulate = [action for action in RESULTS_KEY_ACTIONS
                if subject.principal and not _key_refuses(subject, policy, action, arn)]
    simulated = (yield Call("iam:SimulatePrincipalPolicy", partial(
        request.client("iam").simulate_principal_policy, PolicySourceArn=subject.principal,
        ActionNames=simulate, ResourceArns=[arn]))) if simulate else None
    return [_key_link(request, subject, policy, simulated, action, arn, evidence) for action in RESULTS_KEY_ACTIONS]


def _key_refuses(subject: Subject, policy: Outcome[Any, Any], action: str, arn: str) -> bool:
    """A Deny naming the caller, or no statement letting it (or its account's IAM policies) use the key."""
    return bool(statements(policy.value, "Deny", action, arn, subject.identities, subject.account)) or not (
        statements(policy.value, "Allow", action, arn, subject.identities, None)
        or delegates(policy.value, action, arn, subject.account))


def _key_link(request: ResourceRequest, subject: Subject, policy: Outcome[Any, Any],
              simulated: Outcome[Any, Any] | None, action: str, arn: str, evidence: Mapping[str, Any]) -> Link:
    denying = statements(policy.value, "Deny", action, arn, subject.identities, subject.account)
    named = statements(policy.value, "Allow", action, arn, subject.identities, None)
    if simulated is None or _key_refuses(subject, policy, action, arn):  # the key policy alone refuses: not simulated
        verdict: Verdict = "denied" if subject.principal else "unknown"
        return link(action, arn, verdict, {**evidence, "key_policy_denies": denying}, fix=[
            resource_policy_fix("key_policy", arn, policy.value, subject.principal or "", [action], "*", denying,
                                _put_key_policy(arn), subject.identities, subject.reach)],
                    settle=f"IAM's simulator cannot simulate {request.caller.principal_arn}")
    identity = decision(simulated, action)
    found = {**evidence, "simulated_identity_policies": identity}
    if identity == "explicitDeny" or (identity != "allowed" and not named and identity is not None):
        return link(action, arn, "denied", found, fix=[identity_fix(subject.principal, [action], [arn], subject.reach)])
    if identity is None:
        return link(action, arn, "unknown", found | answered(simulated), settle=unsettled(simulated))
    return link(action, arn, "allowed", found)


def _plain_results(workgroup: str) -> Fix:
    """A workgroup whose results key cannot be used: its results encrypted with S3's own keys instead."""
    updates = {"ResultConfigurationUpdates": {"EncryptionConfiguration": {"EncryptionOption": "SSE_S3"}}}
    return Fix(kind="workgroup", apply_by="administrator", target=workgroup, request={
        "WorkGroup": workgroup, "ConfigurationUpdates": updates},
        command=f"aws athena update-work-group --work-group {workgroup} --configuration-updates "
                "'ResultConfigurationUpdates={EncryptionConfiguration={EncryptionOption=SSE_S3}}'")
