"""The S3 table explainer's chain in the suite's moto, IAM enforced: each caller reads
permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders over MCP.

A table policy's Deny of s3tables:GetTableData is `denied`, fixed in that policy; an identity that lacks it is
`denied`, fixed by a statement naming the action and the table's ARN; a caller refused the table's policy is
`unknown`, with the command that settles it, never `allowed`. A catalog this explainer does not read is refused
before any AWS call.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference

from aws_data_mcp.config import Settings
from support.access_gaps import enforced  # noqa: F401  (fixture)
from support.reading import iam_users, read_as
from support.s3_tables_lake import ACCOUNT, BUCKET_CATALOG, REGION, TABLE_BUCKET_ARN, s3_tables_lake
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio]
__all__ = ["s3_tables_lake"]
URI = "permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders"
TABLE_ARN = f"{TABLE_BUCKET_ARN}/table/daily_orders"
DATA = "s3tables:GetTableData"
WORKGROUP, RESULTS = "analytics", "athena-results"
WORKGROUP_ARN = f"arn:aws:athena:{REGION}:{ACCOUNT}:workgroup/{WORKGROUP}"


def _reads(*, data: bool = True, policy: bool = True) -> list[dict[str, Any]]:
    """What a query of the table needs, less GetTableData (`data`) or the table's policy (`policy`)."""
    actions = ["s3tables:GetTableBucket", "s3tables:GetNamespace", "s3tables:GetTable",
               "s3tables:GetTableMetadataLocation", "s3tables:GetTableBucketPolicy",
               "s3tables:GetTableBucketEncryption",
               *([DATA] if data else []), *(["s3tables:GetTablePolicy"] if policy else [])]
    return [{"Effect": "Allow", "Action": ["glue:GetCatalog", "glue:GetDatabase", "glue:GetTable"], "Resource": "*"},
            {"Effect": "Allow", "Action": actions, "Resource": [TABLE_BUCKET_ARN, f"{TABLE_BUCKET_ARN}/*"]},
            {"Effect": "Allow", "Action": ["athena:GetWorkGroup", "athena:StartQueryExecution",
                                           "athena:GetQueryExecution", "athena:GetQueryResults"],
             "Resource": WORKGROUP_ARN},
            {"Effect": "Allow", "Action": ["s3:*"],
             "Resource": [f"arn:aws:s3:::{RESULTS}", f"arn:aws:s3:::{RESULTS}/*"]},
            {"Effect": "Allow", "Action": ["iam:SimulatePrincipalPolicy", "iam:Get*", "iam:List*", "sts:*",
                                           "s3:ListAllMyBuckets"],
             "Resource": "*"}]


USERS = {"reader": _reads(), "denied_by_policy": _reads(), "no_grant": _reads(data=False),
         "no_policy_read": _reads(policy=False)}


@pytest.fixture(scope="module")
def keys(s3_tables_lake: None) -> Iterator[dict[str, dict[str, str]]]:
    """The callers, the workgroup and the table's policy (denying one of them the data), seeded before IAM is
    enforced."""
    session = boto3.Session(region_name=REGION)
    session.client("s3").create_bucket(Bucket=RESULTS)
    session.client("athena").create_work_group(Name=WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/athena/"}, "EnforceWorkGroupConfiguration": True,
        "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    found = iam_users(session.client("iam"), USERS)
    session.client("s3tables").put_table_policy(
        tableBucketARN=TABLE_BUCKET_ARN, namespace="sales", name="daily_orders", resourcePolicy=json.dumps({
            "Version": "2012-10-17", "Statement": [{
                "Sid": "NotThisOne", "Effect": "Deny", "Action": DATA, "Resource": TABLE_ARN,
                "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/denied_by_policy"}}]}))
    yield found


async def _explain(keys: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    return await read_as(keys, monkeypatch, URI, WORKGROUP)


def _link(found: dict[str, Any], check: str) -> dict[str, Any]:
    return next(entry for entry in found["links"] if entry["check"] == check)


@pytest.mark.usefixtures("enforced")
async def test_a_reader_is_allowed_on_every_link(keys: dict[str, dict[str, str]],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    found = await _explain(keys["reader"], monkeypatch)
    assert found["query"] == "allowed", found["summary"]
    assert found["table_arn"] == TABLE_ARN and found["table_bucket_arn"] == TABLE_BUCKET_ARN
    checks = {entry["check"]: entry["resource"] for entry in found["links"]}
    glue = f"arn:aws:glue:{REGION}:{ACCOUNT}"
    assert checks["glue:GetCatalog"] == f"{glue}:catalog/s3tablescatalog/acme-analytics"
    assert checks["glue:GetDatabase"] == f"{glue}:database/s3tablescatalog/acme-analytics/sales"
    assert checks["glue:GetTable"] == f"{glue}:table/s3tablescatalog/acme-analytics/sales/daily_orders"
    assert checks["s3tables:GetTableBucket"] == TABLE_BUCKET_ARN and checks[DATA] == TABLE_ARN
    assert _link(found, DATA)["evidence"]["table_policy"] == "read"
    assert _link(found, "kms:Decrypt")["resource"] == "none"  # SSE-S3: no key of the caller's to use


@pytest.mark.usefixtures("enforced")
async def test_a_table_policys_deny_is_denied_and_fixed_there(keys: dict[str, dict[str, str]],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    found = await _explain(keys["denied_by_policy"], monkeypatch)
    data = _link(found, DATA)
    assert (found["query"], data["verdict"]) == ("denied", "denied"), found["summary"]
    assert data["evidence"]["simulated_identity_policies"] == "allowed"  # the identity grants it: the policy refuses
    fix = data["fix"][0]
    assert (fix["kind"], fix["target"]) == ("table_policy", TABLE_ARN)
    assert fix["removes"][0]["Sid"] == "NotThisOne" and "put-table-policy" in fix["command"]
    assert found["summary"].startswith(f"denied: {DATA}"), found["summary"]


@pytest.mark.usefixtures("enforced")
async def test_a_missing_identity_grant_is_denied_with_the_statement_to_add(keys: dict[str, dict[str, str]],
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    found = await _explain(keys["no_grant"], monkeypatch)
    data = _link(found, DATA)
    assert (found["query"], data["verdict"]) == ("denied", "denied"), found["summary"]
    fix = data["fix"][-1]
    assert fix["kind"] == "identity_policy" and fix["target"].endswith(":user/no_grant")
    assert fix["statement"] == {"Effect": "Allow", "Action": [DATA], "Resource": [TABLE_ARN]}


@pytest.mark.usefixtures("enforced")
async def test_an_unreadable_table_policy_is_unknown_never_allowed(keys: dict[str, dict[str, str]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    found = await _explain(keys["no_policy_read"], monkeypatch)
    data = _link(found, DATA)
    assert (found["query"], data["verdict"]) == ("unknown", "unknown"), found["summary"]
    assert data["evidence"]["simulated_identity_policies"] == "allowed"
    assert data["evidence"]["table_policy"] == "unreadable"
    assert "aws s3tables get-table-policy" in data["settle"] and TABLE_BUCKET_ARN in data["settle"]


async def test_another_catalog_is_refused_with_no_aws_call(keys: dict[str, dict[str, str]],
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           aws_calls: Counter[str]) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", keys["reader"]["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", keys["reader"]["aws_secret_access_key"])
    settings = Settings(mode="local", port=free_port(), query_workgroups=(WORKGROUP,), cache_ttl_seconds=0)
    with ServerThread(settings) as server:
        async with Client(server.url, mode="2026-07-28") as client:
            aws_calls.clear()
            for catalog in ("lambda%3Amysql", "s3tablescatalog", "s3tablescatalog%2Fa%2Fb"):
                with pytest.raises(Exception, match="is not explained here"):
                    await client.read_resource(f"permissions://catalogs/{catalog}/tables/sales/daily_orders")
    assert sum(aws_calls.values()) == 0, aws_calls


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_completion_offers_the_catalogs_it_explains(keys: dict[str, dict[str, str]], mode: str) -> None:
    """Catalogs (the default and the table bucket's: not the S3 Tables root), databases and tables, as the table's
    own athena:// URI offers them."""
    explainer = ResourceTemplateReference(uri="permissions://catalogs/{catalog}/tables/{database}/{table}")
    settings = Settings(mode="local", port=free_port(), query_workgroups=(WORKGROUP,), cache_ttl_seconds=0)
    with ServerThread(settings) as server:
        async with Client(server.url, mode=mode) as client:
            catalogs = await client.complete(explainer, {"name": "catalog", "value": ""})
            databases = await client.complete(explainer, {"name": "database", "value": ""},
                                              {"catalog": BUCKET_CATALOG})
            tables = await client.complete(explainer, {"name": "table", "value": "d"},
                                           {"catalog": BUCKET_CATALOG, "database": "sales"})
    assert catalogs.completion.values == ["AwsDataCatalog", BUCKET_CATALOG]
    assert (databases.completion.values, tables.completion.values) == (["sales"], ["daily_orders"])


async def test_the_buckets_kms_key_is_judged_with_its_policy(keys: dict[str, dict[str, str]],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """SSE-KMS: a key whose policy lets IAM grant it, and a reader whose identity does not, is `denied` with the
    identity statement; a Deny naming the reader in the key's policy is fixed in the key's policy."""
    session = boto3.Session(region_name=REGION)
    kms, s3tables = session.client("kms"), session.client("s3tables")
    enable_iam = {"Sid": "EnableIam", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                  "Action": "kms:*", "Resource": "*"}
    deny = {"Sid": "NotTheReader", "Effect": "Deny", "Action": "kms:Decrypt", "Resource": "*",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/reader"}}
    key = kms.create_key(Policy=json.dumps({"Version": "2012-10-17", "Statement": [enable_iam]}))["KeyMetadata"]["Arn"]
    s3tables.put_table_bucket_encryption(tableBucketARN=TABLE_BUCKET_ARN, encryptionConfiguration={
        "sseAlgorithm": "aws:kms", "kmsKeyArn": key})
    try:
        ungranted = _link(await _explain(keys["reader"], monkeypatch), "kms:Decrypt")
        kms.put_key_policy(KeyId=key, PolicyName="default", Policy=json.dumps({
            "Version": "2012-10-17", "Statement": [enable_iam, deny]}))
        denied = _link(await _explain(keys["reader"], monkeypatch), "kms:Decrypt")
    finally:
        s3tables.put_table_bucket_encryption(tableBucketARN=TABLE_BUCKET_ARN, encryptionConfiguration={
            "sseAlgorithm": "AES256"})
    assert (ungranted["resource"], ungranted["verdict"]) == (key, "denied"), ungranted
    assert ungranted["evidence"]["key_policy"] == "read"
    assert ungranted["fix"][0]["statement"] == {"Effect": "Allow", "Action": ["kms:Decrypt"], "Resource": [key]}
    assert denied["verdict"] == "denied" and denied["fix"][0]["kind"] == "key_policy", denied
    assert denied["fix"][0]["removes"][0]["Sid"] == "NotTheReader"
