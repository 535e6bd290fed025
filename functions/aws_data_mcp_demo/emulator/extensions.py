"""What moto lacks of a real AWS account, filled in on moto's own classes.

The product is written for real AWS. Where moto differs, the gap is filled here.
Each ``Extension`` replaces one attribute of one moto class; ``EXTENSIONS`` lists them all.
To add one, write it in its service's module and add a row to that service's tuple.
"""

import functools
import json
import threading
from collections.abc import Callable
from typing import Any

from moto.athena.responses import AthenaResponse
from moto.core.authorization import ActionAuthenticatorMixin
from moto.core.exceptions import (
    AccessDeniedError,
    InvalidClientTokenIdError,
    JsonRESTError,
    SignatureDoesNotMatchError,
)
from moto.core.responses import BaseResponse
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.responses import DynamoHandler
from moto.glue.responses import GlueResponse
from moto.iam.access_control import PermissionResult, S3IAMRequest
from moto.iam.responses import IamResponse
from moto.lakeformation.models import LakeFormationBackend
from moto.lakeformation.responses import LakeFormationResponse
from moto.s3.exceptions import MethodNotAllowed, S3ClientError
from moto.s3.models import FakeBucket, s3_backends

from aws_data_mcp_demo.access.decisions import (
    bucket_owner,
    caller_of,
    caller_of_key,
    for_everyone,
    key_arn,
    kms_verdict,
    not_authorized,
    s3_verdict,
)
from aws_data_mcp_demo.access.request_context import s3_request_keys, via_s3
from aws_data_mcp_demo.emulator.athena import ATHENA, EXECUTION_DETAILS_ATTR
from aws_data_mcp_demo.emulator.column_statistics import COLUMN_STATISTICS
from aws_data_mcp_demo.emulator.data_quality import DATA_QUALITY
from aws_data_mcp_demo.emulator.iam_simulator import simulate_principal_policy
from aws_data_mcp_demo.emulator.lake_formation import list_permissions as every_grant_listed
from aws_data_mcp_demo.emulator.paging import BUCKET_REGIONS, GLUE, LISTING_PAGES, PAGE_LIMITS
from aws_data_mcp_demo.emulator.patch import Extension
from aws_data_mcp_demo.emulator.s3_tables import S3_TABLES
from aws_data_mcp_demo.emulator.s3_tables_access import S3_TABLES_ACCESS, add_routes
from aws_data_mcp_demo.emulator.search import SEARCH
from aws_data_mcp_demo.emulator.shared_tables import SHARED_TABLES
from aws_data_mcp_demo.emulator.signing import SIGNING

__all__ = ["ATHENA", "AUTHORISATION", "BUCKET_REGIONS", "DYNAMODB", "EXECUTION_DETAILS_ATTR", "EXTENSIONS", "GLUE",
           "IAM", "LISTING_PAGES", "PAGE_LIMITS", "RESOURCE_CHECKS", "S3_TABLES", "SIGNING", "Extension",
           "install_moto_extensions"]

# --------------------------------------------------------------------------- authorisation

def _athena_determine_resource(self: AthenaResponse) -> str:
    """The ARN an Athena request acts on, so IAM statements scoped to a workgroup apply."""
    try:
        workgroup = self._get_param("WorkGroup")
        if not workgroup and (execution_id := self._get_param("QueryExecutionId")):
            execution = self.athena_backend.executions.get(execution_id)
            workgroup = execution.workgroup.name if execution is not None and execution.workgroup else None
    except Exception:  # a malformed body is the handler's business, not the authoriser's
        return "*"
    if not workgroup or not isinstance(workgroup, str):
        return "*"
    return f"arn:{self.partition}:athena:{self.region}:{self.current_account}:workgroup/{workgroup}"


def _dynamodb_determine_resource(self: DynamoHandler) -> str:
    """The table a DynamoDB request acts on, so a statement scoped to one table applies (moto checks `*`)."""
    try:
        table = self._get_param("TableName")
    except Exception:  # a malformed body is the handler's business, not the authoriser's
        return "*"
    if not table or not isinstance(table, str):
        return "*"
    return f"arn:{self.partition}:dynamodb:{self.region}:{self.current_account}:table/{table}"


_UNSIGNED_ACTIONS = frozenset({"AssumeRoleWithWebIdentity", "AssumeRoleWithSAML"})
_moto_authorize = ActionAuthenticatorMixin._authenticate_and_authorize_normal_action


def _authorize_with_protocol_errors(self: BaseResponse, resource: str = "*") -> None:
    """moto's IAM check, with errors shaped like the service's protocol (JSON for Athena/Glue/SSO).

    STS serves AssumeRoleWithWebIdentity unsigned (the token is the credential): moto's check would
    fail on the missing signature, so it is not applied there, as AWS does not apply one.
    """
    if self._get_action() in _UNSIGNED_ACTIONS:
        return
    try:
        _moto_authorize(self, resource)
    except (AccessDeniedError, InvalidClientTokenIdError, SignatureDoesNotMatchError) as error:
        if not self.headers.get("X-Amz-Target"):  # query/XML protocols already get the right shape
            raise
        if isinstance(error, AccessDeniedError):
            suffix = f" on resource: {resource}" if resource != "*" else ""
            raise JsonRESTError("AccessDeniedException", f"{error.message}{suffix}") from error
        if isinstance(error, InvalidClientTokenIdError):
            raise JsonRESTError("UnrecognizedClientException", error.message) from error
        raise JsonRESTError("InvalidSignatureException", error.message) from error


# --------------------------------------------------------------------------- resource checks

OWNERS_ONLY = frozenset({"s3:GetBucketPolicy", "s3:PutBucketPolicy", "s3:DeleteBucketPolicy"})
"""What S3 serves only to identities of the bucket owner's account, whatever a bucket policy grants another."""


def _s3_check_action_permitted(self: S3IAMRequest, resource: str) -> None:
    """S3's decision: identity policies and the bucket policy; then, for a GET of an SSE-KMS object, its key."""
    caller = caller_of_key(self._access_key, self._access_key.partition)
    bucket, _, key = resource.split(":::", 1)[-1].partition("/")
    keys = s3_request_keys(self._action, self._data or {}, self._headers or {})
    if not s3_verdict(caller, self._action, bucket, key, caller.context(**keys)).allowed:
        self._raise_access_denied()
    if self._action in OWNERS_ONLY and bucket_owner(bucket) not in (None, caller.account_id):
        raise MethodNotAllowed()  # S3: permitted, but not an identity of the bucket owner's account (405)
    if self._action != "s3:GetObject" or self._method != "GET" or not key:
        return
    found = s3_backends[caller.account_id]["aws"].buckets.get(bucket)
    stored = found.keys.get(key) if found is not None else None
    if stored is None or stored.encryption != "aws:kms" or not stored.kms_key_id:
        return
    arn = key_arn(stored.kms_key_id, self._region, caller.account_id)
    verdict = kms_verdict(caller, "kms:Decrypt", arn, self._region, via_s3(caller.context(), self._region))
    if not verdict.allowed:
        raise S3ClientError("AccessDenied", not_authorized(caller, "kms:Decrypt", arn, verdict))


def _bucket_permission(self: FakeBucket, action: str, resource: str) -> PermissionResult:
    """What moto weighs before authorising an object request: only the statements naming everyone (moto weighs
    every statement, so a Deny naming one role refused all); those naming the signer are weighed with it above."""
    policy = self.policy.decode() if isinstance(self.policy, bytes) else self.policy
    return for_everyone(policy, action, resource)


def _iam_determine_resource(self: IamResponse) -> str:
    """The principal a SimulatePrincipalPolicy request simulates, so a caller may be allowed to simulate itself
    only, as IAM scopes it (moto checks `*`)."""
    if self._get_action() == "SimulatePrincipalPolicy":
        return str(self._get_param("PolicySourceArn") or "*")
    return _moto_iam_resource(self)


def _glue_determine_resource(self: GlueResponse) -> str:
    """The database or table a Glue request names, so a statement scoped to one applies (moto checks `*`)."""
    try:
        database = self._get_param("DatabaseName") or self._get_param("Name")
        table = self._get_param("TableName") or (self._get_param("Name") if self._get_param("DatabaseName") else None)
    except Exception:  # a malformed body is the handler's business, not the authoriser's
        return "*"
    if not isinstance(database, str):
        return "*"
    owner = self._get_param("CatalogId") or self.current_account  # another account's: a shared table's ARN
    head = f"arn:{self.partition}:glue:{self.region}:{owner}"
    return f"{head}:table/{database}/{table}" if isinstance(table, str) else f"{head}:database/{database}"


_moto_iam_resource = IamResponse._determine_resource
_moto_list_permissions = LakeFormationBackend.list_permissions
_READS = frozenset({"SELECT", "ALL"})


def _list_permissions_with_columns(self: LakeFormationBackend, catalog_id: str, principal: Any = None,
                                   resource: Any = None, resource_type: Any = None) -> list[dict[str, Any]]:
    """A table's grants with its column grants (TableWithColumns), which AWS lists and moto leaves out."""
    found = _moto_list_permissions(self, catalog_id, principal, resource, resource_type)
    table = getattr(resource, "table", None)
    if table is None or catalog_id not in self.grants:
        return found
    for permission in self.grants[catalog_id].permissions:
        columns = permission.resource.get("TableWithColumns")
        if columns and (columns["DatabaseName"], columns["Name"]) == (table.database_name, table.name) and (
                principal is None or permission.principal == principal):
            found.append(permission.to_external_form())
    return found


def _lakeformation_list_permissions(self: LakeFormationResponse) -> str:
    """ListPermissions "filtered by the permissions of the caller" (AWS's words): a caller who is not a data lake
    administrator sees, of each grant, only the permissions it holds itself on the resource (a column grant's
    SELECT counting as SELECT)."""
    answer = every_grant_listed(self)
    caller = caller_of(self)
    if caller is None:
        return answer
    settings = self.lakeformation_backend.settings[self._get_param("CatalogId") or self.current_account]
    admins = {(a or {}).get("DataLakePrincipalIdentifier") for a in settings.get("DataLakeAdmins") or []}
    if caller.names & admins:
        return answer
    grants = json.loads(answer)["PrincipalResourcePermissions"]
    mine = {*caller.names, "IAM_ALLOWED_PRINCIPALS"}
    held = {p for g in grants if g["Principal"]["DataLakePrincipalIdentifier"] in mine for p in g["Permissions"]}
    held |= {"SELECT"} if held & _READS else set()
    seen = [g | {"Permissions": [p for p in g["Permissions"] if p in held or "ALL" in held],
                 "PermissionsWithGrantOption": [p for p in g.get("PermissionsWithGrantOption") or [] if p in held]}
            for g in grants]
    return json.dumps({"PrincipalResourcePermissions": [g for g in seen if g["Permissions"]]})


# --------------------------------------------------------------------------- DynamoDB

_DYNAMODB_WRITES = threading.RLock()


def _atomic_write(write: Callable[..., Any]) -> Callable[..., Any]:
    """A DynamoDB write whose condition check and write happen as one step, as on AWS: moto's server
    answers each request in its own thread and checks a ConditionExpression without a lock."""

    @functools.wraps(write)
    def serialised(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with _DYNAMODB_WRITES:
            return write(self, *args, **kwargs)

    return serialised


# --------------------------------------------------------------------------- what gets installed

AUTHORISATION: tuple[Extension, ...] = (
    Extension(AthenaResponse, "_determine_resource", _athena_determine_resource),
    Extension(DynamoHandler, "_determine_resource", _dynamodb_determine_resource),
    Extension(BaseResponse, "_authenticate_and_authorize_normal_action", _authorize_with_protocol_errors),
)
DYNAMODB: tuple[Extension, ...] = tuple(
    Extension(DynamoDBBackend, name, _atomic_write(getattr(DynamoDBBackend, name)))
    for name in ("put_item", "update_item", "delete_item", "transact_write_items")
)
IAM: tuple[Extension, ...] = (Extension(IamResponse, "simulate_principal_policy", simulate_principal_policy),)
RESOURCE_CHECKS: tuple[Extension, ...] = (
    Extension(S3IAMRequest, "check_action_permitted", _s3_check_action_permitted),
    Extension(FakeBucket, "get_permission", _bucket_permission),
    Extension(IamResponse, "_determine_resource", _iam_determine_resource),
    Extension(GlueResponse, "_determine_resource", _glue_determine_resource),
    Extension(LakeFormationBackend, "list_permissions", _list_permissions_with_columns),
    Extension(LakeFormationResponse, "list_permissions", _lakeformation_list_permissions),
)

EXTENSIONS: tuple[Extension, ...] = (*AUTHORISATION, *SIGNING, *DYNAMODB, *ATHENA, *GLUE, *S3_TABLES,
                                     *S3_TABLES_ACCESS, *IAM, *RESOURCE_CHECKS, *SEARCH, *COLUMN_STATISTICS,
                                     *DATA_QUALITY, *SHARED_TABLES)
"""Installed wherever moto stands in for AWS (the demo account, the test suite's server, the benchmarks)."""




def install_moto_extensions(opted_in: tuple[Extension, ...] = ()) -> None:
    """Install ``EXTENSIONS`` and those `opted_in` (e.g. ``BUCKET_REGIONS``), for a process that runs moto for tests
    or benchmarks (IAM not enforced).

    A DemoAccount started later saves and restores them like any other process state.
    """
    for extension in (*EXTENSIONS, *opted_in):
        setattr(extension.owner, extension.name, extension.replacement)
    add_routes()
