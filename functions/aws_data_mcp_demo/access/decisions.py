"""What the demo's Athena checks as the caller before it reads, as Athena does.

A query runs with the rights of whoever signed StartQueryExecution.
``CallerAccess`` checks what Athena checks, in its order, and fails with Athena's own words.
moto's engine matches actions and resources; ``conditions`` says which statements apply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin
from moto.iam.access_control import (
    AssumedRoleAccessKey,
    CreateAccessKeyFailure,
    IAMPolicy,
    IAMPolicyStatement,
    IAMUserAccessKey,
    PermissionResult,
    create_access_key,
)
from moto.kms.models import kms_backends
from moto.lakeformation.models import lakeformation_backends
from moto.s3.models import s3_backends

from aws_data_mcp_demo.access.conditions import UNDECIDED, Context, conditions_hold, names_caller, principal_applies
from aws_data_mcp_demo.access.definer import lake_select
from aws_data_mcp_demo.access.lake_formation import governance, holds, opted_in, readable, shared_with
from aws_data_mcp_demo.access.request_context import athena_context, direct_context, via_s3
from aws_data_mcp_demo.access.s3_tables import refusal as s3_tables_refusal
from aws_data_mcp_demo.access.s3_tables import table_reads
from aws_data_mcp_demo.engine.files import Source
from aws_data_mcp_demo.engine.query import QueryFailure

PERMISSION_ERROR = 1500
"""AthenaError.ErrorType of an IAM permission error (Glue, Lake Formation's GetDataAccess)."""
S3_PERMISSION_ERROR = 1501
"""AthenaError.ErrorType of an Amazon S3 permission error (reading the data, writing the results, their keys)."""
LAKE_FORMATION_ERROR = 234
"""AthenaError.ErrorType of a Lake Formation error (no grant on the table)."""


@dataclass(frozen=True)
class Caller:
    """Who signed the query: their ARN, the ARNs a policy may name them by, and their identity policies."""

    arn: str
    names: frozenset[str]
    """The caller's ARN and, for a role session, the role's: a policy's Principal names either."""
    policies: tuple[IAMPolicy, ...]
    account_id: str
    principal_arn: str = ""
    """``aws:PrincipalArn``: the role's ARN for a role session, the user's for a user."""
    boundary: IAMPolicy | None = None
    """The principal's permissions boundary (its managed policy's default version), if it has one."""

    def context(self, **keys: str) -> Context:
        """The context of a request the caller sends itself (``request_context.direct_context``)."""
        return direct_context(self.principal_arn or self.arn, self.account_id, **keys)

    def through_athena(self, **keys: str) -> Context:
        """The context of a request Athena makes as the caller (its forward access session)."""
        return athena_context(self.principal_arn or self.arn, self.account_id, **keys)


def caller_of(request: Any) -> Caller | None:
    """The caller of a moto request while moto enforces IAM (None when it does not: then nothing is checked)."""
    if ActionAuthenticatorMixin.request_count < settings.INITIAL_NO_AUTH_ACTION_COUNT:
        return None
    authorization = request.headers.get("Authorization") or ""
    key_id = authorization.partition("Credential=")[2].split("/", 1)[0]
    try:
        key = create_access_key(request.current_account, request.partition, key_id, dict(request.headers))
    except CreateAccessKeyFailure:  # moto authorised the request, so its key is known
        return None
    return caller_of_key(key, request.partition)


def caller_of_key(key: IAMUserAccessKey | AssumedRoleAccessKey, partition: str) -> Caller:
    """The caller who signed with `key` (a user's, or a role session's)."""
    names = {key.arn}
    principal = key.arn
    if isinstance(key, AssumedRoleAccessKey):
        principal = f"arn:{partition}:iam::{key.account_id}:role/{key._owner_role_name}"
        names.add(principal)
    assert isinstance(key, IAMUserAccessKey | AssumedRoleAccessKey)
    return Caller(key.arn, frozenset(names), tuple(IAMPolicy(p) for p in key.collect_policies()), key.account_id,
                  principal, permissions_boundary(key.backend, principal))


def permissions_boundary_arn(iam: Any, principal: str) -> str | None:
    """A role's permissions boundary's ARN, as IAM keeps it (moto stores a role's, not a user's)."""
    kind, _, name = principal.split(":", 5)[5].partition("/")
    found = next((r for r in iam.roles.values() if r.name == name.rsplit("/", 1)[-1]), None) if kind == "role" \
        else None
    return getattr(found, "permissions_boundary_arn", None)


def permissions_boundary(iam: Any, principal: str) -> IAMPolicy | None:
    """A role's permissions boundary (its managed policy's default version), if it has one."""
    arn = permissions_boundary_arn(iam, principal)
    return IAMPolicy(iam.get_policy(arn)) if arn else None


# --------------------------------------------------------------------------- policy evaluation

@dataclass(frozen=True)
class Verdict:
    allowed: bool
    why: str
    """AWS's reason for a denial ("because no identity-based policy allows the s3:GetObject action")."""


def _statements(document: str | Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if not document:
        return []
    parsed = json.loads(document) if isinstance(document, str) else document
    statements = parsed.get("Statement", [])
    return statements if isinstance(statements, list) else [statements]


def _evaluate(statements: Iterable[Mapping[str, Any]], action: str, resource: str,
              context: Context) -> PermissionResult:
    """moto's reading of the statements that apply in `context` (an undecidable condition: a Deny applies, an Allow
    does not), for the action and resource (``NotResource`` too, which moto does not read)."""
    applying = []
    for statement in statements:
        holds = conditions_hold(statement, context)
        if not holds and not (holds is UNDECIDED and statement.get("Effect") == "Deny"):
            continue
        kept = {k: v for k, v in statement.items() if k not in ("Principal", "NotPrincipal", "Condition")}
        if "NotResource" in kept:
            if IAMPolicyStatement({"Resource": kept.pop("NotResource")})._check_element_matches("Resource", resource):
                continue
            kept["Resource"] = "*"
        applying.append(kept)
    if not applying:
        return PermissionResult.NEUTRAL
    return IAMPolicy(json.dumps({"Statement": applying})).is_action_permitted(action, resource)


def policy_says(document: str | Mapping[str, Any] | None, action: str, resource: str,
                context: Context) -> PermissionResult:
    """What one policy's statements say of the request, alone: DENIED, PERMITTED or NEUTRAL."""
    return _evaluate(_statements(document), action, resource, context)


def for_everyone(document: str | None, action: str, resource: str) -> PermissionResult:
    """What a resource policy's unconditional statements naming everyone (``*``) say: all an unsigned request is
    held to."""
    everyone = [s for s in _statements(document) if names_caller(s, ()) and "Condition" not in s]
    return _evaluate(everyone, action, resource, {})


def decide(caller: Caller, action: str, resource: str, resource_policy: str | None = None, *,
           key_policy: bool = False, context: Context | None = None, owner: str | None = None) -> Verdict:
    """Whether `caller` may do `action` on `resource`: identity policies and, if any, the resource's policy, in the
    request's `context` (a direct request of the caller's by default).

    With `key_policy`, the resource policy is a KMS key's: it must allow the caller itself, or delegate to the
    account's IAM (its root principal) where the identity policies then allow. A resource `owner` other than the
    caller's account must allow the caller (or its account) in its policy, besides the caller's IAM.
    """
    context = caller.context() if context is None else context
    identity = {_evaluate(_statements(policy._policy_json), action, resource, context) for policy in caller.policies}
    statements = [s for s in _statements(resource_policy) if principal_applies(s, caller.names, caller.account_id)]
    denies = _evaluate([s for s in statements if s.get("Effect") == "Deny"], action, resource, context)
    allows = [s for s in statements if s.get("Effect") == "Allow"]
    named = _evaluate([s for s in allows if names_caller(s, caller.names)], action, resource, context)
    trusted = _evaluate(allows, action, resource, context)  # naming the caller, or its account
    bound = _evaluate(_statements(caller.boundary._policy_json), action, resource, context) \
        if caller.boundary is not None else PermissionResult.PERMITTED
    if PermissionResult.DENIED in identity:
        return Verdict(False, "with an explicit deny in an identity-based policy")
    if bound is PermissionResult.DENIED:
        return Verdict(False, "with an explicit deny in a permissions boundary")
    if denies is PermissionResult.DENIED:
        return Verdict(False, "with an explicit deny in a resource-based policy")
    # A boundary caps what identity policies grant, and a resource policy's grant to a role (not its session): a
    # grant to the user or the role session itself is not capped (IAM's policy evaluation logic).
    capped = bound is not PermissionResult.PERMITTED
    direct = _evaluate([s for s in allows if names_caller(s, (caller.arn,))], action, resource, context)
    by_resource = named is PermissionResult.PERMITTED and (not capped or direct is PermissionResult.PERMITTED)
    by_identity = PermissionResult.PERMITTED in identity
    no_boundary = Verdict(False, f"because no permissions boundary allows the {action} action")
    if key_policy:
        if by_resource or (trusted is PermissionResult.PERMITTED and by_identity and not capped):
            return Verdict(True, "")
        if named is PermissionResult.PERMITTED or (trusted is PermissionResult.PERMITTED and by_identity):
            return no_boundary
        return Verdict(False, f"because no resource-based policy allows the {action} action")
    if owner is not None and owner != caller.account_id:
        if trusted is not PermissionResult.PERMITTED:
            return Verdict(False, f"because no resource-based policy allows the {action} action")
        if by_identity:
            return no_boundary if capped else Verdict(True, "")
        return Verdict(False, f"because no identity-based policy allows the {action} action")
    if by_resource or (by_identity and not capped):
        return Verdict(True, "")
    if by_identity or named is PermissionResult.PERMITTED:
        return no_boundary
    return Verdict(False, f"because no identity-based policy allows the {action} action")


def not_authorized(caller: Caller, action: str, resource: str, verdict: Verdict) -> str:
    return f"User: {caller.arn} is not authorized to perform: {action} on resource: {resource} {verdict.why}"


# --------------------------------------------------------------------------- what Athena checks

def _s3_arn(bucket: str, key: str = "") -> str:
    return f"arn:aws:s3:::{bucket}" + (f"/{key}" if key else "")


def _split(location: str) -> tuple[str, str]:
    bucket, _, key = location.removeprefix("s3://").partition("/")
    return bucket, key


class CallerAccess:
    """The checks of one query, as its caller (``lake_query.Access``), each request Athena's (forward access)."""

    def __init__(self, caller: Caller, region: str, database: str | None) -> None:
        self._caller = caller
        self._account = caller.account_id
        self._region = region
        self._database = database or "default"
        self._row_filters: dict[tuple[str, str], str] = {}

    # -- the result location

    def results(self, output_location: str, encryption: Mapping[str, Any] | None,
                expected_owner: str | None = None) -> None:
        """``s3:PutObject`` of the result file, and the results' KMS key when the workgroup encrypts with one; then
        reading them back (``s3:GetObject``, ``kms:Decrypt``), as GetQueryResults does. Athena sends the workgroup's
        ExpectedBucketOwner with each request: S3 refuses them all where another account owns the bucket."""
        bucket, key = _split(output_location)
        if expected_owner and bucket_owner(bucket) not in (None, expected_owner):
            denied = not_authorized(self._caller, "s3:PutObject", _s3_arn(bucket, key), Verdict(
                False, "because the bucket is not owned by the expected bucket owner"))
            raise QueryFailure(
                f"Access denied when writing output to url: {output_location} . Please ensure you are allowed to "
                f"access the S3 bucket. ({denied})", error_type=S3_PERMISSION_ERROR)
        option = (encryption or {}).get("EncryptionOption")
        sse = {"SSE_S3": "AES256", "SSE_KMS": "aws:kms"}.get(str(option))
        written = self._caller.through_athena(**({"s3:x-amz-server-side-encryption": sse} if sse else {}))
        key_arn = str((encryption or {}).get("KmsKey", "")) if option in ("SSE_KMS", "CSE_KMS") else ""
        steps = [("s3:PutObject", written, "kms:GenerateDataKey"), ("s3:GetObject", None, "kms:Decrypt")]
        for s3_action, context, kms_action in steps:
            verdict, action, resource = self._s3_verdict(s3_action, bucket, key, context), s3_action, \
                _s3_arn(bucket, key)
            if verdict.allowed and key_arn:
                verdict = self._kms_verdict(kms_action, key_arn)
                action, resource = kms_action, key_arn
            if verdict.allowed:
                continue
            denied = not_authorized(self._caller, action, resource, verdict)
            if s3_action == "s3:PutObject":
                raise QueryFailure(
                    f"Access denied when writing output to url: {output_location} . Please ensure you are allowed "
                    "to access the S3 bucket. If you are encrypting query results with KMS key, please ensure you "
                    f"are allowed to access your KMS key ({denied})", error_type=S3_PERMISSION_ERROR)
            raise QueryFailure(
                f"Access denied when reading the query results from url: {output_location} . Please ensure you are "
                "allowed to read the S3 bucket. If you are encrypting query results with KMS key, please ensure you "
                f"are allowed to decrypt with your KMS key ({denied})", error_type=S3_PERMISSION_ERROR)

    # -- the catalog (lake_query calls these while it resolves a table)

    def catalog(self, database: str, table: str, partitioned: bool) -> None:
        """``glue:GetTable`` (and ``glue:GetPartitions``) on the catalog, the database and the table."""
        prefix = f"arn:aws:glue:{self._region}:{self._account}"
        arns = (f"{prefix}:catalog", f"{prefix}:database/{database}", f"{prefix}:table/{database}/{table}")
        for action in ("glue:GetTable", *(("glue:GetPartitions",) if partitioned else ())):
            for arn in arns:
                verdict = decide(self._caller, action, arn, context=self._caller.through_athena())
                if not verdict.allowed:
                    raise QueryFailure(
                        "Insufficient permissions to execute the query. "
                        f"{not_authorized(self._caller, action, arn, verdict)} (Service: AWSGlue; Status Code: "
                        "400; Error Code: AccessDeniedException)", error_type=PERMISSION_ERROR)

    def data_catalog_view(self, database: str, view: str, definition: Mapping[str, Any]) -> None:
        """A Data Catalog view: the caller's own Lake Formation SELECT on it (``access.definer``)."""
        lake_select(self._account, self._region, self._caller.names, database, view, definition)

    def columns(self, database: str, table: str, definition: Mapping[str, Any]) -> frozenset[str] | None:
        """The columns Lake Formation lets the caller read (None: LF does not decide the caller's reads of this
        location, IAM and S3 do: not registered, or hybrid and the caller did not opt in)."""
        location = definition["StorageDescriptor"]["Location"]
        backend = lakeformation_backends[self._account][self._region]
        bucket, key = _split(location)
        found = governance(backend, _s3_arn(bucket, key.rstrip("/")))
        if found.registered is None:
            return None
        opted = found.hybrid and opted_in(backend, self._caller.names, database, table)
        if found.hybrid and not opted:
            return None
        return self._granted(database, table, definition, opted)

    def shared(self, database: str, link: str, target: Mapping[str, Any],
               definition: Mapping[str, Any]) -> frozenset[str]:
        """A resource link's checks, as Lake Formation makes them: DESCRIBE on the link, then ``glue:GetTable`` on
        the target in its owner's catalog (shared with this account), then SELECT on the target (the grant this
        account's catalog holds). The target's data is then read through Lake Formation, not as the caller."""
        backend = lakeformation_backends[self._account][self._region]
        if not holds(backend, self._account, self._caller.names, database, link, frozenset({"DESCRIBE", "ALL"})):
            raise QueryFailure(f"Insufficient Lake Formation permission(s) on {link} (Service: AWSGlue; Status "
                               "Code: 400; Error Code: AccessDeniedException)", error_type=LAKE_FORMATION_ERROR)
        owner, schema, name = str(target.get("CatalogId") or self._account), target["DatabaseName"], target["Name"]
        arn = f"arn:aws:glue:{self._region}:{owner}:table/{schema}/{name}"
        verdict = decide(self._caller, "glue:GetTable", arn, context=self._caller.through_athena())
        if verdict.allowed and owner != self._account and not {(schema, name), (schema, "*")} & shared_with(
                self._account, owner, self._region):
            verdict = Verdict(False, "because no resource-based policy allows the glue:GetTable action")
        if not verdict.allowed:
            raise QueryFailure(
                "Insufficient permissions to execute the query. "
                f"{not_authorized(self._caller, 'glue:GetTable', arn, verdict)} (Service: AWSGlue; Status Code: "
                "400; Error Code: AccessDeniedException)", error_type=PERMISSION_ERROR)
        return self._granted(schema, name, definition, False)

    def _granted(self, database: str, table: str, definition: Mapping[str, Any], opted: bool) -> frozenset[str]:
        """The columns the caller's grants in its own catalog let it read, and Lake Formation's GetDataAccess."""
        backend = lakeformation_backends[self._account][self._region]
        names = [c["Name"] for c in definition["StorageDescriptor"]["Columns"]]
        names += [k["Name"] for k in definition.get("PartitionKeys") or []]
        granted = readable(backend, self._account, self._caller.names, database, table, names, opted)
        if not granted.columns:
            raise QueryFailure(f"Insufficient Lake Formation permission(s) on {table} (Service: AWSGlue; Status "
                               "Code: 400; Error Code: AccessDeniedException)", error_type=LAKE_FORMATION_ERROR)
        verdict = decide(self._caller, "lakeformation:GetDataAccess", "*", context=self._caller.through_athena())
        if not verdict.allowed:
            raise QueryFailure(
                "Insufficient permissions to execute the query. "
                f"{not_authorized(self._caller, 'lakeformation:GetDataAccess', '*', verdict)}",
                error_type=PERMISSION_ERROR)
        if granted.row_filter:
            self._row_filters[(database, table)] = granted.row_filter
        return granted.columns

    def row_filter(self, database: str, table: str) -> str | None:
        """The row filter Lake Formation applies to the caller's reads of the table (after ``columns``), if any."""
        return self._row_filters.get((database, table))

    def s3_table(self, catalog: str, database: str, table: str, bucket_arn: str, table_arn: str) -> None:
        """An S3 table's reads (``access.s3_tables``): Glue's in its bucket's catalog, then S3 Tables'."""
        context = self._caller.through_athena()
        for action, arn in table_reads(self._region, self._account, catalog, database, table, bucket_arn, table_arn):
            verdict = decide(self._caller, action, arn, context=context)
            if not verdict.allowed:
                raise s3_tables_refusal(action, not_authorized(self._caller, action, arn, verdict))

    # -- the data (outside Lake Formation)

    def read(self, source: Source) -> None:
        """``s3:ListBucket`` on each bucket read, ``s3:GetObject`` and ``kms:Decrypt`` on each object."""
        location = source.definition["StorageDescriptor"]["Location"]
        listed: set[str] = set()
        for _, path, key in source.objects:
            bucket, name = _split(path)
            if bucket not in listed:
                prefix = _split(location)[1] if _split(location)[0] == bucket else name.rpartition("/")[0] + "/"
                self._require(self._s3_verdict("s3:ListBucket", bucket, "", self._caller.through_athena(
                    **{"s3:prefix": prefix})), "s3:ListBucket", _s3_arn(bucket), location)
                listed.add(bucket)
            self._require(self._s3_verdict("s3:GetObject", bucket, name), "s3:GetObject", _s3_arn(bucket, name),
                          path)
            if key.encryption == "aws:kms" and key.kms_key_id:
                key_arn = self._key_arn(key.kms_key_id)
                self._require(self._kms_verdict("kms:Decrypt", key_arn), "kms:Decrypt", key_arn, path)

    def _require(self, verdict: Verdict, action: str, resource: str, path: str) -> None:
        if not verdict.allowed:
            service = "AWSKMS; Status Code: 400; Error Code: AccessDeniedException" if action.startswith("kms:") \
                else "Amazon S3; Status Code: 403; Error Code: AccessDenied"
            raise QueryFailure(
                f"Permission denied on S3 path: {path} ({not_authorized(self._caller, action, resource, verdict)} "
                f"(Service: {service})). This query ran against the \"{self._database}\" database, unless "
                "qualified by the query.", error_type=S3_PERMISSION_ERROR)

    def _s3_verdict(self, action: str, bucket: str, key: str = "", context: Context | None = None) -> Verdict:
        if bucket_owner(bucket) is None:  # nothing to read or write there, as AWS answers it
            return Verdict(False, "because the bucket does not exist")
        return s3_verdict(self._caller, action, bucket, key, context or self._caller.through_athena())

    def _key_arn(self, key_id: str) -> str:
        return key_arn(key_id, self._region, self._account)

    def _kms_verdict(self, action: str, key: str) -> Verdict:
        return kms_verdict(self._caller, action, key, self._region, via_s3(self._caller.through_athena(),
                                                                            self._region))


def bucket_owner(bucket: str) -> str | None:
    """The account that owns the bucket (None: no such bucket)."""
    owned = s3_backends.bucket_accounts.get(bucket)
    return owned[1] if owned is not None else None


def s3_verdict(caller: Caller, action: str, bucket: str, key: str = "", context: Context | None = None) -> Verdict:
    """`action` on the bucket (or an object of it) as S3 decides it: the caller's identity policies and the bucket's
    policy (none where the bucket does not exist: then S3 answers that), the bucket's owner's policy alone deciding
    for another account's caller, in the request's `context` (the caller's own request by default)."""
    owner = bucket_owner(bucket) or caller.account_id
    found = s3_backends[owner]["aws"].buckets.get(bucket)
    policy = found.policy if found is not None else None
    document = policy.decode() if isinstance(policy, bytes) else policy
    return decide(caller, action, _s3_arn(bucket, key), document, context=context, owner=owner)


def key_arn(key_id: str, region: str, account_id: str) -> str:
    if key_id.startswith("arn:"):
        return key_id
    return f"arn:aws:kms:{region}:{account_id}:key/{key_id}"


def kms_verdict(caller: Caller, action: str, arn: str, region: str, context: Context | None = None) -> Verdict:
    """`action` on a KMS key as KMS decides it: its key policy, and IAM's where the key policy delegates to it."""
    key_id = arn.rsplit("/", 1)[-1]
    region = arn.split(":")[3] if arn.startswith("arn:") else region
    key = kms_backends[caller.account_id][region].keys.get(key_id)
    if key is None:  # a key that does not exist (or is another account's) cannot be used
        return Verdict(False, "because the key does not exist or is not accessible")
    # KMS puts the caller's account in every request's context (AWS managed keys' policies test it)
    context = {**(caller.context() if context is None else context), "kms:CallerAccount": caller.account_id}
    return decide(caller, action, key.arn, key.policy, key_policy=True, context=context)
