"""permissions://tables/{database}/{table} and permissions://buckets/{bucket} on an account whose IAM moto enforces
(with Glue's, S3's and KMS's resource checks filled in: `moto_extensions.RESOURCE_CHECKS`): a caller allowed end to
end, and one refusal per link of the chain, each fixed by applying the explainer's own fix as an administrator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest
from botocore.exceptions import ReadTimeoutError

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.uris import explainer_in
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp.query.errors import query_failure
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from support.access_gaps import enforced, lake_formation_gaps  # noqa: F401  (fixtures)
from support.events import load_event
from support.faults import AwsFaults
from support.fixes import apply_fix
from support.reading import iam_users, read_everywhere, reset_moto
from support.servers import ServerThread, free_port, lambda_container

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("lake_formation_gaps")]
ACCOUNT, REGION, WORKGROUP = "123456789012", "us-east-1", "analytics"
SETTINGS = Settings(mode="local", query_workgroups=(WORKGROUP,), cache_ttl_seconds=0)
COLUMNS = [{"Name": "id", "Type": "bigint"}, {"Name": "region", "Type": "string"}, {"Name": "email", "Type": "string"}]
TABLES = {"sales": {"orders": "lake-open", "blocked": "lake-blocked", "secure": "lake-secure"},
          "governed": {"orders": "lake-governed", "customers": "lake-governed"}}
FULL = [
    {"Effect": "Allow", "Action": ["glue:GetDatabase", "glue:GetTable", "glue:GetPartitions", "glue:GetDatabases",
                                   "glue:GetTables"], "Resource": "*"},
    {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:GetObject", "s3:GetBucketPolicy", "s3:GetBucketLocation",
                                   "s3:GetEncryptionConfiguration", "s3:GetBucketPublicAccessBlock",
                                   "s3:GetBucketOwnershipControls", "s3:ListAllMyBuckets"], "Resource": "*"},
    {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::results/*"},
    {"Effect": "Allow", "Action": ["athena:GetWorkGroup", "athena:StartQueryExecution", "athena:GetQueryExecution",
                                   "athena:GetQueryResults"], "Resource": "*"},
    {"Effect": "Allow", "Action": ["kms:Decrypt", "kms:GetKeyPolicy"], "Resource": "*"},
    {"Effect": "Allow", "Action": ["lakeformation:ListResources", "lakeformation:ListPermissions",
                                   "lakeformation:GetDataLakeSettings", "lakeformation:GetDataAccess",
                                   "lakeformation:ListDataCellsFilter", "lakeformation:GetResourceLFTags",
                                   "lakeformation:ListLakeFormationOptIns"], "Resource": "*"},
    {"Effect": "Allow", "Action": "iam:SimulatePrincipalPolicy", "Resource": "*"}]
"""What a caller needs to query every table of the account, all of it."""


def _without(*dropped: str) -> list[dict[str, Any]]:
    kept = []
    for statement in FULL:
        actions = [a for a in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
                   if a not in dropped]
        if actions:
            kept.append(statement | {"Action": actions})
    return kept


NO_GLUE = _without("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions")
USERS = {"analyst": FULL, "no-glue": NO_GLUE, "refused": NO_GLUE,
         "no-lake-formation": _without("lakeformation:ListResources", "lakeformation:ListPermissions"),
         "no-kms": _without("kms:Decrypt"),
         "no-data-access": _without("lakeformation:GetDataAccess"), "no-results": _without("s3:PutObject"),
         "no-policy-read": [*FULL, {"Effect": "Deny", "Action": "s3:GetBucketPolicy",
                                    "Resource": "arn:aws:s3:::results"}],
         "admin": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


def _document(statements: list[dict[str, Any]]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


@pytest.fixture(scope="module")
def lake() -> Iterator[dict[str, dict[str, str]]]:
    """The account, seeded before IAM is enforced; the access keys of each user."""
    reset_moto()
    session = boto3.Session(region_name=REGION)
    s3, glue, iam, kms = (session.client(name) for name in ("s3", "glue", "iam", "kms"))
    key = kms.create_key(Description="secure lake")["KeyMetadata"]["Arn"]
    for bucket in ("lake-open", "lake-blocked", "lake-secure", "lake-governed", "results"):
        s3.create_bucket(Bucket=bucket)
    s3.put_bucket_encryption(Bucket="lake-secure", ServerSideEncryptionConfiguration={"Rules": [
        {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": key}}]})
    s3.put_bucket_policy(Bucket="lake-blocked", Policy=_document([
        {"Sid": "NoAnalyst", "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/analyst"},
         "Action": "s3:GetObject", "Resource": "arn:aws:s3:::lake-blocked/*"}]))
    s3.put_bucket_policy(Bucket="results", Policy=_document([
        {"Sid": "Owner", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
         "Action": "s3:*", "Resource": ["arn:aws:s3:::results", "arn:aws:s3:::results/*"]}]))
    for database, tables in TABLES.items():
        glue.create_database(DatabaseInput={"Name": database})
        for table, bucket in tables.items():
            glue.create_table(DatabaseName=database, TableInput={"Name": table, "StorageDescriptor": {
                "Location": f"s3://{bucket}/{table}/", "Columns": COLUMNS}})
            extra = {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": key} if bucket == "lake-secure" else {}
            s3.put_object(Bucket=bucket, Key=f"{table}/part-0.csv", Body=b"1,eu,a@example.com\n", **extra)
    session.client("athena").create_work_group(Name=WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": f"s3://results/{WORKGROUP}/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    _partitioned(session, key)
    session.client("athena").create_work_group(Name="unguarded", Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://results/unguarded/"}})
    lakeformation = session.client("lakeformation")
    lakeformation.register_resource(ResourceArn="arn:aws:s3:::lake-governed", UseServiceLinkedRole=True)
    for user in ("analyst", "no-data-access"):
        lakeformation.grant_permissions(
            Principal={"DataLakePrincipalIdentifier": f"arn:aws:iam::{ACCOUNT}:user/{user}"},
            Resource={"TableWithColumns": {"DatabaseName": "governed", "Name": "customers",
                                           "ColumnNames": ["id", "region"]}}, Permissions=["SELECT"])
    keys = iam_users(iam, USERS)
    yield keys
    reset_moto()


def _partitioned(session: boto3.Session, readable_key: str) -> None:
    """sales.events: two partitions under the table's root, the second under a key whose policy denies the analyst
    kms:Decrypt; sales.far: a partition in lake-far, whose policy denies the analyst s3:GetObject."""
    s3, glue, kms = (session.client(name) for name in ("s3", "glue", "kms"))
    s3.create_bucket(Bucket="lake-far")
    s3.put_bucket_policy(Bucket="lake-far", Policy=_document([
        {"Sid": "NoAnalyst", "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/analyst"},
         "Action": "s3:GetObject", "Resource": "arn:aws:s3:::lake-far/*"}]))
    second = kms.create_key(Description="events, second half", Policy=_document([
        {"Sid": "Owner", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "kms:*",
         "Resource": "*"},
        {"Sid": "NotTheAnalyst", "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/analyst"},
         "Action": "kms:Decrypt", "Resource": "*"}]))["KeyMetadata"]["Arn"]
    places = {"events": [("1", "lake-open", "events/dt=1/", readable_key), ("2", "lake-open", "events/dt=2/", second)],
              "far": [("1", "lake-open", "far/dt=1/", None), ("2", "lake-far", "far/dt=2/", None)]}
    for table, partitions in places.items():
        glue.create_table(DatabaseName="sales", TableInput={
            "Name": table, "PartitionKeys": [{"Name": "dt", "Type": "string"}], "StorageDescriptor": {
                "Location": f"s3://lake-open/{table}/", "Columns": COLUMNS}})
        for value, bucket, prefix, key in partitions:
            glue.create_partition(DatabaseName="sales", TableName=table, PartitionInput={
                "Values": [value], "StorageDescriptor": {"Location": f"s3://{bucket}/{prefix}", "Columns": COLUMNS}})
            extra = {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": key} if key else {}
            s3.put_object(Bucket=bucket, Key=f"{prefix}part-0.csv", Body=b"1,eu,a@example.com\n", **extra)


def _session(keys: dict[str, str]) -> boto3.Session:
    return boto3.Session(region_name=REGION, **keys)


def caller(lake: dict[str, dict[str, str]], user: str) -> tuple[Caller, AwsFaults]:
    session = _session(lake[user])
    faults = AwsFaults(session)
    return Caller("local", session, REGION, principal_arn=f"arn:aws:iam::{ACCOUNT}:user/{user}",
                  account=ACCOUNT), faults


def explain(uri: str, who: Caller) -> Any:
    reader = ResourceReader(registry, SETTINGS)
    return json.loads(anyio.run(reader.read, uri, lambda: who).text)


def by_check(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The links by check; a workgroup's under `workgroup/check`."""
    links = {entry["check"]: entry for entry in found["links"]}
    for name, entries in (found.get("workgroups") or {}).items():
        links |= {f"{name}/{entry['check']}": entry for entry in entries}
    return links


def verdicts(found: dict[str, Any]) -> dict[str, str]:
    return {check: entry["verdict"] for check, entry in by_check(found).items()}


def apply(fix: dict[str, Any], lake: dict[str, dict[str, str]]) -> None:
    """The fix applied as printed, by an administrator."""
    apply_fix(fix, _session(lake["admin"]).client)


def fixed(lake: dict[str, dict[str, str]], user: str, uri: str, check: str) -> dict[str, Any]:
    """The explainer read, the denied link's fixes applied, and the explainer read again."""
    who, _ = caller(lake, user)
    denied = by_check(explain(uri, who))[check]
    assert denied["verdict"] == "denied", denied
    for fix in denied["fix"]:
        apply(fix, lake)
    return explain(uri, who)


@pytest.mark.usefixtures("enforced")
def test_a_caller_allowed_end_to_end(lake: dict[str, dict[str, str]]) -> None:
    who, faults = caller(lake, "analyst")
    found = explain("permissions://tables/sales/orders", who)
    assert found["query"] == "allowed" and found["workgroup"] == WORKGROUP and found["decided_by"] == "iam", \
        json.dumps(found, indent=1)
    assert set(verdicts(found).values()) == {"allowed"}, verdicts(found)
    assert found["read_columns"] == ["id", "region", "email"]
    assert found["location"] == "s3://lake-open/orders/"
    assert found["unseen"][0]["verdict"] == "unknown" and "settle" in found["unseen"][0]
    # each S3/Glue verdict is what the same call made directly as the caller answers
    s3 = _session(lake["analyst"]).client("s3")
    s3.list_objects_v2(Bucket="lake-open", Prefix="orders/")
    s3.get_object(Bucket="lake-open", Key="orders/part-0.csv", Range="bytes=0-0")
    # the calls one table costs: each once, but the bucket policies (the data's, the results') and the simulations
    # (Athena's actions, writing results); ListBuckets names the results bucket's owner
    assert faults.calls == {"glue.GetDatabase": 1, "glue.GetTable": 1, "glue.GetPartitions": 1,
                            "lakeformation.ListResources": 1, "lakeformation.ListPermissions": 2,
                            "lakeformation.ListDataCellsFilter": 1, "lakeformation.GetResourceLFTags": 1,
                            "lakeformation.ListLakeFormationOptIns": 1, "lakeformation.GetDataLakeSettings": 1,
                            "athena.GetWorkGroup": 1,
                            "iam.SimulatePrincipalPolicy": 2, "s3.ListObjectsV2": 1, "s3.GetBucketPolicy": 2,
                            "s3.GetBucketEncryption": 1, "s3.GetObject": 1, "s3.HeadObject": 1,
                            "s3.ListBuckets": 1}  # the results bucket's owner, beside its policy


@pytest.mark.usefixtures("enforced")
def test_one_table_is_three_dependent_waves(lake: dict[str, dict[str, str]]) -> None:
    who, faults = caller(lake, "analyst")
    explain("permissions://tables/sales/orders", who)  # clients built
    waves = faults.waves("glue", "s3", "kms", "iam", "athena", "lakeformation")
    explain("permissions://tables/sales/orders", who)
    assert waves.count == 3  # each call after the wave it depends on; the time it takes is make bench's


@pytest.mark.usefixtures("enforced")
def test_denied_at_glue_and_fixed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "no-glue")
    found = explain("permissions://tables/sales/orders", who)
    assert found["query"] == "denied" and found["read_columns"] == []
    assert verdicts(found)["glue:GetTable"] == "denied"
    fix = by_check(found)["glue:GetTable"]["fix"][0]
    assert fix["statement"]["Resource"][2] == f"arn:aws:glue:{REGION}:{ACCOUNT}:table/sales/orders"
    after = fixed(lake, "no-glue", "permissions://tables/sales/orders", "glue:GetTable")
    assert after["query"] == "allowed", verdicts(after)


@pytest.mark.usefixtures("enforced")
def test_denied_by_a_bucket_policy_and_fixed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")
    found = explain("permissions://tables/sales/blocked", who)
    link = by_check(found)["s3:GetObject"]
    assert found["query"] == "denied" and link["verdict"] == "denied"
    # the Deny denies the whole bucket: narrowed for the table's objects, the rest of the bucket still denied
    fix = link["fix"][0]
    assert fix["kind"] == "bucket_policy" and "removes" not in fix
    assert [(entry["Sid"], entry.get("NotResource")) for entry in fix["narrows"]] == [
        ("NoAnalystBeside", link["resource"])]
    assert fixed(lake, "analyst", "permissions://tables/sales/blocked", "s3:GetObject")["query"] == "allowed"


@pytest.mark.usefixtures("enforced")
def test_denied_kms_decrypt_and_fixed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "no-kms")
    found = explain("permissions://tables/sales/secure", who)
    assert verdicts(found)["kms:Decrypt"] == "denied" and verdicts(found)["s3:GetObject"] == "allowed"
    assert by_check(found)["kms:Decrypt"]["evidence"]["key_policy"] == "read"
    assert fixed(lake, "no-kms", "permissions://tables/sales/secure", "kms:Decrypt")["query"] == "allowed"


@pytest.mark.usefixtures("enforced")
def test_lake_formation_without_a_grant_and_fixed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")
    found = explain("permissions://tables/governed/orders", who)
    assert found["decided_by"] == "lake_formation" and found["query"] == "denied"
    assert by_check(found)["lakeformation:DescribeResource"]["evidence"]["registered_location"] == \
        "arn:aws:s3:::lake-governed"
    assert {e["governed_by"] for e in found["links"] if e["check"].startswith("s3:")} == {"lake_formation"}
    after = fixed(lake, "analyst", "permissions://tables/governed/orders", "lakeformation:SELECT")
    assert after["query"] == "allowed" and after["read_columns"] == ["id", "region", "email"]


@pytest.mark.usefixtures("enforced")
def test_lake_formation_column_grant_reads_those_columns(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")
    found = explain("permissions://tables/governed/customers", who)
    assert found["query"] == "allowed" and found["read_columns"] == ["id", "region"]


@pytest.mark.usefixtures("enforced")
def test_lake_formation_needs_get_data_access_in_iam(lake: dict[str, dict[str, str]]) -> None:
    """A column grant is not enough: Athena asks lakeformation:GetDataAccess as the caller."""
    who, _ = caller(lake, "no-data-access")
    found = explain("permissions://tables/governed/customers", who)
    assert verdicts(found)["lakeformation:SELECT"] == "allowed" and found["query"] == "denied", verdicts(found)
    link = by_check(found)["lakeformation:GetDataAccess"]
    assert link["verdict"] == "denied" and link["fix"][0]["statement"]["Action"] == ["lakeformation:GetDataAccess"]
    assert found["summary"].startswith("denied: lakeformation:GetDataAccess on * (identity policy) — fix by an "
                                       "administrator: add an identity-policy statement"), found["summary"]
    after = fixed(lake, "no-data-access", "permissions://tables/governed/customers", "lakeformation:GetDataAccess")
    assert after["query"] == "allowed" and after["read_columns"] == ["id", "region"]
    assert after["summary"] == "allowed: SELECT on governed.customers runs in workgroup analytics (id, region)"


@pytest.mark.usefixtures("enforced")
def test_every_partition_location_is_sampled(lake: dict[str, dict[str, str]]) -> None:
    """Files under a second key, or a partition in a bucket that denies the caller, refuse the query:
    never "allowed" from the first object of the root alone."""
    who, _ = caller(lake, "analyst")
    events = explain("permissions://tables/sales/events", who)
    decrypts = [e for e in events["links"] if e["check"] == "kms:Decrypt"]
    assert [e["evidence"]["location"] for e in decrypts] == ["s3://lake-open/events/", "s3://lake-open/events/dt=1/",
                                                             "s3://lake-open/events/dt=2/"]
    assert [e["verdict"] for e in decrypts][1:] == ["allowed", "denied"] and events["query"] == "denied"
    assert decrypts[0]["evidence"]["objects_sampled"] == 2 and len(decrypts[0]["evidence"]["kms_keys"]) == 2
    assert decrypts[0]["verdict"] == "denied"  # the root's sample holds both partitions' files
    far = explain("permissions://tables/sales/far", who)
    reads = {e["evidence"]["location"]: e["verdict"] for e in far["links"] if e["check"] == "s3:GetObject"}
    assert reads == {"s3://lake-open/far/": "allowed", "s3://lake-open/far/dt=1/": "allowed",
                     "s3://lake-far/far/dt=2/": "denied"}, reads
    assert far["query"] == "denied" and far["summary"].startswith("denied: s3:GetObject on arn:aws:s3:::lake-far")


@pytest.mark.usefixtures("enforced")
def test_the_servers_cost_guard_is_its_own_link(lake: dict[str, dict[str, str]]) -> None:
    """A workgroup without an enforced cutoff: AWS describes it; this server refuses it (refused_by: server)."""
    who, _ = caller(lake, "analyst")
    reader = ResourceReader(registry, Settings(mode="local", query_workgroups=("unguarded",), cache_ttl_seconds=0))
    found = json.loads(anyio.run(reader.read, "permissions://tables/sales/orders", lambda: who).text)
    links = {entry["check"]: entry for entry in found["workgroups"]["unguarded"]}
    assert links["athena:GetWorkGroup"]["verdict"] == "allowed"
    guard = links["aws-data-mcp:CostGuard"]
    assert (guard["verdict"], guard["refused_by"], guard["fix"][0]["kind"]) == ("denied", "server", "workgroup")
    assert "cutoff" in guard["evidence"]["reason"].lower() and found["query"] == "denied"
    assert found["summary"].startswith("denied: aws-data-mcp:CostGuard on") and "this server's rule" in found["summary"]


@pytest.mark.usefixtures("enforced")
def test_a_result_location_not_writable_and_fixed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "no-results")
    found = explain("permissions://tables/sales/orders", who)
    assert verdicts(found)[f"{WORKGROUP}/s3:PutObject"] == "denied" and found["query"] == "denied"
    after = fixed(lake, "no-results", "permissions://tables/sales/orders", f"{WORKGROUP}/s3:PutObject")
    assert after["query"] == "allowed"


@pytest.mark.usefixtures("enforced")
def test_an_unreadable_bucket_policy_is_unknown(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "no-policy-read")
    found = explain("permissions://tables/sales/orders", who)
    link = by_check(found)[f"{WORKGROUP}/s3:PutObject"]
    assert link["verdict"] == "unknown" and link["evidence"]["bucket_policy"] == "unreadable"
    assert "get-bucket-policy" in link["settle"] and found["query"] == "unknown"


@pytest.mark.usefixtures("enforced")
def test_a_bucket_explained(lake: dict[str, dict[str, str]]) -> None:
    who, faults = caller(lake, "analyst")
    found = explain("permissions://buckets/results", who)
    assert (found["list"], found["write"]) == ("allowed", "allowed")
    assert found["read"] == "unknown" and "No object" in by_check(found)["s3:GetObject"]["settle"]  # it is empty
    assert faults.calls == {"s3.ListObjectsV2": 1, "s3.GetBucketPolicy": 1, "s3.GetBucketEncryption": 1,
                            "lakeformation.ListResources": 1, "s3.GetPublicAccessBlock": 1,
                            "s3.GetBucketOwnershipControls": 1, "iam.SimulatePrincipalPolicy": 1,
                            "s3.ListBuckets": 1}
    assert found["decided_by"] == "iam" and found["lake_formation_locations"] == []
    governed = explain("permissions://buckets/lake-governed", who)
    assert governed["decided_by"] == "lake_formation"
    assert governed["lake_formation_locations"] == ["arn:aws:s3:::lake-governed"]


def test_bad_names_cost_no_call(lake: dict[str, dict[str, str]]) -> None:
    who, faults = caller(lake, "analyst")
    for uri in ("permissions://tables/sales/or%20ders", "permissions://buckets/Not_A_Bucket"):
        reader = ResourceReader(registry, SETTINGS)
        with pytest.raises(Exception) as raised:
            anyio.run(reader.read, uri, lambda: who)
        assert raised.value.code.value == "invalid_argument"  # type: ignore[attr-defined]
    assert sum(faults.calls.values()) == 0


@pytest.mark.usefixtures("enforced")
def test_a_missing_table_is_not_found(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")
    reader = ResourceReader(registry, SETTINGS)
    with pytest.raises(Exception) as raised:
        anyio.run(reader.read, "permissions://tables/sales/nothing", lambda: who)
    assert raised.value.code.value == "not_found"  # type: ignore[attr-defined]


@pytest.mark.usefixtures("enforced")
async def test_through_every_path(lake: dict[str, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", lake["analyst"]["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", lake["analyst"]["aws_secret_access_key"])
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    settings = {"mode": "local", "query_workgroups": (WORKGROUP,)}
    with ServerThread(Settings(**settings, port=free_port())) as server:
        container = lambda_container(Settings(**settings, allowed_hosts=(host,)))
        found = await read_everywhere(server.url, container, "permissions://tables/sales/orders")
    assert found["query"] == "allowed" and found["principal_arn"].endswith(":user/analyst")


@pytest.mark.usefixtures("enforced")
def test_discover_and_recommendations_say_lake_formation_decides(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")
    buckets = {b["bucket"]: b for b in explain("permissions://discover", who)["buckets"]}
    assert buckets["lake-governed"]["decided_by"] == "lake_formation"
    assert buckets["lake-governed"]["lake_formation_locations"] == ["arn:aws:s3:::lake-governed"]
    assert buckets["lake-open"]["decided_by"] == "iam"
    assert {b["explain"] for b in buckets.values()} == {f"permissions://buckets/{name}" for name in buckets}
    found = explain("permissions://recommendations", who)["recommendations"]
    governed = [r for r in found if "lake-governed" in r["resource_arn"]]
    assert [r["missing_action"] for r in governed] == ["lakeformation:SELECT"]
    assert governed[0]["explain"] == "permissions://buckets/lake-governed"  # two tables there: the bucket's
    assert [r for r in found if r["resource_arn"].startswith("arn:aws:s3:") and "explain" not in r] == []


@pytest.mark.usefixtures("enforced")
def test_a_refused_read_links_its_explainer(lake: dict[str, dict[str, str]]) -> None:
    who, faults = caller(lake, "refused")  # never fixed: no-glue's own fix is applied by another test
    reader = ResourceReader(registry, SETTINGS)
    with pytest.raises(Exception) as raised:
        anyio.run(reader.read, "athena://databases/sales/tables/orders", lambda: who)
    payload = raised.value.payload()  # type: ignore[attr-defined]
    assert payload["error"] == "access_denied" and payload["action"] == "glue:GetTable", payload
    assert payload["explain"] == "permissions://tables/sales/orders"
    assert faults.calls == {"glue.GetTable": 1}  # the refusal cost no call of its own


def test_a_refused_query_links_the_explainer_of_what_athena_names() -> None:
    def refused(reason: str) -> dict[str, Any]:
        return query_failure({"QueryExecutionId": "q-1", "QueryExecutionContext": {"Database": "sales"},
                              "Status": {"State": "FAILED", "StateChangeReason": reason}}).payload()

    data = refused("Permission denied on S3 path: s3://lake-open/orders/part-0.csv")
    assert (data["error"], data["explain"]) == ("access_denied", "permissions://buckets/lake-open")
    results = refused("Access denied when writing output to url: s3://results/analytics/q-1.csv")
    assert results["explain"] == "permissions://buckets/results"
    glue = refused("Insufficient permissions to execute the query. User: arn:aws:iam::1:user/a is not authorized to "
                   "perform: glue:GetTable on resource: arn:aws:glue:us-east-1:1:table/sales/orders")
    assert (glue["action"], glue["explain"]) == ("glue:GetTable", "permissions://tables/sales/orders")
    governed = refused("Insufficient Lake Formation permission(s) on orders")
    assert governed["explain"] == "permissions://tables/sales/orders" and governed.get("action") is None
    assert explainer_in("Insufficient Lake Formation permission(s) on churn_labels", "sales",
                        'SELECT * FROM "ml_features".churn_labels') == "permissions://tables/ml_features/churn_labels"


@pytest.mark.usefixtures("enforced")
def test_lake_formation_unseen_is_unknown_never_allowed(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "no-lake-formation")
    found = explain("permissions://tables/sales/orders", who)
    assert verdicts(found)["lakeformation:DescribeResource"] == "unknown"
    assert verdicts(found)["lakeformation:SELECT"] == "unknown" and found["read_columns"] is None
    assert found["query"] == "unknown" and "list-resources" in by_check(found)["lakeformation:DescribeResource"][
        "settle"]


@pytest.mark.usefixtures("enforced")
def test_a_check_that_times_out_is_unknown_and_the_rest_answer(lake: dict[str, dict[str, str]]) -> None:
    who, _ = caller(lake, "analyst")

    def timed_out(request: Any, **_: Any) -> None:  # what botocore raises when the endpoint outlasts its read timeout
        raise ReadTimeoutError(endpoint_url=request.url)

    who.session.events.register("before-send.lakeformation.ListPermissions", timed_out)  # type: ignore[union-attr]
    found = explain("permissions://tables/governed/customers", who)  # registered: Lake Formation's grants decide
    slow = by_check(found)["lakeformation:SELECT"]
    assert slow["verdict"] == "unknown" and slow["evidence"]["error"]["error"] == "timeout"
    assert "did not answer in time" in slow["settle"] and found["query"] == "unknown"
    others = {check: verdict for check, verdict in verdicts(found).items() if check != "lakeformation:SELECT"}
    assert set(others.values()) == {"allowed"}, others
