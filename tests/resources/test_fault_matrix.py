"""Every per-item fan-out under the same four faults: AccessDenied on some items only, throttling then
success, throttling forever on some items, and an endpoint slower than the request's remaining time.

One table of resources (their item call, the IAM action a denied item names, where each item keeps its error)
and one test per fault over it, on an account of 12 users, 12 roles, 4 OIDC providers, 8 Glue databases and 8
Athena workgroups with a query each. The
slow endpoint is a real one (a proxy in front of moto that holds the item calls): each call's read timeout
shrinks to the deadline, so an item answers `timeout` at the deadline while the rest is answered.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.exceptions import BotoCoreError

from aws_data_mcp.aws import client, deadline_scope
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, as_failure
from support.faults import AwsFaults
from support.reading import direct_read, reset_moto
from support.slow_endpoint import SlowEndpoint

USERS = [f"mx-user-{n:02d}" for n in range(12)]
ROLES = [f"mx-role-{n:02d}" for n in range(12)]
PROVIDERS = [f"idp-{n}.example.com" for n in range(4)]
DATABASES = [f"mx_db_{n}" for n in range(8)]
WORKGROUPS = ["primary", *[f"mx-wg-{n}" for n in range(7)]]
WIDE = {"mode": "local", "response_char_budget": 1_000_000, "cache_ttl_seconds": 0}


@dataclass(frozen=True)
class Target:
    """One resource's per-item fan-out, as the faults see it."""

    uri: str
    operation: str
    """The per-item call faults are injected into, e.g. "iam.GetRole"."""
    action: str
    """The IAM action a denied item names."""
    items: list[str]
    errors: Callable[[Any], dict[str, Any]]
    """Each item's error object (None when it answered), from the result."""
    chosen: tuple[int, ...] = (3, 7)

    @property
    def json_protocol(self) -> bool:
        return self.operation.startswith(("glue.", "athena.", "sso-admin."))

    def names(self) -> list[str]:
        return [self.items[index] for index in self.chosen]

    def about_chosen(self, request: Any) -> bool:
        return any(name in str(request.body) for name in self.names())


def _first_error(errors: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    return (errors or [None])[0]


TARGETS = [
    Target("admin://users", "iam.ListAccessKeys", "iam:ListAccessKeys", USERS,
           lambda r: {u["name"]: _first_error(u.get("errors")) for u in r["users"]}),
    Target("admin://roles", "iam.GetRole", "iam:GetRole", ROLES,
           lambda r: {role["name"]: role.get("error") for role in r["roles"]}),
    Target("admin://config/sso", "iam.GetOpenIDConnectProvider", "iam:GetOpenIDConnectProvider", PROVIDERS,
           lambda r: {p["arn"].rsplit("/", 1)[-1]: p.get("error") for p in r["oidc_providers"]}, chosen=(1, 2)),
    Target("tabulator://buckets", "glue.GetTables", "glue:GetTables", DATABASES,
           lambda r: dict.fromkeys(DATABASES) | {e["database"]: e["error"] for e in r["database_errors"]}),
    Target("athena://named-queries", "athena.ListNamedQueries", "athena:ListNamedQueries", WORKGROUPS,
           lambda r: dict.fromkeys(r["workgroups_read"]) | {e["workgroup"]: e["error"] for e in r["workgroup_errors"]}),
    Target("athena://workgroups", "athena.GetWorkGroup", "athena:GetWorkGroup", WORKGROUPS,
           lambda r: {w["name"]: w.get("error") for w in r["workgroups"]}),
    Target("athena://query/history", "athena.ListQueryExecutions", "athena:ListQueryExecutions", WORKGROUPS,
           lambda r: dict.fromkeys(r["workgroups_read"]) | {e["workgroup"]: e["error"] for e in r["workgroup_errors"]}),
]
IDS = [t.uri.replace("://", "-").replace("/", "-") for t in TARGETS]


@pytest.fixture(scope="module")
def account() -> Iterator[None]:
    reset_moto()
    iam, glue = boto3.client("iam", region_name="us-east-1"), boto3.client("glue", region_name="us-east-1")
    athena = boto3.client("athena", region_name="us-east-1")
    for name in USERS:
        iam.create_user(UserName=name)
        iam.create_access_key(UserName=name)
    for name in ROLES:
        iam.create_role(RoleName=name, AssumeRolePolicyDocument='{"Version": "2012-10-17", "Statement": []}')
    for url in PROVIDERS:
        iam.create_open_id_connect_provider(Url=f"https://{url}", ClientIDList=["sts.amazonaws.com"],
                                            ThumbprintList=["b" * 40])
    for database in DATABASES:
        glue.create_database(DatabaseInput={"Name": database})
        for table in ("events", "orders"):
            glue.create_table(DatabaseName=database, TableInput={"Name": table, "StorageDescriptor": {
                "Location": f"s3://{database.replace('_', '-')}-bucket/{table}/"}})
    for workgroup in WORKGROUPS:
        if workgroup != "primary":
            athena.create_work_group(Name=workgroup, Configuration={
                "ResultConfiguration": {"OutputLocation": f"s3://results/{workgroup}/"}})
        athena.start_query_execution(QueryString="SELECT 1", WorkGroup=workgroup,
                                     ResultConfiguration={"OutputLocation": f"s3://results/{workgroup}/"})
    yield
    reset_moto()


def errors_of(target: Target, **settings: Any) -> dict[str, Any]:
    found = target.errors(direct_read(target.uri, Settings(**(WIDE | settings))))
    assert sorted(found) == sorted(target.items), target.uri
    return found


@pytest.mark.usefixtures("account")
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_access_denied_on_some_items_only_keeps_them_beside_the_rest(target: Target, aws_faults: AwsFaults) -> None:
    code, status = ("AccessDeniedException", 400) if target.json_protocol else ("AccessDenied", 403)
    aws_faults.fail(target.operation, code, status=status, when=target.about_chosen)
    found = errors_of(target)
    assert {name for name, error in found.items() if error} == set(target.names())
    for name in target.names():
        assert found[name] | {"error": "access_denied", "action": target.action, "retryable": False} == found[name]


@pytest.mark.usefixtures("account")
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_throttling_then_success_is_retried_to_a_whole_answer(target: Target, aws_faults: AwsFaults) -> None:
    aws_faults.throttle(target.operation, times=2)
    assert not any(errors_of(target).values())
    assert aws_faults.calls[target.operation] == len(target.items) + 2


@pytest.mark.usefixtures("account")
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_throttling_forever_is_a_retryable_error_on_those_items(target: Target, aws_faults: AwsFaults) -> None:
    aws_faults.fail(target.operation, "ThrottlingException", when=target.about_chosen)
    found = errors_of(target, max_attempts=2)
    assert {name for name, error in found.items() if error} == set(target.names())
    assert {(found[n]["error"], found[n]["retryable"]) for n in target.names()} == {("throttled", True)}


@pytest.mark.usefixtures("account")
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_an_endpoint_slower_than_the_remaining_time_times_those_items_out(
        target: Target, slow_endpoint: SlowEndpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    service, operation = target.operation.split(".")
    slow_endpoint.route(monkeypatch, service.upper().replace("-", "_"))
    errors_of(target)  # the caller and its clients are built before the clock starts, as on a warm server
    slow_endpoint.slow(operation, 60.0)  # far beyond the 3 s budget: released when the test ends
    found = errors_of(target, request_timeout_seconds=3.0)
    assert slow_endpoint.answered == 0, "answered at the budget, without waiting for the endpoint"
    assert {(error or {}).get("error") for error in found.values()} == {"timeout"}
    assert slow_endpoint.held >= len(target.items)


def test_a_calls_read_timeout_shrinks_to_the_deadline(slow_endpoint: SlowEndpoint,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """One call, 1 s before the deadline, to an endpoint that answers in 30 s, with a 5 s per-call timeout and
    3 attempts: its read timeout is the 1 s left, it ends as a timeout, and no retry is waited for."""
    slow_endpoint.route(monkeypatch, "STS")
    slow_endpoint.slow("GetCallerIdentity", 30.0)
    sts = client(boto3.Session(), "sts", Settings(mode="local", aws_call_timeout_seconds=5.0, max_attempts=3))
    read_timeouts: list[float] = []
    sts.meta.events.register("before-send", lambda request, **_: read_timeouts.append(request.context["read_timeout"]))
    with deadline_scope(time.monotonic() + 1.0), pytest.raises(BotoCoreError) as raised:
        sts.get_caller_identity()
    (read_timeout,) = read_timeouts
    assert 0 < read_timeout <= 1.0 and slow_endpoint.answered == 0  # the time left, not the 5 s per-call timeout
    assert as_failure(raised.value, "sts:GetCallerIdentity").code is ErrorCode.TIMEOUT
    assert slow_endpoint.held == 1
