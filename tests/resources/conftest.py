"""Fixtures for the AWS resources: what moto lacks of a real account's behaviour, filled in per test.

- `small_pages`: IAM ListUsers and S3 ListBuckets page as AWS does (moto answers them in one page whatever is
  asked), and the caller's session asks for small pages of users, roles and buckets, so every paginator
  really follows Marker / ContinuationToken.
- `slow_endpoint`: a proxy in front of moto that holds chosen operations before answering: an endpoint slower
  than the request's remaining time, at the socket, where botocore's timeouts apply.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from moto.core.responses import ActionResult
from moto.iam.responses import IamResponse
from moto.s3.responses import S3Response

from aws_data_mcp.identity import local_chain
from support.slow_endpoint import SlowEndpoint

PAGES = {"iam.ListUsers": ("MaxItems", 20), "iam.ListRoles": ("MaxItems", 25), "s3.ListBuckets": ("MaxBuckets", 50)}
"""The page size the caller's session asks for, per operation: 50 users, 60 roles, 120 buckets take 3 pages."""


# --------------------------------------------------------------------------- pages

def _list_users_in_pages(self: IamResponse) -> ActionResult:
    """ListUsers with MaxItems/Marker, as IAM pages it."""
    users = list(self.backend.list_users(self._get_param("PathPrefix"), None, None))
    start = int(self._get_param("Marker") or 0)
    end = start + int(self._get_param("MaxItems") or 100)
    more = end < len(users)
    return ActionResult({"Users": users[start:end], "IsTruncated": more, **({"Marker": str(end)} if more else {})})


def _list_buckets_in_pages(self: S3Response) -> Any:
    """ListBuckets with MaxBuckets/ContinuationToken, as S3 pages it."""
    self.data["Action"] = "ListAllMyBuckets"
    self._authenticate_and_authorize_s3_action()
    buckets = self.backend.list_buckets(prefix=self._get_param("prefix"), bucket_region=None, max_buckets=None)
    start = int(self._get_param("continuation-token") or 0)
    end = start + int(self._get_param("max-buckets") or 10_000)
    token = {"ContinuationToken": str(end)} if end < len(buckets) else {}
    self.data["Action"] = "ListBuckets"
    return self.serialized(ActionResult({
        "Owner": {"ID": "bcaf1ffd86f41161ca5fb16fd081034f", "DisplayName": "webfile"},
        "Buckets": [{"Name": b.name, "CreationDate": b.creation_date_ISO8601} for b in buckets[start:end]],
        **token}))


def _ask_for(key: str, size: int) -> Any:
    def small(params: dict[str, Any], **_: Any) -> None:
        params[key] = min(int(params.get(key, size)), size)

    return small


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Users, roles and buckets in pages of 20, 25 and 50 for the local caller (whose session every read uses)."""
    monkeypatch.setattr(IamResponse, "list_users", _list_users_in_pages)
    monkeypatch.setattr(S3Response, "all_buckets", _list_buckets_in_pages)
    session = local_chain.session()
    for operation, (key, size) in PAGES.items():
        session.events.register(f"before-parameter-build.{operation}", _ask_for(key, size))


# --------------------------------------------------------------------------- a slow endpoint

@pytest.fixture
def slow_endpoint() -> Iterator[SlowEndpoint]:
    endpoint = SlowEndpoint(os.environ["AWS_ENDPOINT_URL"])
    endpoint.thread.start()
    yield endpoint
    endpoint.server.shutdown()
    endpoint.server.server_close()
