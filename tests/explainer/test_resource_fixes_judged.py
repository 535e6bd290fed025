"""Each bucket- or key-policy fix permissions://tables prints grants exactly the one access to the one caller, judged
by @cloud-copilot/iam-simulate (an evaluator this project did not write) over the table's objects and the objects
beside them: the other prefixes of the same bucket (the archive's payroll included), a write of the same prefix, the
bucket's listing, and the same requests by the other principals the Deny names. The caller's read of the table
becomes allowed; every other verdict is what it was.

The fixes are the ones the demo's explainer prints over MCP, for the plain demo's caller on sales.raw_orders (its
partitions' fixes too) and enterprise.far_partition_sales (whose us partition lives in the archive bucket), and for
the hosted demo's alice on far_partition_sales. A role session the trust pins to a person is granted alone: the
role's other sessions stay refused."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from moto.kms.models import kms_backends
from moto.s3.models import s3_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.fix_reach import reach_of
from aws_data_mcp.explainer.model import identity_fix, resource_policy_fix, statements
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp_demo.account import enterprise
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.enterprise import ARCHIVE_BUCKET
from aws_data_mcp_demo.account.seed_data import ADMIN_ROLE, ANALYST_ROLE, DEMO_CALLER_USER, QUERY_WORKGROUPS
from support.iam_judge import Request, judge, skip_without_judge
from support.servers import ServerThread, free_port, start_demo

pytestmark = [skip_without_judge(), pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
TABLES = ("sales/raw_orders", "enterprise/far_partition_sales")
EVERYTHING = [{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}]
"""The identity policies the judge is given: they allow everything, so what it refuses the resource policy refuses."""
PAYROLL = f"arn:aws:s3:::{ARCHIVE_BUCKET}/payroll/2026.csv"


def _callers(account: str) -> dict[str, str]:
    """Principal (as AWS names it on a request) -> its aws:PrincipalArn: the plain demo's user, and a session of each
    role the demo's Denies name."""
    return {f"arn:aws:iam::{account}:user/{DEMO_CALLER_USER}": f"arn:aws:iam::{account}:user/{DEMO_CALLER_USER}",
            **{f"arn:aws:sts::{account}:assumed-role/{role}/{who}": f"arn:aws:iam::{account}:role/{role}"
               for role, who in ((ANALYST_ROLE, "alice"), (ANALYST_ROLE, "dave"), (ADMIN_ROLE, "bob"))}}


def _bucket_objects(account: str, bucket: str) -> list[str]:
    """Every seeded object of the bucket (moto's own store, as an administrator would list it), and a payroll."""
    found = s3_backends[account]["aws"].buckets[bucket]
    return sorted({f"arn:aws:s3:::{bucket}/{key}" for key in found.keys} | {f"arn:aws:s3:::{bucket}/payroll/2026.csv"})


def _before(account: str, region: str, fix: dict[str, Any]) -> dict[str, Any]:
    """The resource policy the fix rewrites, as it is in the demo account."""
    if fix["kind"] == "key_policy":
        return json.loads(kms_backends[account][region].get_key_policy(fix["target"].rsplit("/", 1)[-1]))
    policy = s3_backends[account]["aws"].buckets[fix["target"]].policy
    return json.loads(policy.decode() if isinstance(policy, bytes) else policy)


def _asked(fix: dict[str, Any], policy: dict[str, Any], callers: dict[str, str], objects: list[str],
           userids: dict[str, str]) -> list[Request]:
    """Every caller's read, write and listing of each object (or use of the key), against `policy`."""
    if fix["kind"] == "key_policy":
        pairs = [(action, fix["target"]) for action in ("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey")]
    else:
        pairs = [(action, obj) for obj in objects for action in ("s3:GetObject", "s3:PutObject")]
        pairs.append(("s3:ListBucket", f"arn:aws:s3:::{fix['target']}"))
    return [Request(who, action, resource, EVERYTHING, policy, context={
        "aws:PrincipalArn": arn, "aws:SecureTransport": "true", "aws:userid": userids.get(who, who)},
        key_policy=fix["kind"] == "key_policy") for who, arn in callers.items() for action, resource in pairs]


def _granted(request: Request, fix: dict[str, Any], callers: set[str]) -> bool:
    """The one access the fix was printed for: its caller (each session of a role it reaches), its actions, its
    resource."""
    statement = fix["statement"]
    resource = fix["target"] if fix["kind"] == "key_policy" else statement["Resource"]
    return request.principal in callers and request.action in statement["Action"] and re.fullmatch(
        re.escape(resource).replace(r"\*", ".*"), request.resource) is not None


def _assert_exactly_the_one_access(fix: dict[str, Any], granted_to: set[str], callers: dict[str, str],
                                   before_policy: dict[str, Any], objects: list[str],
                                   userids: dict[str, str] | None = None) -> None:
    """Judged before and after: the access becomes allowed to `granted_to`, and no other verdict changes."""
    asked = _asked(fix, before_policy, callers, objects, userids or {})
    before, after = judge(asked), judge(_asked(fix, fix["policy"], callers, objects, userids or {}))
    granted = [i for i, request in enumerate(asked) if _granted(request, fix, granted_to)]
    assert granted and all(after[i] == "Allowed" for i in granted), [(asked[i].resource, after[i]) for i in granted]
    assert any(before[i] != "Allowed" for i in granted), "the fix was printed for a refused access"
    changed = [(asked[i].principal, asked[i].action, asked[i].resource, before[i], after[i])
               for i in range(len(asked)) if i not in granted and before[i] != after[i]]
    assert changed == [], changed


def _printed(explained: dict[str, Any]) -> list[dict[str, Any]]:
    """Every bucket- and key-policy fix of the explainer's denied data links (the table's and its partitions')."""
    return [fix for entry in explained["links"] if entry["verdict"] == "denied"
            for fix in entry.get("fix") or [] if fix["kind"] in ("bucket_policy", "key_policy")]


@pytest.fixture(scope="module")
def plain(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, request_timeout_seconds=300)
    with ServerThread(settings) as server:
        yield server


async def test_the_plain_demo_callers_fixes_grant_the_one_read(plain: ServerThread, demo_caller: DemoAccount) -> None:
    account, region = demo_caller.account_id, demo_caller.region
    async with Client(plain.url, mode="2026-07-28") as client:
        explained = {table: json.loads((await client.read_resource(f"permissions://tables/{table}")).contents[0].text)
                     for table in TABLES}
    printed = {table: _printed(found) for table, found in explained.items()}
    assert {fix["target"] for fix in printed["enterprise/far_partition_sales"]} >= {ARCHIVE_BUCKET}, printed
    assert len(printed["sales/raw_orders"]) > 1  # the table's root and its partitions each print one
    caller = f"arn:aws:iam::{account}:user/{DEMO_CALLER_USER}"
    for fix in (fix for fixes in printed.values() for fix in fixes):
        assert "IAM user demo-analyst alone" in fix["note"], fix["note"]
        objects = [] if fix["kind"] == "key_policy" else _bucket_objects(account, fix["target"])
        _assert_exactly_the_one_access(fix, {caller}, _callers(account), _before(account, region, fix), objects)
    # the partitions' fixes are the table's own: the same policy, which grants the table's objects and no more
    raw = {json.dumps(fix["policy"], sort_keys=True) for fix in printed["sales/raw_orders"]
           if fix["kind"] == "bucket_policy"}
    assert len(raw) == 1, raw


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The oidc hosted demo: its URL and alice's token."""
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("judged"))
    tokens = dict(zip(re.findall(r"^== (\w+):", banner, re.M),
                      re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    yield url, tokens["alice"]
    process.terminate()
    process.wait(10)


async def test_alices_fix_for_the_far_partition_keeps_the_payroll_denied(hosted: tuple[str, str]) -> None:
    """alice's role is the analysts' (an oidc session's name is not pinned to her): the fix says every session of
    the role gains the read; the archive's other objects, the payroll among them, stay denied to her and to them."""
    url, token = hosted
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        explained = json.loads((await client.read_resource(
            "permissions://tables/enterprise/far_partition_sales")).contents[0].text)
    account = explained["simulated_as"].split(":")[4]
    [fix] = [fix for fix in _printed(explained) if fix["target"] == ARCHIVE_BUCKET]
    assert f"every session of the role {ANALYST_ROLE}" in fix["note"], fix["note"]
    read = next(entry["evidence"]["object"] for entry in explained["links"] if entry["check"] == "s3:GetObject"
                and entry["verdict"] == "denied" and ARCHIVE_BUCKET in entry["resource"])
    objects = [f"arn:aws:s3:::{ARCHIVE_BUCKET}/{read}", PAYROLL,
               f"arn:aws:s3:::{ARCHIVE_BUCKET}/far_partition_sales/region=eu/part-00000.csv"]
    callers = _callers(account) | {explained["principal_arn"]: f"arn:aws:iam::{account}:role/{ANALYST_ROLE}"}
    sessions = {who for who, arn in callers.items() if arn.endswith(f":role/{ANALYST_ROLE}")}
    seeded = json.loads(enterprise.bucket_policies(account)[ARCHIVE_BUCKET])
    _assert_exactly_the_one_access(fix, sessions, callers, seeded, objects)


def test_a_pinned_sessions_fix_reaches_that_session_alone() -> None:
    """Where the role's trust pins session names to the person, the grant names the session (aws:userid): alice's
    read is allowed, dave's (another session of the same role) and the payroll stay refused."""
    account = "123456789012"
    role = f"arn:aws:iam::{account}:role/{ANALYST_ROLE}"
    alice = f"arn:aws:sts::{account}:assumed-role/{ANALYST_ROLE}/alice"
    userids = {alice: "AROAANALYST:alice", f"arn:aws:sts::{account}:assumed-role/{ANALYST_ROLE}/dave":
               "AROAANALYST:dave"}
    reach = reach_of(Caller("iam", None, "us-east-1", principal_arn=alice, account=account,
                            user_id=userids[alice], session_name_pinned=True))
    assert reach.condition == {"StringEquals": {"aws:userid": "AROAANALYST:alice"}}
    seeded = json.loads(enterprise.bucket_policies(account)[ARCHIVE_BUCKET])
    table = f"arn:aws:s3:::{ARCHIVE_BUCKET}/far_partition_sales/region=us/*"
    denying = statements(seeded, "Deny", "s3:GetObject", table, (role, alice), account)
    fix = resource_policy_fix("bucket_policy", ARCHIVE_BUCKET, seeded, role, ["s3:GetObject"], table, denying,
                              "aws s3api put-bucket-policy --bucket x --policy {policy}", (alice,), reach)
    assert "the session alice of the role" in fix["note"] and "the role's other sessions gain nothing" in \
        fix["note"]
    objects = [table.replace("*", "part-00000.csv"), PAYROLL]
    _assert_exactly_the_one_access(fix, {alice}, _callers(account), seeded, objects, userids)
    # the identity-policy grant names the session too: dave's session of the role gains nothing
    grant = identity_fix(role, ["s3:GetObject"], [table], reach)["statement"]
    asked = [Request(who, "s3:GetObject", objects[0], [{"Version": "2012-10-17", "Statement": [grant]}],
                     context={"aws:PrincipalArn": role, "aws:userid": userid}) for who, userid in userids.items()]
    assert judge(asked) == ["Allowed", "ImplicitlyDenied"]


ACCOUNT = "123456789012"
LAKE = "arn:aws:s3:::lake"
SHAPES = {
    "everyone-but-one-with-s3-star": {"Sid": "NoLake", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
                                      "Resource": [LAKE, f"{LAKE}/*"], "Condition": {"ArnNotEquals": {
                                          "aws:PrincipalArn": f"arn:aws:iam::{ACCOUNT}:role/{ADMIN_ROLE}"}}},
    "the-account-two-actions": {"Sid": "NoObjects", "Effect": "Deny", "Principal": {"AWS": ACCOUNT},
                                "Action": ["s3:GetObject", "s3:PutObject"], "Resource": f"{LAKE}/*"},
    "two-roles-two-prefixes": {"Sid": "NotTheseTwo", "Effect": "Deny", "Principal": {"AWS": [
        f"arn:aws:iam::{ACCOUNT}:role/{ANALYST_ROLE}", f"arn:aws:iam::{ACCOUNT}:role/{ADMIN_ROLE}"]},
        "Action": "s3:GetObject", "Resource": [f"{LAKE}/orders/*", f"{LAKE}/payroll/*"]},
}


@pytest.mark.parametrize("denying", list(SHAPES.values()), ids=list(SHAPES))
def test_each_deny_shape_is_narrowed_to_the_one_read(denying: dict[str, Any]) -> None:
    """A Deny of everyone but one, of the account, of several roles; of a wildcard, two actions, two prefixes: the
    analysts' role gains the read of lake/orders/ and nothing else, no one else gains anything."""
    role = f"arn:aws:iam::{ACCOUNT}:role/{ANALYST_ROLE}"
    alice = f"arn:aws:sts::{ACCOUNT}:assumed-role/{ANALYST_ROLE}/alice"
    policy = {"Version": "2012-10-17", "Statement": [denying]}
    table = f"{LAKE}/orders/*"
    found = statements(policy, "Deny", "s3:GetObject", table, (role, alice), ACCOUNT)
    fix = resource_policy_fix("bucket_policy", "lake", policy, role, ["s3:GetObject"], table, found,
                              "aws s3api put-bucket-policy --bucket lake --policy {policy}", (alice,),
                              reach_of(Caller("oidc", None, "us-east-1", principal_arn=alice, account=ACCOUNT)))
    assert "every session of the role" in fix["note"] and "IAM's grammar cannot" not in fix["note"]
    objects = [f"{LAKE}/orders/part-0.csv", f"{LAKE}/payroll/2026.csv", f"{LAKE}/marketing/x.csv"]
    sessions = {who for who, arn in _callers(ACCOUNT).items() if arn == role}
    _assert_exactly_the_one_access(fix, sessions, _callers(ACCOUNT), policy, objects)
