"""A query workgroup whose results bucket another account owns, read over MCP (the SDK client over HTTP)
from permissions://tables: S3 needs both the caller's identity policy and the bucket's policy to allow Athena's
write and GetQueryResults' read-back there, so such a workgroup is never `allowed` on the caller's identity alone.

The owner is learned as the caller (ListBuckets lists only the caller's account's buckets; S3 answers another
account's GetBucketPolicy with 405; the workgroup's ExpectedBucketOwner). A second account, 222222222222, owns
`partner-results`; moto enforces IAM (with S3's bucket-policy checks and the 405 filled in:
``moto_extensions.RESOURCE_CHECKS``), except where a test says moto lets the caller read that bucket's policy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.iam.models import iam_backends
from moto.s3.models import s3_backends

from aws_data_mcp.explainer.model import grant_sid
from support.access_gaps import enforced, lake_formation_gaps  # noqa: F401  (fixtures)
from support.fixes import apply_fix
from support.iam_judge import Request, judge, skip_without_judge
from support.reading import iam_users, read_as, reset_moto

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lake_formation_gaps")]
ACCOUNT, OWNER, REGION = "123456789012", "222222222222", "us-east-1"
BUCKET, HOME_RESULTS = "partner-results", "home-results"
OBJECTS = f"arn:aws:s3:::{BUCKET}/athena/*"
PARTNER, NAMED, STALE, HOME, GONE = "partner", "partner-named", "stale-owner", "home", "gone"
WORKGROUPS = {PARTNER: (BUCKET, None), NAMED: (BUCKET, OWNER), STALE: (HOME_RESULTS, OWNER), HOME: (HOME_RESULTS, None),
              GONE: ("no-such-results", None)}
"""Name -> (results bucket, ExpectedBucketOwner): STALE names the partner account for the home account's bucket; GONE's
bucket does not exist."""
TABLE = "permissions://tables/sales/orders"
READ_ALL = [{"Effect": "Allow", "Action": "*", "Resource": "*"}]
ANALYST = [
    {"Effect": "Allow", "Action": ["glue:GetDatabase", "glue:GetTable", "glue:GetPartitions"], "Resource": "*"},
    {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetObject", "s3:GetBucketPolicy",
                                   "s3:GetEncryptionConfiguration", "s3:ListAllMyBuckets"], "Resource": "*"},
    {"Effect": "Allow", "Action": "s3:PutObject", "Resource": [OBJECTS, f"arn:aws:s3:::{HOME_RESULTS}/*"]},
    {"Effect": "Allow", "Action": ["athena:GetWorkGroup", "athena:StartQueryExecution", "athena:GetQueryExecution",
                                   "athena:GetQueryResults"], "Resource": "*"},
    {"Effect": "Allow", "Action": ["lakeformation:ListResources", "lakeformation:ListPermissions",
                                   "lakeformation:GetDataLakeSettings", "lakeformation:ListDataCellsFilter",
                                   "lakeformation:GetResourceLFTags", "lakeformation:ListLakeFormationOptIns"],
     "Resource": "*"},
    {"Effect": "Allow", "Action": "iam:SimulatePrincipalPolicy", "Resource": "*"}]
"""The caller's identity allows writing and reading back results in both buckets, and listing its buckets."""
UNLISTED = [*ANALYST, {"Effect": "Deny", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]
USERS = {"analyst": ANALYST, "unlisted": UNLISTED, "admin": READ_ALL}


def _document(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


@pytest.fixture(scope="module")
def lake() -> Iterator[dict[str, dict[str, str]]]:
    """The home account (a table, the workgroups, the callers) and the partner account's bucket and administrator,
    seeded before IAM is enforced; the access keys of each (the partner's administrator under "owner")."""
    reset_moto()
    session = boto3.Session(region_name=REGION)
    s3, glue, iam, athena = (session.client(name) for name in ("s3", "glue", "iam", "athena"))
    for bucket in ("home-data", HOME_RESULTS):
        s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket="home-data", Key="orders/part-0.csv", Body=b"1\n")
    s3_backends[OWNER]["aws"].create_bucket(BUCKET, REGION)  # the partner account's, no policy
    glue.create_database(DatabaseInput={"Name": "sales"})
    glue.create_table(DatabaseName="sales", TableInput={"Name": "orders", "StorageDescriptor": {
        "Location": "s3://home-data/orders/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    for name, (bucket, expected) in WORKGROUPS.items():
        results = {"OutputLocation": f"s3://{bucket}/athena/",
                   **({"ExpectedBucketOwner": expected} if expected else {})}
        athena.create_work_group(Name=name, Configuration={"ResultConfiguration": results,
                                                           "EnforceWorkGroupConfiguration": True,
                                                           "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    keys = iam_users(iam, USERS)
    partner = iam_backends[OWNER]["aws"]
    partner.create_user(REGION, "owner-admin")
    partner.put_user_policy("owner-admin", "admin", _document(READ_ALL))
    key = partner.create_access_key("owner-admin")
    keys["owner"] = {"aws_access_key_id": key.access_key_id, "aws_secret_access_key": key.secret_access_key}
    yield keys
    reset_moto()


async def explain(keys: dict[str, str], monkeypatch: pytest.MonkeyPatch, workgroup: str,
                  uri: str = TABLE) -> dict[str, Any]:
    """`uri` read over MCP by a server whose caller is `keys`' and whose query workgroup is `workgroup`."""
    return dict(await read_as(keys, monkeypatch, uri, workgroup))


def results_links(found: dict[str, Any], workgroup: str) -> dict[str, dict[str, Any]]:
    return {entry["check"]: entry for entry in found["workgroups"][workgroup] if entry["check"].startswith("s3:")}


@pytest.mark.usefixtures("enforced")
async def test_another_accounts_bucket_is_unknown_never_allowed(lake: dict[str, dict[str, str]],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's identity allows both; only the owner can read its bucket policy (S3: 405), so what settles it
    is the owner's, named where the workgroup's ExpectedBucketOwner names it."""
    for workgroup, named in ((PARTNER, None), (NAMED, OWNER)):
        found = await explain(lake["analyst"], monkeypatch, workgroup)
        links = results_links(found, workgroup)
        assert {c: e["verdict"] for c, e in links.items()} == {"s3:PutObject": "unknown", "s3:GetObject": "unknown"}
        assert found["query"] == "unknown", found["summary"]
        owner = links["s3:PutObject"]["evidence"]["bucket_owner"]
        assert (owner["callers_account"], owner["account"]) == (False, named), owner
        assert "s3:ListBuckets" in owner["learned"] and links["s3:PutObject"]["evidence"]["bucket_policy"] == \
            "unreadable"
        settle = links["s3:PutObject"]["settle"]
        assert settle.startswith(f"Only the bucket's owner ({named or 'another account'}) can read its policy"), settle
        assert ":user/analyst" in settle and OBJECTS in settle


@pytest.mark.usefixtures("enforced")
async def test_without_listbuckets_the_owner_is_what_s3_and_the_workgroup_say(
        lake: dict[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """ListBuckets refused: the workgroup's ExpectedBucketOwner names the owner; else S3's 405 (to a caller the
    owner lets ask for its policy) says "another account"; else nobody says, and the results path is `unknown`,
    never `allowed` on the caller's identity alone: not even in the home account's own bucket, whose policy names
    nobody (there the caller who may list its buckets is `allowed`)."""
    named = results_links(await explain(lake["unlisted"], monkeypatch, NAMED), NAMED)["s3:PutObject"]
    owner = named["evidence"]["bucket_owner"]
    assert (owner["callers_account"], owner["account"]) == (False, OWNER) and "ExpectedBucketOwner" in \
        owner["learned"], owner
    assert named["verdict"] == "unknown" and named["settle"].startswith(f"Only the bucket's owner ({OWNER})")
    unnamed = results_links(await explain(lake["unlisted"], monkeypatch, PARTNER), PARTNER)["s3:PutObject"]
    assert unnamed["verdict"] == "unknown" and unnamed["evidence"]["bucket_owner"]["callers_account"] is None
    assert "s3:ListAllMyBuckets for the caller settles the owner" in unnamed["settle"], unnamed
    s3_backends[OWNER]["aws"].put_bucket_policy(BUCKET, _document([
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "s3:GetBucketPolicy",
         "Resource": f"arn:aws:s3:::{BUCKET}"}]).encode())
    try:
        told = results_links(await explain(lake["unlisted"], monkeypatch, PARTNER), PARTNER)["s3:PutObject"]
    finally:
        s3_backends[OWNER]["aws"].delete_bucket_policy(BUCKET)
    assert told["verdict"] == "unknown" and told["evidence"]["bucket_owner"]["callers_account"] is False
    assert "405" in told["evidence"]["bucket_owner"]["learned"], told
    home = results_links(await explain(lake["unlisted"], monkeypatch, HOME), HOME)
    assert {c: e["verdict"] for c, e in home.items()} == {"s3:PutObject": "unknown", "s3:GetObject": "unknown"}
    assert home["s3:PutObject"]["evidence"]["bucket_owner"]["callers_account"] is None
    assert "s3:ListAllMyBuckets for the caller settles it" in home["s3:PutObject"]["settle"]
    listed = results_links(await explain(lake["analyst"], monkeypatch, HOME), HOME)
    assert {e["verdict"] for e in listed.values()} == {"allowed"}, listed
    assert listed["s3:PutObject"]["evidence"]["bucket_owner"] == {
        "account": ACCOUNT, "callers_account": True, "learned": "s3:ListBuckets lists it among the caller's "
                                                                "account's buckets"}


@pytest.mark.usefixtures("enforced")
async def test_a_results_bucket_that_does_not_exist_is_denied(lake: dict[str, dict[str, str]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody owns it: not "another account's", and never `unknown` waiting for an owner (Athena fails the query)."""
    links = results_links(await explain(lake["analyst"], monkeypatch, GONE), GONE)
    assert {e["verdict"] for e in links.values()} == {"denied"}, links
    assert "no bucket no-such-results" in links["s3:PutObject"]["evidence"]["reason"]


@pytest.mark.usefixtures("enforced")
async def test_an_expected_owner_that_is_not_the_owner_is_denied_and_fixed(
        lake: dict[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The workgroup expects the partner account to own the home account's bucket: Athena's every request to it is
    refused; the workgroup fix (UpdateWorkGroup) names the real owner, and the path holds."""
    found = await explain(lake["analyst"], monkeypatch, STALE)
    put = results_links(found, STALE)["s3:PutObject"]
    assert put["verdict"] == "denied" and "ExpectedBucketOwner is 222222222222" in put["evidence"]["reason"], put
    assert found["summary"].startswith("denied: s3:PutObject on") and "ExpectedBucketOwner" in found["summary"], \
        found["summary"]
    (fix,) = put["fix"]
    assert fix["request"] == {"WorkGroup": STALE, "ConfigurationUpdates": {
        "ResultConfigurationUpdates": {"ExpectedBucketOwner": ACCOUNT}}}
    apply_fix(fix, boto3.Session(region_name=REGION, **lake["admin"]).client)
    after = await explain(lake["analyst"], monkeypatch, STALE)
    assert {e["verdict"] for e in results_links(after, STALE).values()} == {"allowed"}
    assert after["query"] == "allowed", after["summary"]


async def test_a_readable_policy_without_the_grant_is_denied_and_the_owners_fix_allows(
        lake: dict[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the caller can read the partner's policy (moto not enforcing IAM serves it to anyone; S3 serves it
    only to its owner's account), no Allow for the caller is `denied`, with the one statement the owner adds: the
    caller's write and read-back under the results prefix. Applied with the partner administrator's keys, the
    path holds, and the fix is judged by iam-simulate where node has it."""
    found = await explain(lake["analyst"], monkeypatch, NAMED)
    links = results_links(found, NAMED)
    assert {e["verdict"] for e in links.values()} == {"denied"}, links
    fix = links["s3:PutObject"]["fix"][0]
    assert links["s3:GetObject"]["fix"] == [fix]  # one statement for the whole results path
    analyst = f"arn:aws:iam::{ACCOUNT}:user/analyst"
    assert (fix["kind"], fix["target"], fix["account"]) == ("bucket_policy", BUCKET, OWNER)
    assert fix["statement"] == {"Sid": grant_sid(analyst, ["s3:PutObject", "s3:GetObject"], OBJECTS),
                                "Effect": "Allow", "Principal": {"AWS": analyst},
                                "Action": ["s3:PutObject", "s3:GetObject"], "Resource": OBJECTS}
    assert f"an administrator of account {OWNER}" in found["summary"], found["summary"]
    apply_fix(fix, boto3.Session(region_name=REGION, **lake["owner"]).client)
    try:
        after = await explain(lake["analyst"], monkeypatch, NAMED)
        assert {e["verdict"] for e in results_links(after, NAMED).values()} == {"allowed"}
        assert after["query"] == "allowed", after["summary"]
    finally:
        s3_backends[OWNER]["aws"].delete_bucket_policy(BUCKET)
    _judged(fix["policy"], analyst)


def _judged(policy: dict[str, Any], analyst: str) -> None:
    """iam-simulate (not this project's) on the fixed policy: the caller's write and read-back under the results
    prefix are allowed from its account; everything refused before (no policy: every cross-account request) is
    refused still: another user's, other actions, other prefixes."""
    if skip_without_judge().name == "skip":
        return
    admin = f"arn:aws:iam::{ACCOUNT}:user/admin"
    identity = [{"Version": "2012-10-17", "Statement": READ_ALL}]
    asked = [(who, action, resource) for who in (analyst, admin)
             for action in ("s3:PutObject", "s3:GetObject", "s3:DeleteObject")
             for resource in (f"arn:aws:s3:::{BUCKET}/athena/q.csv", f"arn:aws:s3:::{BUCKET}/other/q.csv")]
    requests = [Request(who, action, resource, identity, policy, owner=OWNER, context={"aws:PrincipalArn": who})
                for who, action, resource in asked]
    before = judge([Request(r.principal, r.action, r.resource, identity, None, owner=OWNER, context=r.context)
                    for r in requests])
    after = judge(requests)
    allowed = {asked[i] for i, verdict in enumerate(after) if verdict == "Allowed"}
    assert set(before) == {"ImplicitlyDenied"}, before
    assert allowed == {(analyst, "s3:PutObject", f"arn:aws:s3:::{BUCKET}/athena/q.csv"),
                       (analyst, "s3:GetObject", f"arn:aws:s3:::{BUCKET}/athena/q.csv")}, allowed
