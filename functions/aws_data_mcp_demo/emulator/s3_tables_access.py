"""S3 Tables' authorisation, resource policies and encryption, which moto's `s3tables` backend lacks.

Each request is authorised on the table bucket's or table's ARN, as S3 Tables does, not on `*`.
Table bucket and table policies are kept beside moto's records (Put/Get/Delete), and the bucket's
encryption too: SSE-S3 (AES256) until one is put, as on AWS.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from moto.core.exceptions import AccessDeniedError, JsonRESTError
from moto.core.responses import BaseResponse
from moto.s3tables import urls as s3tables_urls
from moto.s3tables.models import FakeTableBucket, s3tables_backends
from moto.s3tables.models import Table as S3Table
from moto.s3tables.responses import S3TablesResponse

from aws_data_mcp_demo.emulator.patch import Extension

POLICY = "_demo_resource_policy"
"""Where a table bucket's or table's policy is kept (on moto's own record)."""
ENCRYPTION = "_demo_encryption"
DEFAULT_ENCRYPTION = {"sseAlgorithm": "AES256"}
_TABLE_POLICY_ROUTES = (
    r"{0}/tables/(?P<tableBucketARN>[^/]+)/(?P<namespace>[^/]+)/(?P<name>[^/]+)/policy$",
    r"{0}/tables/(?P<tableBucketARN_pt_1>[^/]+)/(?P<tableBucketARN_pt_2>[^/]+)/(?P<namespace>[^/]+)/"
    r"(?P<name>[^/]+)/policy$",
)


class NotFound(JsonRESTError):
    code = 404

    def __init__(self, message: str) -> None:
        super().__init__("NotFoundException", message)


def _parts(self: BaseResponse) -> list[str]:
    """The request's path segments, each decoded (the bucket's ARN is one segment, its slash encoded)."""
    return [unquote(part) for part in self.raw_path.lstrip("/").split("/")]


def _resource(self: BaseResponse) -> str:
    """The ARN S3 Tables authorises a request on: its table where it names one, else its table bucket."""
    parts = _parts(self)
    if parts[0] == "get-table":
        query = parse_qs(urlparse(self.uri).query)
        arn, namespace, name = (
            query.get(k, [""])[0] for k in ("tableBucketARN", "namespace", "name")
        )
        return f"{arn}/table/{name}" if arn and namespace and name else arn or "*"
    if len(parts) < 2:
        return "*"
    if parts[0] == "tables" and len(parts) >= 4:
        return f"{parts[1]}/table/{parts[3]}"
    return parts[1]


_moto_authorize = BaseResponse._authenticate_and_authorize_normal_action


def _authorize(self: S3TablesResponse, resource: str = "*") -> None:
    """moto's IAM check on the request's ARN (signed as sent: `signing`), refused in S3 Tables' JSON."""
    try:
        _moto_authorize(self, _resource(self))
    except AccessDeniedError as error:
        raise JsonRESTError(
            "AccessDeniedException", f"{error.message} on resource: {_resource(self)}"
        ) from error


def _bucket(self: S3TablesResponse) -> FakeTableBucket:
    return self.s3tables_backend.get_table_bucket(_parts(self)[1])


def _table(self: S3TablesResponse) -> S3Table:
    _, arn, namespace, name, *_ = _parts(self)
    return self.s3tables_backend.get_table(table_bucket_arn=arn, namespace=namespace, name=name)


def _policy_of(record: Any, what: str) -> tuple[int, dict[str, str], str]:
    policy = getattr(record, POLICY, None)
    if policy is None:
        raise NotFound(f"The {what} does not have a resource policy.")
    return 200, {"Content-Type": "application/json"}, json.dumps({"resourcePolicy": policy})


def _put_policy(self: S3TablesResponse, record: Any) -> tuple[int, dict[str, str], str]:
    setattr(record, POLICY, str(json.loads(self.body)["resourcePolicy"]))
    return 200, {}, ""


def _delete_policy(record: Any) -> tuple[int, dict[str, str], str]:
    setattr(record, POLICY, None)
    return 204, {}, ""


def _get_encryption(self: S3TablesResponse) -> tuple[int, dict[str, str], str]:
    found = getattr(_bucket(self), ENCRYPTION, None) or DEFAULT_ENCRYPTION
    return 200, {"Content-Type": "application/json"}, json.dumps({"encryptionConfiguration": found})


def _put_encryption(self: S3TablesResponse) -> tuple[int, dict[str, str], str]:
    setattr(_bucket(self), ENCRYPTION, dict(json.loads(self.body)["encryptionConfiguration"]))
    return 200, {}, ""


def stored_policy(
    account_id: str,
    region: str,
    bucket_arn: str,
    namespace: str | None = None,
    table: str | None = None,
) -> str | None:
    """The policy kept for a table bucket, or for one of its tables (for the demo's own decisions)."""
    backend = s3tables_backends[account_id][region]
    record: Any = (
        backend.get_table(bucket_arn, namespace, table)
        if table and namespace
        else backend.get_table_bucket(bucket_arn)
    )
    return getattr(record, POLICY, None)


def add_routes() -> None:
    """moto routes by path: a table's policy gets its route (idempotent)."""
    for route in _TABLE_POLICY_ROUTES:
        s3tables_urls.url_paths.setdefault(route, S3TablesResponse.dispatch)


S3_TABLES_ACCESS: tuple[Extension, ...] = (
    Extension(S3TablesResponse, "_authenticate_and_authorize_normal_action", _authorize),
    Extension(
        S3TablesResponse,
        "get_table_bucket_policy",
        lambda self: _policy_of(_bucket(self), "table bucket"),
    ),
    Extension(
        S3TablesResponse, "put_table_bucket_policy", lambda self: _put_policy(self, _bucket(self))
    ),
    Extension(
        S3TablesResponse, "delete_table_bucket_policy", lambda self: _delete_policy(_bucket(self))
    ),
    Extension(S3TablesResponse, "get_table_policy", lambda self: _policy_of(_table(self), "table")),
    Extension(S3TablesResponse, "put_table_policy", lambda self: _put_policy(self, _table(self))),
    Extension(S3TablesResponse, "delete_table_policy", lambda self: _delete_policy(_table(self))),
    Extension(S3TablesResponse, "get_table_bucket_encryption", _get_encryption),
    Extension(S3TablesResponse, "put_table_bucket_encryption", _put_encryption),
)
"""Installed with the other extensions, wherever moto stands in for AWS."""
