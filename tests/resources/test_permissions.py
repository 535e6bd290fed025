"""permissions:// and tabulator:// on an account with 120 buckets in two regions and Glue tables spread over them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest
from reading import read_everywhere, reset_moto

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import Caller, resolve_caller
from aws_data_mcp.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.permissions import simulation_principal

pytestmark = pytest.mark.anyio
BUCKETS = [f"lake-{index:03d}" for index in range(120)]
EU = {name for index, name in enumerate(BUCKETS) if index % 4 == 0}
MUTATING_PREFIXES = ("Put", "Delete", "Create", "Copy", "Restore", "Upload", "Abort", "Complete")


@pytest.fixture(scope="module")
def account() -> Iterator[None]:
    reset_moto()
    session = boto3.Session(region_name="us-east-1")
    for name in BUCKETS:
        region = "eu-west-1" if name in EU else "us-east-1"
        s3 = session.client("s3", region_name=region)
        config = {"CreateBucketConfiguration": {"LocationConstraint": region}} if region != "us-east-1" else {}
        s3.create_bucket(Bucket=name, **config)
        if not name.endswith("7"):  # some empty buckets: read cannot be established there
            s3.put_object(Bucket=name, Key="data/part-0.parquet", Body=b"PAR1")
    glue, athena = session.client("glue"), session.client("athena")
    glue.create_database(DatabaseInput={"Name": "lake"})
    for index in range(30):
        glue.create_table(DatabaseName="lake", TableInput={"Name": f"t{index}", "StorageDescriptor": {
            "Location": f"s3://{BUCKETS[index % 10]}/t{index}/"}})
    glue.create_table(DatabaseName="lake", TableInput={"Name": "view_only", "TableType": "VIRTUAL_VIEW"})
    athena.create_work_group(Name="reports", Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://lake-001/athena/"}})
    yield
    reset_moto()


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
    assert buckets["lake-001"] | {"level": "read", "evidence": {"location": "ok", "list": "ok", "read": "ok",
                                                                "simulate_write": "unavailable"}} == buckets["lake-001"]
    empty = buckets["lake-007"]
    assert empty["level"] == "list" and empty["evidence"]["read"] == "not_checked" and "note" in empty
    # moto cannot simulate policies for the suite's root-like caller: write is unknown, never guessed.
    assert {b["write"] for b in buckets.values()} == {"unknown"}
    operations = {name.split(".")[1] for name in aws_faults.calls if name.startswith("s3.")}
    assert operations == {"ListBuckets", "GetBucketLocation", "ListObjectsV2", "HeadObject"}
    assert not any(op.startswith(MUTATING_PREFIXES) for name in aws_faults.calls for op in [name.split(".")[1]])


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
    aws_faults.delay("s3.ListObjectsV2", 3.0)
    slow = Settings(mode="local", request_timeout_seconds=1.5, aws_call_timeout_seconds=1, max_attempts=1,
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
    assert result["page"]["total"] == 10 and result["tables_without_s3_location"] == 1
    first = result["buckets"][0]
    assert first == {"bucket": "lake-000", "table_count": 3,
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
