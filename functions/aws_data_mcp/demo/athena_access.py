"""What the demo's Athena checks as the caller before it reads, as Athena does (demo and tests only, never in Lambda).

A query runs with its caller's rights: the one who signed StartQueryExecution. Before the engine reads a table,
``CallerAccess`` checks what Athena checks, in its order, and fails the query with Athena's own words when a link
breaks:

* the result location: ``s3:PutObject`` on ``<output>/<id>.csv`` (and ``kms:GenerateDataKey`` on the workgroup's
  SSE-KMS key for results);
* Glue: ``glue:GetTable`` (and ``glue:GetPartitions`` for a partitioned table) on the catalog, database and table;
* Lake Formation, where the table's location is registered: ``lakeformation:GetDataAccess``, then the caller's
  grants on the table (SELECT or ALL, on the table or on some columns: a query sees only the columns granted, so
  any other is Athena's COLUMN_NOT_FOUND). LF then vends the data's credentials: the caller's S3 and KMS rights
  do not matter there;
* elsewhere S3: ``s3:ListBucket`` on the bucket and ``s3:GetObject`` on each object read, with the bucket's policy;
  ``kms:Decrypt`` on each SSE-KMS object's key, with the key's policy.

Policies are evaluated the way moto's own IAM enforcement evaluates them (``moto.iam.access_control``: the
principal's identity policies, ``IAMPolicy``); a resource policy adds its statements that name the caller, and an
explicit deny in any wins. A KMS key policy decides alone, except where it delegates to the account's IAM (the root
principal), as AWS evaluates key policies. LF grants are read from moto's Lake Formation backend.
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
    IAMUserAccessKey,
    PermissionResult,
    create_access_key,
)
from moto.kms.models import kms_backends
from moto.lakeformation.models import lakeformation_backends
from moto.s3.models import s3_backends

from .lake_files import Source
from .lake_query import QueryFailure

PERMISSION_ERROR = 1500
"""AthenaError.ErrorType of an IAM permission error (Glue, Lake Formation's GetDataAccess)."""
S3_PERMISSION_ERROR = 1501
"""AthenaError.ErrorType of an Amazon S3 permission error (reading the data, writing the results, their keys)."""
LAKE_FORMATION_ERROR = 234
"""AthenaError.ErrorType of a Lake Formation error (no grant on the table)."""
_ALL_COLUMNS_PERMISSIONS = frozenset({"SELECT", "ALL"})
_EVERYONE_IAM_ALLOWS = "IAM_ALLOWED_PRINCIPALS"


@dataclass(frozen=True)
class Caller:
    """Who signed the query: their ARN, the ARNs a policy may name them by, and their identity policies."""

    arn: str
    names: frozenset[str]
    """The caller's ARN and, for a role session, the role's: a policy's Principal names either."""
    policies: tuple[IAMPolicy, ...]
    account_id: str


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
    if isinstance(key, AssumedRoleAccessKey):
        names.add(f"arn:{partition}:iam::{key.account_id}:role/{key._owner_role_name}")
    assert isinstance(key, IAMUserAccessKey | AssumedRoleAccessKey)
    return Caller(key.arn, frozenset(names), tuple(IAMPolicy(p) for p in key.collect_policies()), key.account_id)


# --------------------------------------------------------------------------- policy evaluation

@dataclass(frozen=True)
class Verdict:
    allowed: bool
    why: str
    """AWS's reason for a denial ("because no identity-based policy allows the s3:GetObject action")."""


def _statements(document: str | None) -> list[dict[str, Any]]:
    if not document:
        return []
    statements = json.loads(document).get("Statement", [])
    return statements if isinstance(statements, list) else [statements]


def _named(statement: Mapping[str, Any], names: Iterable[str]) -> bool:
    """Whether a resource policy statement's Principal names one of `names` (or everyone)."""
    principal = statement.get("Principal")
    if principal == "*":
        return True
    listed = principal.get("AWS", []) if isinstance(principal, dict) else []
    listed = [listed] if isinstance(listed, str) else listed
    return "*" in listed or any(name in listed for name in names)


def _evaluate(statements: list[dict[str, Any]], action: str, resource: str) -> PermissionResult:
    if not statements:
        return PermissionResult.NEUTRAL
    without_principal = [{k: v for k, v in s.items() if k != "Principal"} for s in statements]
    return IAMPolicy(json.dumps({"Statement": without_principal})).is_action_permitted(action, resource)


def for_everyone(document: str | None, action: str, resource: str) -> PermissionResult:
    """What a resource policy's statements naming everyone (``*``) say: all an unsigned request is held to."""
    return _evaluate([s for s in _statements(document) if _named(s, ())], action, resource)


def decide(caller: Caller, action: str, resource: str, resource_policy: str | None = None, *,
           key_policy: bool = False) -> Verdict:
    """Whether `caller` may do `action` on `resource`: identity policies and, if any, the resource's policy.

    With `key_policy`, the resource policy is a KMS key's: it must allow the caller itself, or delegate to the
    account's IAM (its root principal) where the identity policies then allow.
    """
    identity = {policy.is_action_permitted(action, resource) for policy in caller.policies}
    statements = _statements(resource_policy)
    named = _evaluate([s for s in statements if _named(s, caller.names)], action, resource)
    if PermissionResult.DENIED in identity:
        return Verdict(False, "with an explicit deny in an identity-based policy")
    if named is PermissionResult.DENIED:
        return Verdict(False, "with an explicit deny in a resource-based policy")
    if key_policy:
        root = f"arn:aws:iam::{caller.account_id}:root"
        delegated = _evaluate([s for s in statements if _named(s, {root})], action, resource)
        if named is PermissionResult.PERMITTED or (
                delegated is PermissionResult.PERMITTED and PermissionResult.PERMITTED in identity):
            return Verdict(True, "")
        return Verdict(False, f"because no resource-based policy allows the {action} action")
    if named is PermissionResult.PERMITTED or PermissionResult.PERMITTED in identity:
        return Verdict(True, "")
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
    """The checks of one query, as its caller (``lake_query.Access``)."""

    def __init__(self, caller: Caller, region: str, database: str | None) -> None:
        self._caller = caller
        self._account = caller.account_id
        self._region = region
        self._database = database or "default"
        self._s3 = s3_backends[self._account]["aws"]

    # -- the result location

    def results(self, output_location: str, encryption: Mapping[str, Any] | None) -> None:
        """``s3:PutObject`` of the result file, and the results' KMS key when the workgroup encrypts with one."""
        bucket, key = _split(output_location)
        verdict = self._s3_verdict("s3:PutObject", bucket, key)
        if verdict.allowed and (encryption or {}).get("EncryptionOption") in ("SSE_KMS", "CSE_KMS"):
            key_arn = str(encryption.get("KmsKey", "")) if encryption else ""
            verdict = self._kms_verdict("kms:GenerateDataKey", key_arn)
            resource = key_arn
        else:
            resource = _s3_arn(bucket, key)
        if not verdict.allowed:
            action = "kms:GenerateDataKey" if resource.startswith("arn:aws:kms") else "s3:PutObject"
            raise QueryFailure(
                f"Access denied when writing output to url: {output_location} . Please ensure you are allowed to "
                "access the S3 bucket. If you are encrypting query results with KMS key, please ensure you are "
                f"allowed to access your KMS key ({not_authorized(self._caller, action, resource, verdict)})",
                error_type=S3_PERMISSION_ERROR)

    # -- the catalog (lake_query calls these while it resolves a table)

    def catalog(self, database: str, table: str, partitioned: bool) -> None:
        """``glue:GetTable`` (and ``glue:GetPartitions``) on the catalog, the database and the table."""
        prefix = f"arn:aws:glue:{self._region}:{self._account}"
        arns = (f"{prefix}:catalog", f"{prefix}:database/{database}", f"{prefix}:table/{database}/{table}")
        for action in ("glue:GetTable", *(("glue:GetPartitions",) if partitioned else ())):
            for arn in arns:
                verdict = decide(self._caller, action, arn)
                if not verdict.allowed:
                    raise QueryFailure(
                        "Insufficient permissions to execute the query. "
                        f"{not_authorized(self._caller, action, arn, verdict)} (Service: AWSGlue; Status Code: "
                        "400; Error Code: AccessDeniedException)", error_type=PERMISSION_ERROR)

    def columns(self, database: str, table: str, definition: Mapping[str, Any]) -> frozenset[str] | None:
        """The columns Lake Formation lets the caller read (None: the location is not LF's, IAM and S3 decide)."""
        location = definition["StorageDescriptor"]["Location"]
        backend = lakeformation_backends[self._account][self._region]
        bucket, key = _split(location)
        arn = _s3_arn(bucket, key.rstrip("/"))
        if not any(arn == registered or arn.startswith(f"{registered}/") for registered in backend.resources):
            return None
        verdict = decide(self._caller, "lakeformation:GetDataAccess", "*")
        if not verdict.allowed:
            raise QueryFailure(
                "Insufficient permissions to execute the query. "
                f"{not_authorized(self._caller, 'lakeformation:GetDataAccess', '*', verdict)}",
                error_type=PERMISSION_ERROR)
        names = [c["Name"] for c in definition["StorageDescriptor"]["Columns"]]
        names += [k["Name"] for k in definition.get("PartitionKeys") or []]
        granted = self._granted_columns(database, table, names)
        if not granted:
            raise QueryFailure(f"Insufficient Lake Formation permission(s) on {table} (Service: AWSGlue; Status "
                               "Code: 400; Error Code: AccessDeniedException)", error_type=LAKE_FORMATION_ERROR)
        return granted

    def _granted_columns(self, database: str, table: str, names: list[str]) -> frozenset[str]:
        backend = lakeformation_backends[self._account][self._region]
        catalog = backend.grants.get(self._account)
        principals = {*self._caller.names, _EVERYONE_IAM_ALLOWS}
        granted: set[str] = set()
        for grant in catalog.permissions if catalog is not None else ():
            if grant.principal.get("DataLakePrincipalIdentifier") not in principals:
                continue
            if not _ALL_COLUMNS_PERMISSIONS & {*grant.permissions, *grant.permissions_with_grant_options}:
                continue
            granted |= _columns_of(grant.resource, database, table, names)
        return frozenset(granted)

    # -- the data (outside Lake Formation)

    def read(self, source: Source) -> None:
        """``s3:ListBucket`` on each bucket read, ``s3:GetObject`` and ``kms:Decrypt`` on each object."""
        location = source.definition["StorageDescriptor"]["Location"]
        listed: set[str] = set()
        for _, path, key in source.objects:
            bucket, name = _split(path)
            if bucket not in listed:
                self._require(self._s3_verdict("s3:ListBucket", bucket), "s3:ListBucket", _s3_arn(bucket),
                              location)
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

    def _s3_verdict(self, action: str, bucket: str, key: str = "") -> Verdict:
        if bucket not in self._s3.buckets:  # nothing to read or write there, as AWS answers it
            return Verdict(False, "because the bucket does not exist")
        return s3_verdict(self._caller, action, bucket, key)

    def _key_arn(self, key_id: str) -> str:
        return key_arn(key_id, self._region, self._account)

    def _kms_verdict(self, action: str, key: str) -> Verdict:
        return kms_verdict(self._caller, action, key, self._region)


def s3_verdict(caller: Caller, action: str, bucket: str, key: str = "") -> Verdict:
    """`action` on the bucket (or an object of it) as S3 decides it: the caller's identity policies and the bucket's
    policy (none where the bucket does not exist: then S3 answers that)."""
    found = s3_backends[caller.account_id]["aws"].buckets.get(bucket)
    policy = found.policy if found is not None else None
    document = policy.decode() if isinstance(policy, bytes) else policy
    return decide(caller, action, _s3_arn(bucket, key), document)


def key_arn(key_id: str, region: str, account_id: str) -> str:
    if key_id.startswith("arn:"):
        return key_id
    return f"arn:aws:kms:{region}:{account_id}:key/{key_id}"


def kms_verdict(caller: Caller, action: str, arn: str, region: str) -> Verdict:
    """`action` on a KMS key as KMS decides it: its key policy, and IAM's where the key policy delegates to it."""
    key_id = arn.rsplit("/", 1)[-1]
    region = arn.split(":")[3] if arn.startswith("arn:") else region
    key = kms_backends[caller.account_id][region].keys.get(key_id)
    if key is None:  # a key that does not exist (or is another account's) cannot be used
        return Verdict(False, "because the key does not exist or is not accessible")
    return decide(caller, action, key.arn, key.policy, key_policy=True)


def _columns_of(resource: Mapping[str, Any], database: str, table: str, names: list[str]) -> set[str]:
    """The columns of `database.table` a grant's LF resource covers (none when it is another table's)."""
    whole = resource.get("Table")
    if whole is not None:
        same = whole.get("DatabaseName") == database and (whole.get("Name") == table or "TableWildcard" in whole)
        return set(names) if same else set()
    columns = resource.get("TableWithColumns")
    if columns is None or columns.get("DatabaseName") != database or columns.get("Name") != table:
        return set()
    if "ColumnWildcard" in columns:
        excluded = set((columns["ColumnWildcard"] or {}).get("ExcludedColumnNames") or [])
        return {name for name in names if name not in excluded}
    return {name for name in names if name in set(columns.get("ColumnNames") or [])}
