"""permissions:// and tabulator:// on an account with 120 buckets in two regions (listed 50 a page), some with a
bucket policy, Glue tables spread over them and over another account's bucket, and a workgroup writing its
results to another account's bucket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.identity_policies import simulation_principal
from aws_data_mcp.identity.resolve import Caller, resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.permissions.recommendations import EXPLAINED
from aws_data_mcp_demo.emulator.extensions import BUCKET_REGIONS
from support.events import load_event
from support.faults import AwsFaults
from support.reading import read_everywhere, reset_moto
from support.servers import ServerThread, free_port, lambda_container

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("small_pages")]
ACCOUNT = "123456789012"
BUCKETS = [f"lake-{index:03d}" for index in range(120)]
EU = {name for index, name in enumerate(BUCKETS) if index % 4 == 0}
MUTATING_PREFIXES = ("Put", "Delete", "Create", "Copy", "Restore", "Upload", "Abort", "Complete")
WRITER_POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "s3:PutObject", "Resource": ["arn:aws:s3:::lake-000/*", "arn:aws:s3:::lake-006/*"]},
    {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::lake-003/*"}]}
"""The identity policy of the `writer` user and the `Writer` role."""
WRITER = f"arn:aws:iam::{ACCOUNT}:user/writer"


def _bucket_policy(effect: str, principal: str, bucket: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": effect, "Principal": {"AWS": principal}, "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"}]})


BUCKET_POLICIES = {"lake-001": ("Allow", WRITER), "lake-002": ("Allow", WRITER),
                   "lake-004": ("Allow", f"arn:aws:iam::{ACCOUNT}:user/someone-else"), "lake-006": ("Deny", WRITER)}
"""lake-001 grants the writer what its identity policy does not; lake-002 too, but the tests deny reading it;
lake-004 grants someone else; lake-006 denies what the identity policy allows."""


@pytest.fixture(scope="module")
def account() -> Iterator[None]:
    reset_moto()
    session = boto3.Session(region_name="us-east-1")
    regional = {region: session.client("s3", region_name=region) for region in ("us-east-1", "eu-west-1")}
    for name in BUCKETS:
        region = "eu-west-1" if name in EU else "us-east-1"
        s3 = regional[region]
        config = {"CreateBucketConfiguration": {"LocationConstraint": region}} if region != "us-east-1" else {}
        s3.create_bucket(Bucket=name, **config)
        if not name.endswith("7"):  # some empty buckets: read cannot be established there
            s3.put_object(Bucket=name, Key="data/part-0.parquet", Body=b"PAR1")
        if name in BUCKET_POLICIES:
            s3.put_bucket_policy(Bucket=name, Policy=_bucket_policy(*BUCKET_POLICIES[name], name))
    glue, athena, iam = session.client("glue"), session.client("athena"), session.client("iam")
    glue.create_database(DatabaseInput={"Name": "lake"})
    for index in range(30):
        glue.create_table(DatabaseName="lake", TableInput={"Name": f"t{index}", "StorageDescriptor": {
            "Location": f"s3://{BUCKETS[index % 10]}/t{index}/"}})
    glue.create_table(DatabaseName="lake", TableInput={"Name": "view_only", "TableType": "VIRTUAL_VIEW"})
    glue.create_table(DatabaseName="lake", TableInput={"Name": "shared", "StorageDescriptor": {
        "Location": "s3://partner-lake/shared/"}})  # another account's bucket
    athena.create_work_group(Name="reports", Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://lake-001/athena/"}})
    athena.create_work_group(Name="partner", Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://partner-results/athena/"}})
    iam.create_user(UserName="writer")
    iam.put_user_policy(UserName="writer", PolicyName="write", PolicyDocument=json.dumps(WRITER_POLICY))
    iam.create_role(RoleName="Writer", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}))
    iam.put_role_policy(RoleName="Writer", PolicyName="write", PolicyDocument=json.dumps(WRITER_POLICY))
    yield
    reset_moto()


def writer(kind: str) -> tuple[Caller, AwsFaults]:
    """The `writer` IAM user, or a session of the `Writer` role, as a caller; with faults in its own session."""
    if kind == "user":
        key = boto3.client("iam", region_name="us-east-1").create_access_key(UserName="writer")["AccessKey"]
        credentials = {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}
    else:
        assumed = boto3.client("sts", region_name="us-east-1").assume_role(
            RoleArn=f"arn:aws:iam::{ACCOUNT}:role/Writer", RoleSessionName="alice")["Credentials"]
        credentials = {"aws_access_key_id": assumed["AccessKeyId"], "aws_secret_access_key": assumed["SecretAccessKey"],
                       "aws_session_token": assumed["SessionToken"]}
    session = boto3.Session(region_name="us-east-1", **credentials)
    faults = AwsFaults(session)
    arn = session.client("sts").get_caller_identity()["Arn"]
    return Caller("local", session, "us-east-1", principal_arn=arn, account=ACCOUNT), faults


def read(uri: str, settings: Settings | None = None, caller: Any = None) -> Any:
    settings = settings or Settings(mode="local")
    reader = ResourceReader(registry, settings)
    return json.loads(anyio.run(reader.read, uri, caller or (lambda: resolve_caller(None, settings))).text)


def all_buckets(uri: str, settings: Settings | None = None) -> list[dict[str, Any]]:
    settings = settings or Settings(mode="local", response_char_budget=1_000_000)
    return read(uri, settings)["buckets"]


@pytest.mark.usefixtures("account")
async def test_discover_through_every_path(http_server: Any, local_lambda_handler: Any) -> None:
    result = await read_everywhere(http_server.url, local_lambda_handler, "permissions://discover")
    assert result["page"]["total"] == 120
    assert result["principal_arn"].startswith("arn:aws:") and result["account"]
    assert sum(result["levels"].values()) == 120


@pytest.mark.usefixtures("account")
def test_every_bucket_checked_in_its_own_region_without_modifying_anything(aws_faults: Any) -> None:
    buckets = {b["bucket"]: b for b in all_buckets("permissions://discover")}
    assert len(buckets) == 120
    assert {name for name, b in buckets.items() if b["region"] == "eu-west-1"} == EU
    assert buckets["lake-001"] | {"level": "read", "evidence": {
        "location": "ok", "list": "ok", "read": "ok", "bucket_policy": "not_checked", "simulate_write": "unavailable",
        "simulated_with_bucket_policy": False}} == buckets["lake-001"]
    empty = buckets["lake-007"]
    assert empty["level"] == "list" and empty["evidence"]["read"] == "not_checked" and "note" in empty
    # moto cannot simulate policies for the suite's root-like caller: write is unknown, never guessed, and its
    # bucket policies are not read (the simulator could not weigh them).
    assert {b["write"] for b in buckets.values()} == {"unknown"}
    assert {b["evidence"]["bucket_policy"] for b in buckets.values()} == {"not_checked"}
    operations = {name.split(".")[1] for name in aws_faults.calls if name.startswith("s3.")}
    assert operations == {"ListBuckets", "GetBucketLocation", "ListObjectsV2", "HeadObject"}
    assert aws_faults.calls["s3.ListBuckets"] == 3  # 50 a page
    assert not any(op.startswith(MUTATING_PREFIXES) for name in aws_faults.calls for op in [name.split(".")[1]])


@pytest.mark.usefixtures("account")
async def test_a_region_named_by_the_listing_is_not_asked_again(aws_faults: AwsFaults,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for extension in BUCKET_REGIONS:  # S3 names each bucket's region in a listing asked in pages; moto does not
        monkeypatch.setattr(extension.owner, extension.name, extension.replacement)
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    # A server and a container of their own: nothing cached by the module's other reads.
    with ServerThread(Settings(mode="local", port=free_port(), response_char_budget=1_000_000)) as server:
        container = lambda_container(Settings(mode="local", allowed_hosts=(host,), response_char_budget=1_000_000))
        result = await read_everywhere(server.url, container, "permissions://discover")
    buckets = {b["bucket"]: b for b in result["buckets"]}
    assert len(buckets) == 120 and {name for name, b in buckets.items() if b["region"] == "eu-west-1"} == EU
    assert {b["region_from"] for b in buckets.values()} == {"s3:ListBuckets"}
    assert {(b["evidence"]["location"], b["evidence"]["list"]) for b in buckets.values()} == {("ok", "ok")}
    assert buckets["lake-001"]["level"] == "read" and buckets["lake-007"]["level"] == "list"  # every other check kept
    assert "s3.GetBucketLocation" not in aws_faults.calls and aws_faults.calls["s3.HeadObject"] > 0


@pytest.mark.usefixtures("account")
def test_a_region_the_listing_does_not_name_is_located(aws_faults: AwsFaults) -> None:
    buckets = all_buckets("permissions://discover")
    assert {b["region_from"] for b in buckets} == {"s3:GetBucketLocation"}
    assert aws_faults.calls["s3.GetBucketLocation"] == 120
    aws_faults.fail("s3.GetBucketLocation", "AccessDenied", status=403, when=lambda r: "lake-009" in r.url)
    denied = {b["bucket"]: b for b in all_buckets("permissions://discover")}["lake-009"]
    assert denied["evidence"]["location"] == "denied" and denied["region"] is None and "region_from" not in denied


@pytest.mark.usefixtures("account")
def test_a_denied_bucket_keeps_its_own_errors_and_the_rest_is_untouched(aws_faults: Any) -> None:
    aws_faults.fail("s3.ListObjectsV2", "AccessDenied", status=403, when=lambda r: "lake-005" in r.url)
    aws_faults.fail("s3.HeadObject", "403", status=403, when=lambda r: "lake-006" in r.url)
    buckets = {b["bucket"]: b for b in all_buckets("permissions://discover")}
    assert buckets["lake-005"]["level"] == "none" and buckets["lake-005"]["evidence"]["list"] == "denied"
    assert buckets["lake-005"]["errors"][0]["action"] == "s3:ListBucket"
    assert buckets["lake-006"]["level"] == "list" and buckets["lake-006"]["errors"][0]["action"] == "s3:GetObject"
    assert sum(b["errors"] != [] for b in buckets.values()) == 2


@pytest.mark.usefixtures("account")
def test_throttling_retried_throttling_forever_kept_per_bucket_slow_endpoint_times_out(aws_faults: Any) -> None:
    aws_faults.throttle("s3.GetBucketLocation", times=5)
    assert all(b["evidence"]["location"] == "ok" for b in all_buckets("permissions://discover"))
    aws_faults.throttle("s3.HeadObject")
    settings = Settings(mode="local", max_attempts=2, cache_ttl_seconds=0, response_char_budget=1_000_000)
    throttled = [b for b in all_buckets("permissions://discover", settings) if b["errors"]]
    assert throttled and {b["errors"][0]["error"] for b in throttled} == {"throttled"}
    aws_faults.hold("s3.ListObjectsV2")  # slower than any timeout: answers once the test is over
    # The held listings end at the read's deadline; the budget leaves the calls before them (120 locations, the
    # simulations) room on a loaded machine: at 3 s the whole read sometimes timed out instead.
    slow = Settings(mode="local", request_timeout_seconds=6.0, aws_call_timeout_seconds=1, max_attempts=1,
                    response_char_budget=1_000_000)
    timed_out = all_buckets("permissions://discover", slow)
    assert len(timed_out) == 120 and {b["errors"][0]["error"] for b in timed_out} == {"timeout"}


def test_the_simulated_principal_is_the_callers_iam_identity() -> None:
    def arn(value: str) -> Caller:
        return Caller("local", None, "us-east-1", principal_arn=value)

    assert simulation_principal(arn("arn:aws:iam::1:user/alice")) == "arn:aws:iam::1:user/alice"
    assert simulation_principal(arn("arn:aws:sts::1:assumed-role/Analyst/alice")) == "arn:aws:iam::1:role/Analyst"
    assert simulation_principal(arn("arn:aws:sts::1:federated-user/bob")) is None


@pytest.mark.usefixtures("account")
async def test_table_buckets_group_tables_by_bucket(http_server: Any, local_lambda_handler: Any) -> None:
    result = await read_everywhere(http_server.url, local_lambda_handler, "tabulator://buckets")
    assert result["page"]["total"] == 11 and result["tables_without_s3_location"] == 1  # 10 lakes, partner-lake
    first = result["buckets"][0]
    assert first == {"bucket": "lake-000", "kind": "bucket", "table_count": 3,
                     "databases": [{"database": "lake", "tables": ["t0", "t10", "t20"]}]}


@pytest.mark.usefixtures("account")
def test_recommendations_reuse_the_cached_discovery_and_name_actions(aws_faults: Any) -> None:
    aws_faults.fail("s3.HeadObject", "403", status=403, when=lambda r: "lake-002" in r.url)
    settings = Settings(mode="local")
    reader = ResourceReader(registry, settings)
    caller = resolve_caller(None, settings)
    anyio.run(reader.read, "permissions://discover", lambda: caller)
    listed = aws_faults.calls["s3.ListBuckets"]
    advice = json.loads(anyio.run(reader.read, "permissions://recommendations", lambda: caller).text)
    assert aws_faults.calls["s3.ListBuckets"] == listed  # discover came from the cache
    by_arn = {r["resource_arn"]: r for r in advice["recommendations"]}
    assert by_arn["arn:aws:s3:::lake-002/*"]["missing_action"] == "s3:GetObject"
    assert "t2" in by_arn["arn:aws:s3:::lake-002/*"]["finding"]
    results = by_arn["arn:aws:s3:::lake-001/athena/*"]
    assert results["missing_action"] == "s3:PutObject" and results["severity"] == "info"  # unknown: not confirmed


@pytest.mark.usefixtures("account")
def test_a_denied_list_buckets_is_access_denied_naming_the_action(aws_faults: Any) -> None:
    aws_faults.fail("s3.ListBuckets", "AccessDenied", status=403)
    with pytest.raises(Exception) as raised:
        read("permissions://discover")
    payload = raised.value.payload()  # type: ignore[attr-defined]
    assert payload["error"] == "access_denied" and payload["action"] == "s3:ListAllMyBuckets"


# --------------------------------------------------------------------------- write access and bucket policies

WIDE = Settings(mode="local", response_char_budget=1_000_000)


def write_verdicts(caller: Caller) -> dict[str, dict[str, Any]]:
    buckets = read("permissions://discover", WIDE, lambda: caller)["buckets"]
    return {b["bucket"]: {"write": b["write"], "policy": b["evidence"]["bucket_policy"],
                          "simulated": b["evidence"]["simulate_write"],
                          "weighed": b["evidence"]["simulated_with_bucket_policy"], "level": b["level"],
                          "note": b.get("write_note"), "errors": [e["action"] for e in b["errors"]]}
            for b in buckets}


def verdict(write: str, policy: str, simulated: str, weighed: bool) -> dict[str, Any]:
    return {"write": write, "policy": policy, "simulated": simulated, "weighed": weighed}


@pytest.mark.usefixtures("account")
def test_a_bucket_policy_read_by_the_caller_is_weighed_before_write_is_denied() -> None:
    caller, faults = writer("user")
    faults.fail("s3.GetBucketPolicy", "AccessDenied", status=403, when=lambda r: "lake-002" in r.url)
    found = write_verdicts(caller)
    assert found["lake-000"] | verdict("allowed", "none", "allowed", False) | {"level": "write"} == found["lake-000"]
    assert found["lake-001"] | verdict("allowed", "ok", "allowed", True) == found["lake-001"]  # the policy grants it
    assert found["lake-003"] | verdict("denied", "not_checked", "explicit_deny", False) == found["lake-003"]
    assert found["lake-004"] | verdict("denied", "ok", "implicit_deny", True) == found["lake-004"]  # grants another
    assert found["lake-005"] | verdict("denied", "none", "implicit_deny", False) == found["lake-005"]  # no policy
    assert found["lake-006"] | verdict("denied", "ok", "explicit_deny", True) == found["lake-006"]  # the policy denies
    unread = found["lake-002"]  # its policy would grant it, but cannot be read: not "denied"
    assert unread | verdict("unknown", "denied", "implicit_deny", False) | {"errors": ["s3:GetBucketPolicy"]} == unread
    assert "s3:GetBucketPolicy denied" in unread["note"] and "may grant it" in unread["note"]
    assert [name for name, b in found.items() if b["note"]] == ["lake-002"]
    assert faults.calls["s3.GetBucketPolicy"] == 119  # not where the identity policy already denies (lake-003)
    assert faults.calls["iam.SimulatePrincipalPolicy"] == 3 + 3  # 50 buckets a call; one per policy weighed


@pytest.mark.usefixtures("account")
def test_for_a_role_the_simulator_cannot_weigh_a_bucket_policy_so_it_is_unknown_not_denied() -> None:
    caller, faults = writer("role")
    assert simulation_principal(caller) == f"arn:aws:iam::{ACCOUNT}:role/Writer"
    found = write_verdicts(caller)
    assert found["lake-000"] | verdict("allowed", "none", "allowed", False) == found["lake-000"]
    assert found["lake-005"] | verdict("denied", "none", "implicit_deny", False) == found["lake-005"]
    granted = found["lake-001"]
    assert granted | verdict("unknown", "ok", "implicit_deny", False) == granted
    assert "only for an IAM user" in granted["note"]
    denying = found["lake-006"]  # allowed by its identity policy; the Deny in the bucket policy is not seen
    assert denying | verdict("allowed", "ok", "allowed", False) == denying and "not seen" in denying["note"]
    assert faults.calls["iam.SimulatePrincipalPolicy"] == 3  # IAM takes a ResourcePolicy only for a user


# --------------------------------------------------------------------------- recommendations

@pytest.mark.usefixtures("account")
async def test_recommendations_through_every_path(http_server: Any, local_lambda_handler: Any) -> None:
    advice = await read_everywhere(http_server.url, local_lambda_handler, "permissions://recommendations")
    assert advice["count"] == advice["page"]["total"] > 0
    assert all(r["missing_action"] and r["resource_arn"].startswith("arn:aws:") for r in advice["recommendations"])


@pytest.mark.usefixtures("account")
def test_recommendations_claim_nothing_of_buckets_that_could_not_be_checked_or_are_empty() -> None:
    advice = read("permissions://recommendations", WIDE)["recommendations"]
    by_arn = {r["resource_arn"]: r for r in advice}
    results = by_arn["arn:aws:s3:::partner-results/athena/*"]  # another account's: not in discover
    assert results["severity"] == "info" and "could not be checked" in results["finding"]
    assert results["missing_action"] == "s3:PutObject" and "bucket policy" in results["fix"]
    shared = by_arn["arn:aws:s3:::partner-lake/*"]
    assert shared["severity"] == "info" and "could not be checked" in shared["finding"]
    assert "lake.shared" in shared["finding"]
    empty = by_arn["arn:aws:s3:::lake-007/*"]  # listed, holds nothing to read: unverified, not "cannot read"
    assert empty["severity"] == "info" and "unverified" in empty["finding"] and "cannot" not in empty["finding"]
    assert "lake.t17, lake.t27, lake.t7" in empty["finding"]
    assert not [r for r in advice if r["severity"] == "high" and "partner" in r["resource_arn"]]


@pytest.mark.usefixtures("account")
def test_recommendations_read_discover_workgroups_and_tables_side_by_side(aws_faults: AwsFaults) -> None:
    first_calls = aws_faults.overlap("s3.ListBuckets", "athena.ListWorkGroups", "glue.GetDatabases", at_once=3)
    read("permissions://recommendations")  # a fresh reader: every cache is cold
    assert first_calls.peak == 3  # discover's, athena://workgroups' and tabulator://buckets' first calls together


@pytest.mark.usefixtures("account")
def test_recommendations_explain_at_most_the_bound_and_name_the_tables_beyond(aws_faults: AwsFaults) -> None:
    """Every bucket of the lake is readable, so no bucket verdict settles its 31 tables: 25 are read through their
    explainer (one GetTable each), the other 6 named in one finding, each with its explainer."""
    advice = read("permissions://recommendations", WIDE)
    assert advice["explained"] == {"tables": EXPLAINED, "of": 31}
    assert aws_faults.calls["glue.GetTable"] == EXPLAINED
    beyond = [r for r in advice["recommendations"] if "were not explained" in r["finding"]]
    assert len(beyond) == 1 and beyond[0]["severity"] == "info"
    assert [t["explain"] for t in beyond[0]["tables"]] == [f"permissions://tables/lake/{t['table'].split('.')[1]}"
                                                           for t in beyond[0]["tables"]]
    assert len(beyond[0]["tables"]) == 31 - EXPLAINED
