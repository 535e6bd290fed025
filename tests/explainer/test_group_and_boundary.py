"""A Deny in an IAM group's policy, and a permissions boundary, named for what they are, read through the
MCP protocol (the SDK client over HTTP, the server in local mode signed in as each caller; the group's case through
the Lambda handler and get_resource too) on an account whose IAM
moto enforces, with S3's decision (identity policies, group policies, the boundary, the bucket policy) the demo's
(``moto_extensions``: ``athena_access.decide``):

- a user in group `analysts`, whose policy denies reading the table's data: permissions://tables and
  permissions://buckets say denied and name the group's policy; its fix, applied by an administrator, lets the
  caller read, while another member of the group is still refused;
- a role whose permissions boundary does not allow the read: named as the boundary, and its fix lets it read;
- a role whose permissions boundary denies the read: named as the boundary, narrowed for it alone;
- a role whose permissions boundary does not allow writing the workgroup's results: the workgroup's s3:PutObject
  link names the boundary, and its fix lets the query's results be written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.identity_policies import IdentityPolicy, denial_fixes, identity_policies
from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp.reading.fanout import Call, fan_out
from support.access_gaps import enforced, lake_formation_gaps  # noqa: F401  (fixtures)
from support.events import load_event
from support.fixes import apply_fix
from support.reading import read_everywhere, reset_moto
from support.servers import ServerThread, free_port, lambda_container

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lake_formation_gaps")]
ACCOUNT, REGION, WORKGROUP, BUCKET = "123456789012", "us-east-1", "analytics", "lake-grouped"
OBJECT = "orders/part-0.csv"
TABLE = "permissions://tables/sales/orders"
READS = ["glue:*", "athena:*", "kms:*", "lakeformation:*", "iam:Get*", "iam:List*", "iam:SimulatePrincipalPolicy",
         "s3:ListBucket", "s3:ListAllMyBuckets", "s3:GetBucket*", "s3:GetEncryptionConfiguration", "s3:PutObject"]
"""What every caller here may do but read the lake's objects (results are written and read back in results/)."""
ACCESS = [{"Effect": "Allow", "Action": READS, "Resource": "*"},
          {"Effect": "Allow", "Action": "s3:GetObject",
           "Resource": ["arn:aws:s3:::results/*", f"arn:aws:s3:::{BUCKET}/*"]}]
NO_LAKE = {"Sid": "NoLake", "Effect": "Deny", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET}/*"}
CAP = [{"Effect": "Allow", "Action": READS, "Resource": "*"},
       {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::results/*"}]
"""The boundary of role `capped`: every action its policy allows, but reading the lake."""
WALL = [{"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Sid": "NoOrders", "Effect": "Deny", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET}/orders/*"}]
"""The boundary of roles `walled` and `walled-too`: everything, but reading the table's data."""
NO_RESULTS = [{"Effect": "Allow", "Action": [a for a in READS if a != "s3:PutObject"], "Resource": "*"},
              {"Effect": "Allow", "Action": "s3:GetObject",
               "Resource": ["arn:aws:s3:::results/*", f"arn:aws:s3:::{BUCKET}/*"]}]
"""The boundary of role `no-results`: everything its policy allows, but writing query results."""


def _document(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def _keys(created: dict[str, str]) -> dict[str, str]:
    return {"AWS_ACCESS_KEY_ID": created["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": created["SecretAccessKey"],
            **({"AWS_SESSION_TOKEN": created["SessionToken"]} if "SessionToken" in created else {})}


@pytest.fixture(scope="module")
def account() -> Iterator[dict[str, dict[str, str]]]:
    """The account, seeded before IAM is enforced; each caller's credentials (a role's, a session of it)."""
    reset_moto()
    session = boto3.Session(region_name=REGION)
    s3, glue, iam, sts = (session.client(name) for name in ("s3", "glue", "iam", "sts"))
    for bucket in (BUCKET, "results"):
        s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=BUCKET, Key=OBJECT, Body=b"1,eu\n")
    glue.create_database(DatabaseInput={"Name": "sales"})
    glue.create_table(DatabaseName="sales", TableInput={"Name": "orders", "StorageDescriptor": {
        "Location": f"s3://{BUCKET}/orders/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    session.client("athena").create_work_group(Name=WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": f"s3://results/{WORKGROUP}/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    iam.create_group(GroupName="analysts")
    iam.put_group_policy(GroupName="analysts", PolicyName="no-lake", PolicyDocument=_document([NO_LAKE]))
    keys = {}
    for user, statements in {"member": ACCESS, "other-member": ACCESS,
                             "admin": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}.items():
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="access", PolicyDocument=_document(statements))
        if user != "admin":
            iam.add_user_to_group(GroupName="analysts", UserName=user)
        keys[user] = _keys(iam.create_access_key(UserName=user)["AccessKey"])
    trust = _document([{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                        "Action": "sts:AssumeRole"}])
    for role, boundary in (("capped", CAP), ("walled", WALL), ("walled-too", WALL), ("no-results", NO_RESULTS)):
        arn = f"arn:aws:iam::{ACCOUNT}:policy/{role}-boundary"
        if role != "walled-too":
            iam.create_policy(PolicyName=f"{role}-boundary", PolicyDocument=_document(boundary))
        else:
            arn = f"arn:aws:iam::{ACCOUNT}:policy/walled-boundary"  # the same boundary as `walled`
        iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust, PermissionsBoundary=arn)
        iam.put_role_policy(RoleName=role, PolicyName="access", PolicyDocument=_document(ACCESS))
        keys[role] = _keys(sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/{role}",
                                           RoleSessionName="explained")["Credentials"])
    yield keys
    reset_moto()


@pytest.fixture(scope="module")
def server(account: dict[str, dict[str, str]]) -> Iterator[ServerThread]:
    settings = Settings(mode="local", query_workgroups=(WORKGROUP,), cache_ttl_seconds=0, port=free_port())
    with ServerThread(settings) as running:
        yield running


@contextmanager
def signed_in(keys: dict[str, str]) -> Iterator[None]:
    """The local server's credential chain is the caller's for the block."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
            patch.delenv(name, raising=False)
        for name, value in keys.items():
            patch.setenv(name, value)
        local_chain.reset()
        yield
    local_chain.reset()


async def explained(server: ServerThread, keys: dict[str, str], uri: str) -> dict[str, Any]:
    with signed_in(keys):
        async with Client(server.url, mode="2026-07-28") as client:
            return json.loads((await client.read_resource(uri)).contents[0].text)


def read_link(found: dict[str, Any]) -> dict[str, Any]:
    return next(entry for entry in found["links"] if entry["check"] == "s3:GetObject")


def reads(keys: dict[str, str]) -> bool:
    """Whether the caller may read the table's object, asked of S3 itself."""
    s3 = boto3.Session(region_name=REGION, **{name.lower(): value for name, value in keys.items()}).client("s3")
    try:
        s3.get_object(Bucket=BUCKET, Key=OBJECT)["Body"].close()
    except ClientError as exc:
        assert exc.response["Error"]["Code"] == "AccessDenied", exc.response
        return False
    return True


def read_policies(iam: Any, principal: str) -> list[IdentityPolicy]:
    """The principal's identity policies, read as the explainer reads them (its chain, run by the fan-out)."""
    [outcome] = fan_out(Call.run, [Call("iam:GetUserPolicy", partial(identity_policies, iam, principal))],
                        action=Call.action_of, width=4)
    assert outcome.error is None, outcome.error
    return outcome.value


def administrator(account: dict[str, dict[str, str]]) -> Any:
    admin = account["admin"]
    return boto3.Session(region_name=REGION, aws_access_key_id=admin["AWS_ACCESS_KEY_ID"],
                         aws_secret_access_key=admin["AWS_SECRET_ACCESS_KEY"]).client


@pytest.mark.usefixtures("enforced")
async def test_a_group_policys_deny_is_named_and_narrowed_for_the_caller_only(
        server: ServerThread, account: dict[str, dict[str, str]]) -> None:
    member, other = account["member"], account["other-member"]
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    with signed_in(member):  # every path a client can take answers the same (Lambda's included)
        container = lambda_container(Settings(mode="local", query_workgroups=(WORKGROUP,), cache_ttl_seconds=0,
                                              allowed_hosts=(host,)))
        table = await read_everywhere(server.url, container, TABLE)
    bucket = await explained(server, member, f"permissions://buckets/{BUCKET}")
    assert table["query"] == "denied" and bucket["read"] == "denied"
    for found in (table, bucket):
        link = read_link(found)
        assert link["verdict"] == "denied", link
        group = link["fix"][0]
        assert (group["kind"], group["holder"], group["policy_name"]) == ("group_policy", "group analysts", "no-lake")
        assert group["target"] == f"arn:aws:iam::{ACCOUNT}:group/analysts"
        assert "put-group-policy --group-name analysts" in group["command"] and "removes" not in group
        assert "the policy no-lake of group analysts denies s3:GetObject" in group["note"]
    assert "(group policy)" in table["summary"] and "exempt the caller from the group policy's Deny" in table["summary"]
    for fix in read_link(table)["fix"]:
        apply_fix(fix, administrator(account))
    after = await explained(server, member, TABLE)
    assert after["query"] == "allowed" and read_link(after)["verdict"] == "allowed", json.dumps(after, indent=1)
    assert reads(member) and not reads(other)  # S3 itself: the caller reads; another member is still refused
    still = await explained(server, other, TABLE)
    assert still["query"] == "denied" and read_link(still)["fix"][0]["kind"] == "group_policy"


@pytest.mark.usefixtures("enforced")
async def test_a_boundary_that_does_not_allow_the_read_is_named_and_fixed(
        server: ServerThread, account: dict[str, dict[str, str]]) -> None:
    capped = account["capped"]
    assert not reads(capped)
    found = await explained(server, capped, TABLE)
    link = read_link(found)
    assert found["query"] == "denied" and link["verdict"] == "denied"
    boundary = link["fix"][0]
    arn = f"arn:aws:iam::{ACCOUNT}:policy/capped-boundary"
    assert (boundary["kind"], boundary["target"], boundary["holder"]) == (
        "permissions_boundary", arn, f"the permissions boundary {arn}")
    assert boundary["note"].startswith(f"the permissions boundary {arn} does not allow s3:GetObject")
    assert "grants nothing alone" in boundary["note"] and "create-policy-version" in boundary["command"]
    assert boundary["statement"]["Resource"] == f"arn:aws:s3:::{BUCKET}/orders/*"
    assert "allow it in the permissions boundary" in found["summary"]
    for fix in link["fix"]:
        apply_fix(fix, administrator(account))
    after = await explained(server, capped, TABLE)
    assert after["query"] == "allowed", json.dumps(after, indent=1)
    assert reads(capped)


@pytest.mark.usefixtures("enforced")
async def test_a_boundary_deny_is_named_and_narrowed_for_the_caller_only(
        server: ServerThread, account: dict[str, dict[str, str]]) -> None:
    walled, walled_too = account["walled"], account["walled-too"]
    found = await explained(server, walled, TABLE)
    link = read_link(found)
    assert found["query"] == "denied" and link["verdict"] == "denied"
    boundary = link["fix"][0]
    assert boundary["kind"] == "permissions_boundary" and boundary["narrows"] and "statement" not in boundary
    assert boundary["note"].startswith(f"the permissions boundary arn:aws:iam::{ACCOUNT}:policy/walled-boundary "
                                       "denies s3:GetObject")
    assert "exempt the caller from the boundary's Deny" in found["summary"]
    for fix in link["fix"]:
        apply_fix(fix, administrator(account))
    after = await explained(server, walled, TABLE)
    assert after["query"] == "allowed", json.dumps(after, indent=1)
    assert reads(walled) and not reads(walled_too)  # the other role under the same boundary: still refused
    assert (await explained(server, walled_too, TABLE))["query"] == "denied"


def test_iams_simulator_names_the_group_policy_and_the_boundary(account: dict[str, dict[str, str]]) -> None:
    """The demo's SimulatePrincipalPolicy answers as IAM documents it (MatchedStatements' SourcePolicyId and
    SourcePolicyType, PermissionsBoundaryDecisionDetail), asked with boto3 as an administrator; the fixes follow
    AWS's word where it is given: the policy it names, the boundary it says does not allow."""
    iam = administrator(account)("iam")
    objects = f"arn:aws:s3:::{BUCKET}/orders/*"

    def simulated(principal: str) -> dict[str, Any]:
        return iam.simulate_principal_policy(PolicySourceArn=principal, ActionNames=["s3:GetObject"],
                                             ResourceArns=[objects])["EvaluationResults"][0]

    other = simulated(f"arn:aws:iam::{ACCOUNT}:user/other-member")  # the group's Deny, never narrowed for this one
    assert other["EvalDecision"] == "explicitDeny"
    assert [(m["SourcePolicyId"], m["SourcePolicyType"]) for m in other["MatchedStatements"]] == [
        ("no-lake", "group")]
    assert "PermissionsBoundaryDecisionDetail" not in other
    held = read_policies(iam, f"arn:aws:iam::{ACCOUNT}:user/other-member")
    assert [fix["kind"] for fix in denial_fixes(held, "s3:GetObject", objects, other)] == ["group_policy"]
    walled = simulated(f"arn:aws:iam::{ACCOUNT}:role/walled-too")
    assert walled["EvalDecision"] == "explicitDeny"
    assert walled["PermissionsBoundaryDecisionDetail"] == {"AllowedByPermissionsBoundary": False}
    assert [(m["SourcePolicyId"], m["SourcePolicyType"]) for m in walled["MatchedStatements"]] == [
        ("walled-boundary", "user-managed")]
    held = read_policies(iam, f"arn:aws:iam::{ACCOUNT}:role/walled-too")
    assert [(f["kind"], f["target"]) for f in denial_fixes(held, "s3:GetObject", objects, walled)] == [
        ("permissions_boundary", f"arn:aws:iam::{ACCOUNT}:policy/walled-boundary")]
    allowed = iam.simulate_principal_policy(PolicySourceArn=f"arn:aws:iam::{ACCOUNT}:role/walled-too",
                                            ActionNames=["s3:GetObject"], ResourceArns=["arn:aws:s3:::results/x"])
    answer = allowed["EvaluationResults"][0]
    assert answer["EvalDecision"] == "allowed" and answer["PermissionsBoundaryDecisionDetail"] == {
        "AllowedByPermissionsBoundary": True}
    assert [(m["SourcePolicyId"], m["SourcePolicyType"]) for m in answer["MatchedStatements"]] == [("access", "role")]


@pytest.mark.usefixtures("enforced")
async def test_a_boundary_that_does_not_allow_writing_results_is_named_on_the_workgroups_link(
        server: ServerThread, account: dict[str, dict[str, str]]) -> None:
    keys = account["no-results"]
    found = await explained(server, keys, TABLE)
    write = next(entry for entry in found["workgroups"][WORKGROUP] if entry["check"] == "s3:PutObject")
    assert found["query"] == "denied" and write["verdict"] == "denied", json.dumps(write, indent=1)
    boundary = write["fix"][0]
    arn = f"arn:aws:iam::{ACCOUNT}:policy/no-results-boundary"
    assert (boundary["kind"], boundary["target"]) == ("permissions_boundary", arn), boundary
    assert boundary["note"].startswith(f"the permissions boundary {arn} does not allow s3:PutObject")
    assert boundary["statement"]["Resource"] == f"arn:aws:s3:::results/{WORKGROUP}/*"
    for fix in write["fix"]:
        apply_fix(fix, administrator(account))
    after = await explained(server, keys, TABLE)
    written = next(entry for entry in after["workgroups"][WORKGROUP] if entry["check"] == "s3:PutObject")
    assert written["verdict"] == "allowed" and after["query"] == "allowed", json.dumps(after, indent=1)
