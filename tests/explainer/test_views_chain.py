"""The view explainer's chain over moto, IAM enforced: an Athena view follows its base tables as the caller and
names the base table whose link refuses; a Data Catalog view is refused at the view without the caller's Lake
Formation SELECT, and its base tables are checked as its definer (decided only where the caller sees the grants).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer import views
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp_demo.account.table_facts import athena_view_text
from support.access_gaps import enforced, lake_formation_gaps  # noqa: F401  (fixtures)
from support.fixes import apply_fix
from support.reading import iam_users, reset_moto

pytestmark = [pytest.mark.usefixtures("lake_formation_gaps", "enforced")]
ACCOUNT, REGION, WORKGROUP = "123456789012", "us-east-1", "analytics"
SETTINGS = Settings(mode="local", query_workgroups=(WORKGROUP,), cache_ttl_seconds=0)
COLUMNS = [{"Name": "id", "Type": "bigint"}, {"Name": "region", "Type": "string"}]
DEFINER = f"arn:aws:iam::{ACCOUNT}:role/view-definer"
READS = [
    {"Effect": "Allow", "Resource": "*", "Action": [
        "glue:GetDatabase", "glue:GetTable", "glue:GetPartitions", "s3:ListBucket", "s3:GetObject",
        "s3:GetBucketPolicy", "s3:GetEncryptionConfiguration", "s3:ListAllMyBuckets", "athena:GetWorkGroup",
        "athena:StartQueryExecution", "athena:GetQueryExecution", "athena:GetQueryResults", "kms:Decrypt",
        "kms:GetKeyPolicy", "lakeformation:ListResources",
        "lakeformation:ListPermissions", "lakeformation:GetDataLakeSettings", "lakeformation:GetDataAccess",
        "lakeformation:ListDataCellsFilter", "lakeformation:GetResourceLFTags",
        "lakeformation:ListLakeFormationOptIns", "iam:SimulatePrincipalPolicy"]},
    {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::results/*"}]
"""All a caller needs to query a table of the account: the analyst's, and the steward's."""


def _athena_view(name: str, sql: str) -> dict[str, Any]:
    return {"Name": name, "TableType": "VIRTUAL_VIEW", "Parameters": {"presto_view": "true"},
            "ViewOriginalText": athena_view_text(sql, "sales", [("id", "bigint")], "someone"),
            "ViewExpandedText": "/* Presto View */", "StorageDescriptor": {"Columns": COLUMNS[:1]}}


@pytest.fixture(scope="module")
def lake() -> Iterator[dict[str, dict[str, str]]]:
    """sales.orders (readable), sales.secret (its bucket denies the analyst s3:GetObject), Athena views over them
    and over a view, and a Data Catalog view over sales.orders; the users' access keys."""
    reset_moto()
    session = boto3.Session(region_name=REGION)
    s3, glue, iam = (session.client(name) for name in ("s3", "glue", "iam"))
    for bucket in ("lake-open", "lake-blocked", "results"):
        s3.create_bucket(Bucket=bucket)
    s3.put_bucket_policy(Bucket="lake-blocked", Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "NoAnalyst", "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/analyst"},
         "Action": "s3:GetObject", "Resource": "arn:aws:s3:::lake-blocked/*"}]}))
    glue.create_database(DatabaseInput={"Name": "sales"})
    for table, bucket in (("orders", "lake-open"), ("secret", "lake-blocked")):
        glue.create_table(DatabaseName="sales", TableInput={"Name": table, "StorageDescriptor": {
            "Location": f"s3://{bucket}/{table}/", "Columns": COLUMNS}})
        s3.put_object(Bucket=bucket, Key=f"{table}/part-0.csv", Body=b"1,eu\n")
    glue.create_table(DatabaseName="sales", TableInput=_athena_view("by_region", "SELECT id FROM orders"))
    glue.create_table(DatabaseName="sales", TableInput=_athena_view(
        "joined", "SELECT o.id FROM orders o JOIN sales.secret s ON o.id = s.id"))
    glue.create_table(DatabaseName="sales", TableInput=_athena_view("over_joined", "SELECT id FROM joined"))
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "summary", "TableType": "VIRTUAL_VIEW", "StorageDescriptor": {"Columns": COLUMNS},
        "ViewDefinition": {"IsProtected": True, "Definer": DEFINER,
                           "SubObjects": [f"arn:aws:glue:{REGION}:{ACCOUNT}:table/sales/orders"],
                           "Representations": [{"Dialect": "ATHENA", "DialectVersion": "3",
                                                "ViewOriginalText": "SELECT id, region FROM sales.orders"}]}})
    session.client("athena").create_work_group(Name=WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": f"s3://results/{WORKGROUP}/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    keys = iam_users(iam, {"analyst": READS, "steward": READS,
                           "admin": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
    session.client("lakeformation").put_data_lake_settings(DataLakeSettings={"DataLakeAdmins": [
        {"DataLakePrincipalIdentifier": f"arn:aws:iam::{ACCOUNT}:user/steward"}]})
    yield keys
    reset_moto()


def explain(lake: dict[str, dict[str, str]], user: str, view: str) -> Any:
    session = boto3.Session(region_name=REGION, **lake[user])
    who = Caller("local", session, REGION, principal_arn=f"arn:aws:iam::{ACCOUNT}:user/{user}", account=ACCOUNT)
    reader = ResourceReader(registry, SETTINGS)
    return json.loads(anyio.run(reader.read, f"permissions://tables/sales/{view}", lambda: who).text)


def _admin(lake: dict[str, dict[str, str]]) -> Any:
    return boto3.Session(region_name=REGION, **lake["admin"]).client


def test_an_athena_view_follows_its_base_tables_and_names_the_one_that_refuses(
        lake: dict[str, dict[str, str]]) -> None:
    readable = explain(lake, "analyst", "by_region")
    assert readable["query"] == "allowed" and readable["refused_at"] is None, readable["summary"]
    assert readable["view"]["runs_as"] == "invoker" and readable["base_tables"][0]["query"] == "allowed"
    joined = explain(lake, "analyst", "joined")
    assert joined["query"] == "denied", joined["summary"]
    assert joined["refused_at"] == {"table": "sales.secret", "check": "s3:GetObject",
                                    "resource": joined["refused_at"]["resource"]}
    assert "lake-blocked" in joined["refused_at"]["resource"] and "s3:GetObject" in joined["summary"]
    orders, secret = joined["base_tables"]
    assert (orders["table"], orders["query"], secret["table"], secret["query"]) == (
        "orders", "allowed", "secret", "denied")
    denied = [e for e in secret["links"] if e["verdict"] == "denied"]
    assert [e["check"] for e in denied] == ["s3:GetObject"] and denied[0]["fix"][0]["kind"] == "bucket_policy"
    assert all(e["verdict"] == "allowed" for e in joined["links"])  # the view's own Glue links hold


def test_a_view_over_a_view_is_followed_to_the_refusing_table_and_stops_at_the_cap(
        lake: dict[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    nested = explain(lake, "analyst", "over_joined")
    assert nested["query"] == "denied" and nested["refused_at"]["table"] == "sales.secret", nested["summary"]
    inner = nested["base_tables"][0]
    assert inner["table"] == "joined" and [b["table"] for b in inner["base_tables"]] == ["orders", "secret"]
    monkeypatch.setattr(views, "DEPTH", 1)
    capped = explain(lake, "analyst", "over_joined")
    beneath = capped["base_tables"][0]["base_tables"]
    assert {b["query"] for b in beneath} == {"unknown"} and capped["query"] == "unknown", capped["summary"]
    assert "not followed" in beneath[0]["links"][0]["settle"] and "deep" in capped["followed"]


def test_a_data_catalog_view_without_the_callers_grant_is_denied_at_the_view(
        lake: dict[str, dict[str, str]]) -> None:
    refused = explain(lake, "analyst", "summary")
    assert refused["query"] == "denied" and refused["decided_by"] == "lake_formation", refused["summary"]
    assert refused["refused_at"]["table"] == "sales.summary" and refused["refused_at"]["check"] == (
        "lakeformation:SELECT")
    base = refused["base_tables"][0]
    assert (base["table"], base["checked_as"], base["links"][0]["evidence"]["definer"]) == (
        "orders", "definer", DEFINER)
    fix = next(e for e in refused["links"] if e["verdict"] == "denied")["fix"][0]
    apply_fix(fix, _admin(lake))
    granted = explain(lake, "analyst", "summary")
    assert granted["query"] == "allowed" and granted["read_columns"] == ["id", "region"], granted["summary"]
    # the definer's grant on sales.orders is not the analyst's to see: said, never taken for allowed
    assert granted["definer_reads"] == "unknown" and granted["base_tables"][0]["links"][0]["verdict"] == "unknown"


def test_a_data_lake_administrator_sees_the_definers_missing_grant(lake: dict[str, dict[str, str]]) -> None:
    lakeformation = _admin(lake)("lakeformation")
    lakeformation.grant_permissions(
        Principal={"DataLakePrincipalIdentifier": f"arn:aws:iam::{ACCOUNT}:user/steward"},
        Resource={"Table": {"DatabaseName": "sales", "Name": "summary"}}, Permissions=["SELECT"])
    missing = explain(lake, "steward", "summary")
    assert missing["query"] == "denied" and missing["refused_at"]["table"] == "sales.orders", missing["summary"]
    link = missing["base_tables"][0]["links"][0]
    assert link["verdict"] == "denied" and link["fix"][0]["request"]["Principal"] == {
        "DataLakePrincipalIdentifier": DEFINER}
    apply_fix(link["fix"][0], _admin(lake))
    held = explain(lake, "steward", "summary")
    assert held["query"] == "allowed" and held["definer_reads"] == "allowed", held["summary"]
