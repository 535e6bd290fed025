"""The S3 and KMS links of an access chain, for a table's data or a bucket (a query result location's are
results_path.py's, which reads bucket and key policies with these helpers).

Reads are probed, as the caller: a listing of the prefix (s3:ListBucket) and a one-byte ranged GET of an object
under it, which S3 authorises (s3:GetObject) and then decrypts (kms:Decrypt for an SSE-KMS object): exactly what
Athena does, with no data changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlparse

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.athena_context import (
    as_athena,
    context_bound,
    principal_free,
    simulate_as_athena,
    stand_in_user,
)
from aws_data_mcp.explainer.fix_reach import Reach, reach_of
from aws_data_mcp.explainer.identity_policies import denial_fixes, identity_policies, simulation_principal
from aws_data_mcp.explainer.model import (
    Governor,
    Link,
    answered,
    delegates,
    identity_fix,
    link,
    parsed_policy,
    principal_kind,
    resource_policy_fix,
    statements,
    unsettled,
    verdict_of,
)
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp.reading.call_memo import once_per_read
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

KMS_DENIAL = ("kms:", "KMS", "ciphertext")
"""What S3 says when it authorised a read but KMS refused the key (AWS words it with the KMS action)."""


@dataclass(frozen=True)
class Subject:
    """Who the checks are about: the principal IAM's simulator and policies name, and its account."""

    principal: str | None
    """The caller's IAM user or role ARN (an assumed role as its role), or None where it has none."""
    identities: tuple[str, ...]
    account: str | None
    reach: Reach | None = None
    """Whom a grant to `principal` reaches (fix_reach): the person's session alone where the trust pins it."""

    @staticmethod
    def of(caller: Caller) -> Subject:
        principal = simulation_principal(caller)
        identities = tuple(dict.fromkeys(a for a in (principal, caller.principal_arn) if a))
        return Subject(principal, identities, caller.account, reach_of(caller))


OTHER_ACCOUNT = "s3:GetBucketPolicy: S3 answers 405 MethodNotAllowed: only the bucket owner's account reads its policy"
"""S3's answer to GetBucketPolicy from an identity of another account than the bucket's (a refusal that says so)."""


def bucket_policy(s3: Any, bucket: str) -> dict[str, Any] | None:
    """The bucket's policy; None for a bucket that has none (AWS answers that with an error)."""
    try:
        return parsed_policy(s3.get_bucket_policy(Bucket=bucket)["Policy"])
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code == "MethodNotAllowed":
            raise ResourceFailure(ErrorCode.ACCESS_DENIED, OTHER_ACCOUNT, action="s3:GetBucketPolicy") from None
        if code != "NoSuchBucketPolicy":
            raise
        return None


def default_encryption(s3: Any, bucket: str) -> dict[str, Any]:
    """The bucket's default encryption rule (SSEAlgorithm, KMSMasterKeyID); {} where there is none."""
    try:
        rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ServerSideEncryptionConfigurationNotFoundError":
            raise
        return {}
    return dict((rules[0] if rules else {}).get("ApplyServerSideEncryptionByDefault") or {})


def key_policy(kms: Any, key: str) -> dict[str, Any] | None:
    return parsed_policy(kms.get_key_policy(KeyId=key, PolicyName="default")["Policy"])


def _first_byte(s3: Any, bucket: str, key: str) -> dict[str, Any]:
    """A one-byte ranged GET: S3 authorises it as s3:GetObject and KMS as kms:Decrypt; its body is dropped. Once a
    read per object (a streamed answer botocore cannot replay: `call_memo.once_per_read`)."""
    def read() -> dict[str, Any]:
        answer = s3.get_object(Bucket=bucket, Key=key, Range="bytes=0-0")
        answer["Body"].close()
        return {"ServerSideEncryption": answer.get("ServerSideEncryption"), "SSEKMSKeyId": answer.get("SSEKMSKeyId")}
    return once_per_read(("s3:GetObject bytes=0-0", id(s3), bucket, key), read)


def _encryption_of(s3: Any, bucket: str, key: str) -> dict[str, Any]:
    """The object's encryption as HeadObject tells it (no key use needed): the key a refused read would have used."""
    answer = s3.head_object(Bucket=bucket, Key=key)
    return {"ServerSideEncryption": answer.get("ServerSideEncryption"), "SSEKMSKeyId": answer.get("SSEKMSKeyId")}


def key_alias(kms: Any, key: str) -> str | None:
    """The key's alias (ListAliases for the key; the first by name of several), the name people know it by; None
    where it has none."""
    names = [a["AliasName"] for page in kms.get_paginator("list_aliases").paginate(KeyId=key)
             for a in page.get("Aliases", [])]
    return min(names) if names else None


def key_arn(key: str, region: str, account: str | None) -> str:
    if key.startswith("arn:"):
        return key
    return f"arn:aws:kms:{region}:{account or '*'}:key/{key}"


def policy_evidence(outcome: Outcome[Any, Any]) -> str:
    if outcome.error is not None:
        return "unreadable"
    return "none" if outcome.value is None else "read"


def put_bucket_policy(bucket: str) -> str:
    """The command that puts a fixed bucket policy (`{policy}` is filled with it)."""
    return f"aws s3api put-bucket-policy --bucket {bucket} --policy {{policy}}"


def _bucket_denies(subject: Subject, policy: Outcome[Any, Any], action: str, resource: str) -> list[dict[str, Any]]:
    return statements(policy.value, "Deny", action, resource, subject.identities, subject.account) if policy.ok else []


def _read_fix(subject: Subject, bucket: str, policy: Outcome[Any, Any], action: str, resource: str,
              own: Outcome[Any, Any] | None, table: str | None = None) -> list[Any]:
    """A refused read's fix: the bucket policy's denying statements narrowed for this read where it names any, else
    the caller's own policies' denying statements out (where `own`, the caller's identity policies, could be read)
    and the statement its identity lacks. `table`: the objects of the table's root, where `resource` (a partition's)
    lies under it and each Deny covers it too: the fix is then the table's own, the same for each of its
    partitions, so applying every one a table prints grants the table and no more."""
    denying = _bucket_denies(subject, policy, action, resource)
    if table and denying and all(statements({"Statement": [d]}, "Deny", action, table, subject.identities,
                                            subject.account) for d in denying):
        resource = table
    if denying and subject.principal:
        return [resource_policy_fix("bucket_policy", bucket, policy.value, subject.principal, [action], resource,
                                    denying, put_bucket_policy(bucket), subject.identities, subject.reach)]
    removed = denial_fixes(own.value, action, resource, None, subject.reach) if own is not None and own.ok else []
    return [*removed, identity_fix(subject.principal, [action], [resource], subject.reach)]


def own_policies(request: ResourceRequest, subject: Subject, refused: bool) -> list[Call[Any]]:
    """The caller's identity policies, read after a refusal no resource policy explains (its own Deny may)."""
    if not refused or subject.principal is None:
        return []
    kind, _ = principal_kind(subject.principal)
    return [Call(f"iam:Get{kind.capitalize()}Policy", partial(identity_policies, request.client("iam"),
                                                              subject.principal))]


def _probe_link(check: str, resource: str, outcome: Outcome[Any, Any], evidence: Mapping[str, Any],
                fix: Sequence[Any], governed_by: Governor) -> Link:
    return link(check, resource, verdict_of(outcome), {**evidence, **answered(outcome)}, fix=fix,
                settle=unsettled(outcome), governed_by=governed_by)


@dataclass(frozen=True)
class Reads:
    """What a read chain found: its links, the bucket policy's outcome, and the outcomes of the calls asked beside
    its first wave."""

    links: list[Link]
    policy: Outcome[Any, Any]
    beside: list[Outcome[Any, Any]]


SAMPLE = 4
"""Objects read (one byte each, beside their heads) per location: files under several KMS keys or owners show."""


def _owned(s3: Any, bucket: str, key: str) -> list[dict[str, Any]]:
    """The object's listing entry with its owner (S3 names an owner in a listing, not in HeadObject)."""
    return [o for o in s3.list_objects_v2(Bucket=bucket, Prefix=key, MaxKeys=1, FetchOwner=True).get(
        "Contents", []) if o["Key"] == key]


def read_chain(request: ResourceRequest, subject: Subject, bucket: str, prefix: str, governed_by: Governor,
               beside: Sequence[Call[Any]] = (), table: tuple[str, str] | None = None,
               files: Sequence[str] | None = None) -> Chain[Reads]:
    """List the prefix (up to SAMPLE objects, with their owners), read the bucket policy and default encryption
    (side by side, with the calls `beside`); then read one byte of each object listed, beside its head and the
    default key's policy: two waves (a third, the refusing key's policy, after a refusal only). `table`: the
    table's root location (bucket, prefix), whose objects a partition's read fix grants where it lies under it.
    `files` (keys in the bucket) are read instead of the listed ones where the reader knows which files it reads
    (Iceberg's manifests name them), each listed for its owner in the first wave."""
    s3 = request.client("s3")
    named = list(files or [])
    listing, policy, encryption, *others = yield [
        Call("s3:ListBucket", partial(s3.list_objects_v2, Bucket=bucket, Prefix=prefix, MaxKeys=SAMPLE,
                                      FetchOwner=True)),
        Call("s3:GetBucketPolicy", partial(bucket_policy, s3, bucket)),
        Call("s3:GetEncryptionConfiguration", partial(default_encryption, s3, bucket)), *beside,
        *(Call("s3:ListBucket", partial(_owned, s3, bucket, key)) for key in named)]
    if named:
        owned, others = others[len(others) - len(named):], others[:len(others) - len(named)]
        listed = [next(iter(o.value or []), {"Key": key}) for key, o in zip(named, owned, strict=True)]
    else:
        listed = [o for o in (listing.value or {}).get("Contents", []) if not o["Key"].endswith("/")][:SAMPLE]
    keys = [o["Key"] for o in listed]
    default = encryption.value or {}
    default_key = default.get("KMSMasterKeyID") if default.get("SSEAlgorithm") == "aws:kms" else None
    second: list[Call[Any]] = []
    bucket_arn, objects = f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/{prefix}*"
    bound = {action: context_bound(policy.value, action, arn) if policy.ok else []
             for action, arn in (("s3:ListBucket", bucket_arn), ("s3:GetObject", objects))}
    caller = _simulated_caller(subject, policy.value if policy.ok else None) if any(bound.values()) else None
    simulating = caller is not None
    for key in keys:
        second += [Call("s3:GetObject", partial(_first_byte, s3, bucket, key)),
                   Call("s3:GetObject", partial(_encryption_of, s3, bucket, key))]
    if default_key:
        second.append(Call("kms:GetKeyPolicy", partial(key_policy, request.client("kms"), default_key)))
    if simulating:  # the bucket policy names a key of Athena's request the probe does not share: AWS decides
        second.append(Call("iam:SimulatePrincipalPolicy", partial(
            simulate_as_athena, request.client("iam"), subject.principal, caller, policy.value,
            ["s3:ListBucket", "s3:GetObject"], [bucket_arn, objects], subject.account)))
    answers = yield second
    athena = answers.pop() if simulating else None
    pairs = [(answers[2 * i], answers[2 * i + 1]) for i in range(len(keys))]
    policy_of_key = answers[-1] if default_key else None
    at_read = next((i for i, (read, _) in enumerate(pairs) if verdict_of(read) != "allowed"
                    and not _kms_refused(read)), 0)
    at_key = next((i for i, (read, _) in enumerate(pairs) if _kms_refused(read)), 0)
    key, read = (keys[at_read], pairs[at_read][0]) if keys else (None, None)
    decrypted, (kms_read, head) = (keys[at_key], pairs[at_key]) if keys else (None, (None, None))
    own_key = (head.value or {}).get("SSEKMSKeyId") if head is not None else None
    alias = None
    if _kms_refused(kms_read) and (own_key or default_key):  # a refusal only: the refusing key's policy and alias
        kms, refusing = request.client("kms"), own_key or default_key
        third = [Call("kms:ListAliases", partial(key_alias, kms, refusing))]
        if own_key and own_key != default_key:
            third.append(Call("kms:GetKeyPolicy", partial(key_policy, kms, own_key)))
        alias, *of_key = yield third
        policy_of_key = of_key[0] if of_key else policy_of_key
    unexplained = [(action, arn) for action, arn, outcome in (("s3:ListBucket", bucket_arn, listing),
                                                              ("s3:GetObject", objects, read))
                   if outcome is not None and verdict_of(outcome) == "denied" and not _kms_refused(outcome)
                   and not _bucket_denies(subject, policy, action, arn)]
    own = next(iter((yield own_policies(request, subject, bool(unexplained)))), None)  # a refusal only
    evidence = {"bucket_policy": policy_evidence(policy), "prefix": prefix, "objects_sampled": len(keys)}
    links = [_probe_link("s3:ListBucket", bucket_arn, listing, evidence | {"objects_seen": len(
        (listing.value or {}).get("Contents", []))}, _read_fix(subject, bucket, policy, "s3:ListBucket", bucket_arn,
                                                               own), governed_by)]
    owners = sorted({(o.get("Owner") or {}).get("ID") or "unknown" for o in listed})
    stand_in = caller if caller != subject.principal else None
    links = [as_athena(links[0], bound["s3:ListBucket"], athena, stand_in)]
    root = f"arn:aws:s3:::{bucket}/{table[1]}*" if table and table[0] == bucket and prefix.startswith(
        table[1]) and prefix != table[1] else None
    links.append(as_athena(_object_link(subject, bucket, objects, key, read, policy, evidence | {
        "object_owners": owners}, governed_by, own, root), bound["s3:GetObject"], athena, stand_in))
    links.append(_decrypt_link(request, subject, decrypted, kms_read, head, default, policy_of_key, governed_by))
    if alias is not None and alias.value:
        links[-1]["evidence"]["key_alias"] = alias.value
    links[-1]["evidence"] |= {"objects_sampled": len(keys), "kms_keys": _keys_seen(pairs)}
    return Reads(links, policy, others)


def _simulated_caller(subject: Subject, policy: Mapping[str, Any] | None) -> str | None:
    """Whom IAM's simulator may take as the caller: the caller's own IAM user, or for a role a stand-in user where
    the bucket policy decides alike for any principal; None where AWS cannot be asked."""
    if subject.principal is None:
        return None
    if ":user/" in subject.principal:
        return subject.principal
    if ":role/" in subject.principal and principal_free(policy):
        return stand_in_user(subject.account, subject.principal.split(":")[1])
    return None


def _keys_seen(pairs: Sequence[tuple[Outcome[Any, Any], Outcome[Any, Any]]]) -> list[str]:
    """The distinct KMS keys of the objects sampled (as their reads, or else their heads, name them)."""
    found = {((read.value if read.ok else head.value) or {}).get("SSEKMSKeyId") for read, head in pairs}
    return sorted(k for k in found if k)


def _kms_refused(read: Outcome[Any, Any] | None) -> bool:
    message = " ".join(read.error.details or []) + read.error.message if read and read.error else ""
    return read is not None and read.error is not None and any(word in message for word in KMS_DENIAL)


def _object_link(subject: Subject, bucket: str, objects: str, key: str | None, read: Outcome[Any, Any] | None,
                 policy: Outcome[Any, Any], evidence: Mapping[str, Any], governed_by: Governor,
                 own: Outcome[Any, Any] | None, table: str | None = None) -> Link:
    if read is None:
        return link("s3:GetObject", objects, "unknown", evidence | {"object": None}, governed_by=governed_by,
                    settle=f"No object under s3://{bucket}/{evidence['prefix']} to read (or listing it failed): "
                    "reading is established once there is one")
    if _kms_refused(read):
        return link("s3:GetObject", objects, "allowed", evidence | {
            "object": key, "answered": "S3 authorised the read; KMS refused the key (see kms:Decrypt)"},
            governed_by=governed_by)
    return _probe_link("s3:GetObject", objects, read, evidence | {"object": key},
                       _read_fix(subject, bucket, policy, "s3:GetObject", objects, own, table), governed_by)


def _decrypt_link(request: ResourceRequest, subject: Subject, key: str | None, read: Outcome[Any, Any] | None,
                  head: Outcome[Any, Any] | None, default: Mapping[str, Any], policy_of_key: Outcome[Any, Any] | None,
                  governed_by: Governor) -> Link:
    """kms:Decrypt as the one-byte read settled it: the object's own key where it has one (as the read, or else
    HeadObject, tells it), else the bucket's default key."""
    found = (read.value or {}) if read is not None and read.ok else (head.value or {}) if head is not None else {}
    key_id = found.get("SSEKMSKeyId") or default.get("KMSMasterKeyID")
    algorithm = found.get("ServerSideEncryption") or default.get("SSEAlgorithm")
    evidence: dict[str, Any] = {"object": key, "object_encryption": found.get("ServerSideEncryption"),
                                "bucket_default": dict(default) or None}
    if (algorithm != "aws:kms" or not key_id) and not _kms_refused(read):
        return link("kms:Decrypt", "none", "allowed", evidence | {"answered": "no KMS key: nothing to decrypt"},
                    governed_by=governed_by)
    arn = key_arn(key_id, request.caller.region, subject.account) if key_id else "*"
    if policy_of_key is not None:
        evidence["key_policy"] = policy_evidence(policy_of_key)
    if read is not None and read.ok:
        return link("kms:Decrypt", arn, "allowed", evidence | {"answered": "the one-byte read was decrypted"},
                    governed_by=governed_by)
    if _kms_refused(read):
        return link("kms:Decrypt", arn, "denied", evidence | {"error": _refused_key(read, arn)},
                    fix=_decrypt_fix(subject, arn, policy_of_key), governed_by=governed_by)
    return link("kms:Decrypt", arn, "unknown", evidence, governed_by=governed_by,
                settle="No object could be read to try the key: a key administrator reads its policy "
                       "(kms:GetKeyPolicy), or read this again once an object can be read")


def _refused_key(read: Outcome[Any, Any], arn: str) -> dict[str, Any]:
    """The read's refusal as KMS's: S3 authorised s3:GetObject (its link says so) and KMS refused kms:Decrypt, so
    this link's evidence names kms:Decrypt, never the S3 action the call was made for."""
    found = read.error.brief() if read.error is not None else {}
    return found | {"message": f"Access denied: S3 authorised the read (s3:GetObject); KMS refused the caller "
                               f"kms:Decrypt on {arn}", "action": "kms:Decrypt"}


def _decrypt_fix(subject: Subject, arn: str, policy_of_key: Outcome[Any, Any] | None) -> list[Any]:
    """The key policy's denying statements out and an Allow in where the key policy is readable and does not let
    IAM policies grant it; else the identity statement (a key policy that delegates to IAM needs no more)."""
    policy = policy_of_key.value if policy_of_key is not None and policy_of_key.ok else None
    delegated = delegates(policy, "kms:Decrypt", arn, subject.account)
    denying = statements(policy, "Deny", "kms:Decrypt", arn, subject.identities, subject.account) if policy else []
    if policy and subject.principal and (denying or not delegated):
        key_id = arn.rsplit("/", 1)[-1]
        return [resource_policy_fix("key_policy", arn, policy, subject.principal, ["kms:Decrypt"], "*", denying,
                                    f"aws kms put-key-policy --key-id {key_id} --policy-name default "
                                    "--policy {policy}", subject.identities, subject.reach)]
    return [identity_fix(subject.principal, ["kms:Decrypt"], [arn], subject.reach)]


def s3_location(uri: str | None) -> tuple[str, str] | None:
    if not uri or not uri.startswith("s3://"):
        return None
    parsed = urlparse(uri)
    prefix = parsed.path.lstrip("/")
    return parsed.netloc, prefix if not prefix or prefix.endswith("/") else prefix + "/"
