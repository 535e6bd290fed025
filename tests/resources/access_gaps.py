"""What moto 5.2.5 lacks of AWS's access checks, filled in for the explainer's tests (never in production code).

- Glue: moto authorises every Glue action against `*`, so a statement scoped to a table never matches: requests
  are authorised against the database's or table's ARN, as Glue does.
- S3: moto weighs identity policies only. A bucket policy's Deny naming the caller refuses the request, and a read
  of an SSE-KMS object needs kms:Decrypt on its key (the key policy's statements naming the caller, or IAM's where
  the key policy delegates to the account), refused with the message S3 gives (naming kms:Decrypt).
- Lake Formation: ListPermissions on a table leaves out column-level grants (TableWithColumns); AWS lists them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin
from moto.glue.responses import GlueResponse
from moto.iam.access_control import IAMPolicy, PermissionResult, S3IAMRequest
from moto.kms.models import kms_backends
from moto.lakeformation.models import LakeFormationBackend
from moto.s3.exceptions import S3ClientError
from moto.s3.models import s3_backends

_check_s3 = S3IAMRequest.check_action_permitted
_list_permissions = LakeFormationBackend.list_permissions


def _glue_resource(self: GlueResponse) -> str:
    try:
        database = self._get_param("DatabaseName") or self._get_param("Name")
        table = self._get_param("TableName") or (self._get_param("Name") if self._get_param("DatabaseName") else None)
    except Exception:  # a malformed body is the handler's business
        return "*"
    if not isinstance(database, str):
        return "*"
    head = f"arn:aws:glue:{self.region}:{self.current_account}"
    return f"{head}:table/{database}/{table}" if table else f"{head}:database/{database}"


def _naming(policy: dict[str, Any], caller: str, account: str) -> tuple[list[dict[str, Any]], bool]:
    """A resource policy's statements naming the caller (Principal dropped, for moto's evaluator), and whether one
    names the whole account (a key policy delegating to IAM)."""
    named, delegated = [], False
    for statement in policy.get("Statement", []):
        principal = statement.get("Principal")
        aws = principal.get("AWS") if isinstance(principal, dict) else principal
        listed = aws if isinstance(aws, list) else [aws]
        if caller in listed or "*" in listed:
            named.append({k: v for k, v in statement.items() if k != "Principal"})
        if f"arn:aws:iam::{account}:root" in listed or account in listed:
            delegated = True
    return named, delegated


def _decision(statements: list[dict[str, Any]], action: str, resource: str) -> PermissionResult:
    return IAMPolicy(json.dumps({"Statement": statements})).is_action_permitted(action, resource)


def _check_s3_with_resource_policies(self: S3IAMRequest, resource: str) -> None:
    _check_s3(self, resource)
    caller, account = self._access_key.arn, self._access_key.account_id
    bucket_name, _, key_name = resource.removeprefix("arn:aws:s3:::").partition("/")
    bucket = s3_backends[account]["aws"].buckets.get(bucket_name)
    if bucket is None:
        return
    if bucket.policy:
        named, _ = _naming(json.loads(bucket.policy), caller, account)
        if _decision([s for s in named if s.get("Effect") == "Deny"], self._action, resource) is \
                PermissionResult.DENIED:
            self._raise_access_denied()
    found = bucket.keys.get(key_name) if key_name and self._action == "s3:GetObject" else None
    if found is not None and found.encryption == "aws:kms" and found.kms_key_id:
        _check_decrypt(self, caller, account, found.kms_key_id)


def _check_decrypt(request: S3IAMRequest, caller: str, account: str, key_id: str) -> None:
    backend = kms_backends[account][request._region]
    key = backend.keys[backend.get_key_id(key_id)]
    named, delegated = _naming(json.loads(key.policy), caller, account)
    identity = {IAMPolicy(policy).is_action_permitted("kms:Decrypt", key.arn)
                for policy in request._access_key.collect_policies()}
    by_key = _decision(named, "kms:Decrypt", key.arn)
    denied = PermissionResult.DENIED in identity or by_key is PermissionResult.DENIED
    allowed = by_key is PermissionResult.PERMITTED or (delegated and PermissionResult.PERMITTED in identity)
    if denied or not allowed:
        raise S3ClientError("AccessDenied", f"User: {caller} is not authorized to perform: kms:Decrypt on resource: "
                            f"{key.arn} because no identity-based policy allows the kms:Decrypt action")


def _list_permissions_with_columns(self: LakeFormationBackend, catalog_id: str, principal: Any = None,
                                   resource: Any = None, resource_type: Any = None) -> list[dict[str, Any]]:
    found = _list_permissions(self, catalog_id, principal, resource, resource_type)
    table = getattr(resource, "table", None)
    if table is None or catalog_id not in self.grants:
        return found
    for permission in self.grants[catalog_id].permissions:
        columns = permission.resource.get("TableWithColumns")
        if columns and (columns["DatabaseName"], columns["Name"]) == (table.database_name, table.name) and (
                principal is None or permission.principal == principal):
            found.append(permission.to_external_form())
    return found


@pytest.fixture
def access_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto checks access as AWS does for Glue, S3 (bucket policies, KMS) and lists Lake Formation's column grants."""
    monkeypatch.setattr(GlueResponse, "_determine_resource", _glue_resource, raising=False)
    monkeypatch.setattr(S3IAMRequest, "check_action_permitted", _check_s3_with_resource_policies)
    monkeypatch.setattr(LakeFormationBackend, "list_permissions", _list_permissions_with_columns)


@pytest.fixture
def enforced(access_checks: None) -> Iterator[None]:
    """moto enforces IAM for the test's duration (every call must be signed by a known user)."""
    saved = settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = 0, 0
    yield
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = saved
