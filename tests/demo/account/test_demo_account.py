"""The embedded demo account: what it holds, what the demo caller may do, and a clean process afterwards."""

import dataclasses
import json
import logging
import os
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError
from moto import mock_aws, settings
from moto.athena.responses import AthenaResponse
from moto.core.responses import BaseResponse
from moto.iam.access_control import IAMRequest

from aws_data_mcp_demo.account import enterprise as enterprise_lake
from aws_data_mcp_demo.account.emulated import CONFLICTING_ENVIRONMENT, DemoAccount
from aws_data_mcp_demo.account.seed_data import DEMO_CALLER_USER, DENIED_WORKGROUP

ClientFactory = Callable[[str], Any]
_NO_RETRY = Config(retries={"max_attempts": 1, "mode": "standard"}, proxies={})


def _error_code(error: ClientError) -> str:
    return str(error.response["Error"]["Code"])


# Runs first, before the module fixture below starts its own account (one per process at a time).
def test_lifecycle_restores_the_process(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    environ_before = dict(os.environ)
    auth_before = settings.INITIAL_NO_AUTH_ACTION_COUNT
    levels_before = {name: logging.getLogger(name).level for name in ("werkzeug", "moto")}
    patched = ((AthenaResponse, "batch_get_query_execution"), (AthenaResponse, "_determine_resource"),
               (BaseResponse, "_authenticate_and_authorize_normal_action"), (IAMRequest, "_create_aws_request"))
    classes_before = {(cls, name): cls.__dict__.get(name) for cls, name in patched}

    with DemoAccount() as demo:
        assert settings.INITIAL_NO_AUTH_ACTION_COUNT == 0, "IAM must be enforced while the demo runs"
        assert dict(os.environ) == environ_before, "moto's keys of the in-process seed outlived it"
        with pytest.raises(RuntimeError, match="already running"):
            DemoAccount().start()
        environment = demo.caller_environment()
        endpoint = demo.endpoint_url
        demo.caller_client("sts").get_caller_identity()
        assert demo.startup_seconds is not None and demo.startup_seconds > 0  # its time is make bench's

    assert auth_before == settings.INITIAL_NO_AUTH_ACTION_COUNT
    assert dict(os.environ) == environ_before
    assert {name: logging.getLogger(name).level for name in ("werkzeug", "moto")} == levels_before
    # The IAM check is put back as it was (the suite's own moto server keeps the Athena gap-fills installed).
    assert {(cls, name): cls.__dict__.get(name) for cls, name in patched} == classes_before
    with pytest.raises(RuntimeError):
        demo.caller_environment()
    assert environment["AWS_SECRET_ACCESS_KEY"] not in caplog.text, "the caller's secret reached a log line"

    gone = boto3.client("sts", endpoint_url=endpoint, region_name="us-east-1", config=_NO_RETRY,
                        aws_access_key_id="x", aws_secret_access_key="x")
    with pytest.raises(EndpointConnectionError):
        gone.get_caller_identity()

    # moto's in-process mocks work unauthenticated again, as every other test expects.
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="after-the-demo")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["after-the-demo"]


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoAccount]:
    with DemoAccount() as account:
        yield account


@pytest.fixture(scope="module")
def caller(demo: DemoAccount) -> ClientFactory:
    """Clients acting as the demo caller, built only from caller_environment()."""
    environment = demo.caller_environment()
    session = boto3.Session(
        aws_access_key_id=environment["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=environment["AWS_SECRET_ACCESS_KEY"],
        region_name=environment["AWS_REGION"],
    )

    def client(service: str) -> Any:
        return session.client(service, endpoint_url=environment["AWS_ENDPOINT_URL"], config=_NO_RETRY)

    return client


def test_caller_environment(demo: DemoAccount) -> None:
    environment = demo.caller_environment()
    assert set(environment) == {
        "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION", "AWS_REGION",
    }
    assert environment["AWS_ENDPOINT_URL"].startswith("http://127.0.0.1:")
    assert environment["AWS_ENDPOINT_URL"] == demo.endpoint_url
    assert environment["AWS_REGION"] == environment["AWS_DEFAULT_REGION"] == demo.region == "us-east-1"
    merged = demo.merged_environment({"AWS_PROFILE": "prod", "AWS_SESSION_TOKEN": "t", "AWS_ENDPOINT_URL_S3": "x",
                                      "HOME": "/home/me"})
    assert merged == {"HOME": "/home/me", **environment}


def test_plain_boto3_follows_the_caller_environment(demo: DemoAccount, monkeypatch: pytest.MonkeyPatch) -> None:
    """What demo mode relies on: with only the environment applied, default boto3 clients reach the demo."""
    for name in CONFLICTING_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    for name, value in demo.caller_environment().items():
        monkeypatch.setenv(name, value)
    session = boto3.Session()
    assert session.client("sts").get_caller_identity()["Arn"] == demo.caller_arn
    assert DENIED_WORKGROUP in [w["Name"] for w in session.client("athena").list_work_groups()["WorkGroups"]]


def test_caller_identity_is_the_demo_user(demo: DemoAccount, caller: ClientFactory) -> None:
    identity = caller("sts").get_caller_identity()
    assert identity["Arn"] == demo.caller_arn == f"arn:aws:iam::{demo.account_id}:user/{DEMO_CALLER_USER}"
    assert identity["Account"] == demo.inventory.account_id


def test_no_secret_in_repr_or_inventory(demo: DemoAccount) -> None:
    secret = demo.caller_environment()["AWS_SECRET_ACCESS_KEY"]
    inventory = demo.inventory
    texts = [repr(demo), str(demo), repr(inventory), str(inventory), "\n".join(inventory.summary_lines()),
             json.dumps(dataclasses.asdict(inventory), default=str)]
    for text in texts:
        assert secret not in text


def test_buckets(demo: DemoAccount, caller: ClientFactory) -> None:
    names = {bucket["Name"] for bucket in caller("s3").list_buckets()["Buckets"]}
    assert len(names) >= 5
    assert set(demo.inventory.buckets) <= names


def _glue_tables(glue: Any) -> dict[str, list[dict[str, Any]]]:
    databases = [d["Name"] for page in glue.get_paginator("get_databases").paginate() for d in page["DatabaseList"]]
    return {
        database: [t for page in glue.get_paginator("get_tables").paginate(DatabaseName=database)
                   for t in page["TableList"]]
        for database in databases
    }


def test_glue_catalog(caller: ClientFactory) -> None:
    tables = _glue_tables(caller("glue"))
    assert {"sales", "marketing", "ml_features"} <= set(tables)
    all_tables = [table for listed in tables.values() for table in listed]
    assert len(all_tables) >= 10
    buckets = {bucket["Name"] for bucket in caller("s3").list_buckets()["Buckets"]}
    views = [table for table in all_tables if table.get("TableType") == "VIRTUAL_VIEW"]
    links = [table for table in all_tables if table.get("TargetTable")]  # no columns or files of their own
    assert [(t["DatabaseName"], t["Name"]) for t in links] == [("enterprise", enterprise_lake.LINK)]
    hive = [table for table in all_tables if table.get("Parameters", {}).get("table_type") != "ICEBERG"
            and table not in views and table not in links]
    iceberg = [table for table in all_tables if table not in hive and table not in views and table not in links]
    assert sorted(t["Name"] for t in views) == ["orders_by_channel", "returns_summary"]
    assert [(t["DatabaseName"], t["Name"]) for t in iceberg] == [("lakehouse", "orders_iceberg")]
    for table in iceberg:  # as pyiceberg registers it: its metadata file, its columns (no Hive format)
        metadata = table["Parameters"]["metadata_location"].removeprefix("s3://").split("/", 1)
        assert caller("s3").head_object(Bucket=metadata[0], Key=metadata[1])["ContentLength"] > 0
        assert all(column["Type"] and column.get("Comment") for column in table["StorageDescriptor"]["Columns"])
    for table in hive:
        descriptor = table["StorageDescriptor"]
        location = descriptor["Location"]
        assert location.startswith("s3://") and location.endswith("/")
        bucket = location.removeprefix("s3://").split("/", 1)[0]
        assert bucket in buckets or bucket == enterprise_lake.LAKE_BUCKET  # that one is the lake account's
        columns = descriptor["Columns"]
        assert columns and all(column["Type"] and column.get("Comment") for column in columns)
        assert descriptor["InputFormat"] and descriptor["OutputFormat"]
        assert descriptor["SerdeInfo"]["SerializationLibrary"]
        assert table["Parameters"]["classification"] in {"parquet", "csv", "json"}
    assert sum(bool(table.get("PartitionKeys")) for table in all_tables) >= 3


def test_every_table_location_has_objects(demo: DemoAccount, caller: ClientFactory) -> None:
    s3 = caller("s3")
    for name, location in demo.inventory.table_locations.items():
        bucket, prefix = location.removeprefix("s3://").split("/", 1)
        assert s3.list_objects_v2(Bucket=bucket, Prefix=prefix)["KeyCount"] >= 1, name


def test_partitions_are_registered(caller: ClientFactory) -> None:
    partitions = caller("glue").get_partitions(DatabaseName="sales", TableName="orders")["Partitions"]
    assert len(partitions) == 120  # one a day: sales.orders is the queryable table of 250,000 rows
    assert all("order_date=" in p["StorageDescriptor"]["Location"] for p in partitions)


def test_workgroups_listed_and_one_denied(demo: DemoAccount, caller: ClientFactory) -> None:
    athena = caller("athena")
    listed = [workgroup["Name"] for workgroup in athena.list_work_groups()["WorkGroups"]]
    assert len(listed) == 6
    assert set(listed) == set(demo.inventory.workgroups)
    assert DENIED_WORKGROUP in listed

    for name in listed:
        if name == DENIED_WORKGROUP:
            continue
        configuration = athena.get_work_group(WorkGroup=name)["WorkGroup"]["Configuration"]
        assert configuration["ResultConfiguration"]["OutputLocation"].startswith("s3://acme-athena-results/")
    analytics = athena.get_work_group(WorkGroup="analytics")["WorkGroup"]["Configuration"]
    assert analytics["EnforceWorkGroupConfiguration"] is True
    assert analytics["BytesScannedCutoffPerQuery"] > 0

    with pytest.raises(ClientError) as denied:
        athena.get_work_group(WorkGroup=DENIED_WORKGROUP)
    assert _error_code(denied.value) == "AccessDeniedException"
    assert "athena:GetWorkGroup" in denied.value.response["Error"]["Message"]
    assert f"workgroup/{DENIED_WORKGROUP}" in denied.value.response["Error"]["Message"]


def test_query_history(demo: DemoAccount, caller: ClientFactory) -> None:
    athena = caller("athena")
    ids: list[str] = []
    for workgroup in [w["Name"] for w in athena.list_work_groups()["WorkGroups"]]:
        ids.extend(athena.list_query_executions(WorkGroup=workgroup)["QueryExecutionIds"])
    executions = []
    for start in range(0, len(ids), 50):
        response = athena.batch_get_query_execution(QueryExecutionIds=ids[start:start + 50])
        assert response["UnprocessedQueryExecutionIds"] == []
        executions.extend(response["QueryExecutions"])

    assert len(executions) >= 30
    assert set(ids) == set(demo.inventory.query_execution_ids)
    assert len({execution["WorkGroup"] for execution in executions}) >= 3
    states = Counter(execution["Status"]["State"] for execution in executions)
    assert len(states) >= 3
    assert {"SUCCEEDED", "FAILED", "CANCELLED", "RUNNING"} <= set(states)
    assert states == Counter(demo.inventory.query_states)

    for execution in executions:
        status = execution["Status"]
        if status["State"] == "FAILED":
            assert status["StateChangeReason"] and status["AthenaError"]["ErrorMessage"]
        if status["State"] in ("RUNNING", "QUEUED"):
            assert "CompletionDateTime" not in status
        else:
            assert status["CompletionDateTime"] >= status["SubmissionDateTime"]
        if status["State"] == "SUCCEEDED" and execution["StatementType"] == "DML":
            assert execution["Statistics"]["DataScannedInBytes"] > 0
            assert execution["ResultConfiguration"]["OutputLocation"].startswith("s3://acme-athena-results/")
    assert any("FROM sales.orders" in execution["Query"] for execution in executions)

    newest_first = athena.list_query_executions()["QueryExecutionIds"]
    submitted = {e["QueryExecutionId"]: e["Status"]["SubmissionDateTime"] for e in executions}
    times = [submitted[execution_id] for execution_id in newest_first]
    assert times == sorted(times, reverse=True)


def test_single_query_and_its_results(caller: ClientFactory) -> None:
    athena = caller("athena")
    ids = athena.list_query_executions(WorkGroup="analytics")["QueryExecutionIds"]
    executions = athena.batch_get_query_execution(QueryExecutionIds=ids)["QueryExecutions"]
    succeeded = next(e for e in executions if e["Status"]["State"] == "SUCCEEDED" and e["StatementType"] == "DML")
    single = athena.get_query_execution(QueryExecutionId=succeeded["QueryExecutionId"])["QueryExecution"]
    assert single["Status"]["State"] == "SUCCEEDED"
    rows = athena.get_query_results(QueryExecutionId=succeeded["QueryExecutionId"])["ResultSet"]["Rows"]
    assert len(rows) >= 2, "header row plus data"
    with pytest.raises(ClientError) as missing:
        athena.get_query_execution(QueryExecutionId="00000000-0000-0000-0000-000000000000")
    assert _error_code(missing.value) == "InvalidRequestException"


def test_iam_users_groups_roles(demo: DemoAccount, caller: ClientFactory) -> None:
    iam = caller("iam")
    users = {user["UserName"] for user in iam.list_users()["Users"]}
    assert len(users) >= 3 and DEMO_CALLER_USER in users
    assert set(demo.inventory.users) == users
    assert [g["GroupName"] for g in iam.list_groups_for_user(UserName=DEMO_CALLER_USER)["Groups"]] == ["data-analysts"]
    assert iam.get_login_profile(UserName="alice.nguyen")["LoginProfile"]["UserName"] == "alice.nguyen"

    roles = {role["RoleName"]: role for role in iam.list_roles()["Roles"]}
    assert len(roles) >= 3
    principals = [statement["Principal"] for role in roles.values()
                  for statement in role["AssumeRolePolicyDocument"]["Statement"]]
    assert {"Service": "lambda.amazonaws.com"} in principals
    assert any(p.get("AWS", "").startswith("arn:aws:iam::210987654321:") for p in principals)
    federated = [p["Federated"] for p in principals if "Federated" in p]
    assert any(":saml-provider/" in arn for arn in federated)
    assert any(":oidc-provider/" in arn for arn in federated)


def test_identity_center_and_identity_providers(demo: DemoAccount, caller: ClientFactory) -> None:
    instances = caller("sso-admin").list_instances()["Instances"]
    assert [instance["InstanceArn"] for instance in instances] == [demo.inventory.identity_center_instance_arn]
    assert instances[0]["Name"] == "acme-identity-center"

    iam = caller("iam")
    oidc = [p["Arn"] for p in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]]
    assert any(arn.endswith("oidc-provider/token.actions.githubusercontent.com") for arn in oidc)
    saml = [p["Arn"] for p in iam.list_saml_providers()["SAMLProviderList"]]
    assert saml == list(demo.inventory.saml_providers)


def test_caller_cannot_change_anything(caller: ClientFactory) -> None:
    attempts: list[tuple[Callable[[], Any], set[str]]] = [
        (lambda: caller("iam").create_user(UserName="intruder"), {"AccessDenied"}),
        (lambda: caller("s3").create_bucket(Bucket="intruder"), {"AccessDenied"}),
        (lambda: caller("glue").create_database(DatabaseInput={"Name": "intruder"}), {"AccessDeniedException"}),
        (lambda: caller("athena").create_work_group(Name="intruder"), {"AccessDeniedException"}),
    ]
    for attempt, codes in attempts:
        with pytest.raises(ClientError) as denied:
            attempt()
        assert _error_code(denied.value) in codes


def test_bucket_access_levels(caller: ClientFactory) -> None:
    s3 = caller("s3")
    logs = s3.list_objects_v2(Bucket="acme-logs-archive")["Contents"]
    with pytest.raises(ClientError) as read_denied:
        s3.get_object(Bucket="acme-logs-archive", Key=logs[0]["Key"])
    assert _error_code(read_denied.value) == "AccessDenied"
    with pytest.raises(ClientError) as list_denied:
        s3.list_objects_v2(Bucket="acme-finance-secure")
    assert _error_code(list_denied.value) == "AccessDenied"
    s3.put_object(Bucket="acme-athena-results", Key="primary/pytest-write-check.txt", Body=b"ok")  # may write results
    with pytest.raises(ClientError) as delete_denied:  # but not delete them
        s3.delete_object(Bucket="acme-athena-results", Key="primary/pytest-write-check.txt")
    assert _error_code(delete_denied.value) == "AccessDenied"


def _wrong_secret(demo: DemoAccount, service: str) -> Any:
    """A client of `service` with the demo caller's key id and a secret that is not its own."""
    return boto3.client(service, endpoint_url=demo.endpoint_url, region_name=demo.region, config=_NO_RETRY,
                        aws_access_key_id=demo.caller_environment()["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key="not-the-secret")


def test_foreign_credentials_are_rejected(demo: DemoAccount) -> None:
    with pytest.raises(ClientError) as bad_signature:
        _wrong_secret(demo, "athena").list_work_groups()
    assert _error_code(bad_signature.value) == "InvalidSignatureException"

    unknown = boto3.client(
        "sts", endpoint_url=demo.endpoint_url, region_name=demo.region, config=_NO_RETRY,
        aws_access_key_id="AKIAUNKNOWNKEY000000", aws_secret_access_key="whatever",
    )
    with pytest.raises(ClientError) as unknown_key:
        unknown.get_caller_identity()
    assert _error_code(unknown_key.value) == "InvalidClientTokenId"


def test_a_request_without_a_body_is_signed_as_sent(demo: DemoAccount, caller: ClientFactory) -> None:
    """S3 Tables' listings are GETs with no body, some with a query or an ARN in the path: each passes the
    signature check, and a wrong secret still fails it."""
    s3tables = caller("s3tables")
    buckets = s3tables.list_table_buckets()["tableBuckets"]
    assert [b["name"] for b in buckets] == ["acme-analytics"]
    assert s3tables.list_table_buckets(prefix="acme", maxBuckets=5)["tableBuckets"] == buckets
    arn = buckets[0]["arn"]
    assert [n["namespace"] for n in s3tables.list_namespaces(tableBucketARN=arn)["namespaces"]] == [["sales"]]
    tables = s3tables.list_tables(tableBucketARN=arn, namespace="sales")["tables"]
    assert [t["name"] for t in tables] == ["daily_orders"]
    with pytest.raises(ClientError) as bad_signature:
        _wrong_secret(demo, "s3tables").list_table_buckets()
    assert bad_signature.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert "SignatureDoesNotMatch" in str(bad_signature.value)  # moto answers it in XML, whatever the protocol


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/moto-api/data.json"),  # every emulated key, secret and session
    ("GET", "/moto-api/"),
    ("POST", "/moto-api/reset-auth"),  # would switch IAM enforcement off
    ("POST", "/moto-api/static/athena/query-results"),
    ("POST", "/moto-api/reset"),  # would empty the account (last: on a server that serves it, nothing is left)
])
def test_the_emulated_endpoint_serves_no_admin_api(demo: DemoAccount, caller: ClientFactory, method: str,
                                                   path: str) -> None:
    """Any local user can reach the endpoint; moto's admin API there made the owner-only profile files moot."""
    request = urllib.request.Request(f"{demo.endpoint_url}{path}", data=b"0" if method == "POST" else None,
                                     method=method)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=10)
    assert refused.value.code == 403
    assert demo.caller_environment()["AWS_SECRET_ACCESS_KEY"] not in refused.value.read().decode()
    assert settings.INITIAL_NO_AUTH_ACTION_COUNT == 0, "IAM still enforced"
    assert caller("athena").list_work_groups()["WorkGroups"], "the account still seeded"
