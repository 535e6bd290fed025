"""athena:// against an account shaped like a busy one: 45 workgroups, 300 executions, Glue tables in pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference
from reading import read_everywhere, reset_moto

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import Caller, resolve_caller
from aws_data_mcp.reader import ResourceReader
from aws_data_mcp.resources import registry
from conftest import REVISION_2026, body_json, http_api_event, modern

pytestmark = pytest.mark.anyio

WORKGROUPS = [f"team-{index:02d}" for index in range(44)]  # and "primary"
EXECUTIONS = 300
TABLES = 130  # more than one GetTables page


@pytest.fixture(scope="module")
def account() -> Iterator[dict[str, Any]]:
    reset_moto()
    session = boto3.Session(region_name="us-east-1")
    athena, glue = session.client("athena"), session.client("glue")
    for name in WORKGROUPS:
        athena.create_work_group(Name=name, Description=f"{name} queries", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://results/{name}/"},
            "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10_000_000_000})
    ids = [athena.start_query_execution(QueryString=f"SELECT {index}" + " -- padding" * (index % 3) * 60,
                                        WorkGroup=WORKGROUPS[index % 15])["QueryExecutionId"]
           for index in range(EXECUTIONS)]
    glue.create_database(DatabaseInput={"Name": "sales", "Description": "Orders", "LocationUri": "s3://lake/sales/"})
    glue.create_database(DatabaseInput={"Name": "wide"})
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "orders", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "parquet",
                                                                       "spark.sql.sources.schema": "{...}"},
        "PartitionKeys": [{"Name": "order_date", "Type": "date"}],
        "StorageDescriptor": {"Location": "s3://lake/sales/orders/", "Columns": [
            {"Name": "order_id", "Type": "string", "Comment": "unique"}, {"Name": "total", "Type": "decimal(12,2)"}],
            "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"}})
    for index in range(TABLES):
        glue.create_table(DatabaseName="wide", TableInput={"Name": f"t{index:03d}", "StorageDescriptor": {
            "Location": f"s3://lake/wide/t{index:03d}/", "Columns": [{"Name": "c", "Type": "int"}],
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"}}})
    yield {"ids": ids}
    reset_moto()


def direct_read(uri: str, settings: Settings | None = None, caller: Any = None) -> Any:
    settings = settings or Settings(mode="local")
    reader = ResourceReader(registry, settings)
    reading = anyio.run(reader.read, uri, caller or (lambda: resolve_caller(None, settings)))
    return json.loads(reading.text)


@pytest.mark.usefixtures("account")
async def test_workgroups_lists_every_page_with_their_settings(http_server: Any, local_lambda_handler: Any) -> None:
    result = await read_everywhere(http_server.url, local_lambda_handler, "athena://workgroups")
    names = [w["name"] for w in result["workgroups"]]
    assert result["count"] == result["page"]["total"] == 45 and set(names) == {"primary", *WORKGROUPS}
    team = next(w for w in result["workgroups"] if w["name"] == "team-07")
    assert team | {"result_location": "s3://results/team-07/", "enforce_configuration": True,
                   "bytes_scanned_cutoff": 10_000_000_000, "access": "allowed"} == team


@pytest.mark.usefixtures("account")
def test_a_workgroup_listed_but_not_describable_stays_with_access_denied(aws_faults: Any) -> None:
    aws_faults.fail("athena.GetWorkGroup", "AccessDeniedException", when=lambda r: b'"team-03"' in r.body)
    result = direct_read("athena://workgroups")
    denied = [w for w in result["workgroups"] if w["access"] == "denied"]
    assert [w["name"] for w in denied] == ["team-03"] and result["denied"] == 1 and result["count"] == 45
    assert denied[0]["error"]["action"] == "athena:GetWorkGroup"
    assert "result_location" not in denied[0]


@pytest.mark.usefixtures("account")
def test_throttling_is_retried_and_throttling_forever_is_a_retryable_item_error(aws_faults: Any) -> None:
    aws_faults.throttle("athena.ListWorkGroups", times=2)
    assert direct_read("athena://workgroups")["count"] == 45
    assert aws_faults.calls["athena.ListWorkGroups"] == 3
    aws_faults.throttle("athena.GetWorkGroup", times=None)
    result = direct_read("athena://workgroups", Settings(mode="local", max_attempts=2, cache_ttl_seconds=0))
    assert {w["error"]["error"] for w in result["workgroups"]} == {"throttled"}
    assert all(w["error"]["retryable"] for w in result["workgroups"])


@pytest.mark.usefixtures("account")
def test_a_throttled_top_level_call_is_a_throttled_read(aws_faults: Any) -> None:
    aws_faults.throttle("athena.ListWorkGroups")
    reader = ResourceReader(registry, Settings(mode="local", max_attempts=2))
    with pytest.raises(Exception) as raised:
        anyio.run(reader.read, "athena://workgroups", lambda: resolve_caller(None, reader.settings))
    assert raised.value.payload()["error"] == "throttled" and raised.value.retryable  # type: ignore[attr-defined]


@pytest.mark.usefixtures("account")
def test_an_endpoint_slower_than_the_deadline_times_out_those_items_only(aws_faults: Any) -> None:
    aws_faults.delay("athena.GetWorkGroup", 3.0)
    settings = Settings(mode="local", request_timeout_seconds=1.5, aws_call_timeout_seconds=1, max_attempts=1)
    result = direct_read("athena://workgroups", settings)
    assert result["count"] == 45
    assert {w["error"]["error"] for w in result["workgroups"]} == {"timeout"}


@pytest.mark.usefixtures("account")
async def test_history_spans_every_workgroup_newest_first(http_server: Any, local_lambda_handler: Any) -> None:
    result = await read_everywhere(http_server.url, local_lambda_handler, "athena://query/history?limit=200")
    assert result["page"]["total"] == 200 and result["page"]["next_uri"]  # over the budget: paged
    executions = result["executions"]
    async with Client(http_server.url, mode="legacy") as client:
        while result["page"]["next_uri"]:
            result = json.loads((await client.read_resource(result["page"]["next_uri"])).contents[0].text)
            executions += result["executions"]
    assert len(executions) == 200 and len({e["id"] for e in executions}) == 200
    assert len({e["workgroup"] for e in executions}) == 15  # not just "primary"
    submitted = [e["submitted"] for e in executions]
    assert submitted == sorted(submitted, reverse=True)
    long_sql = next(e for e in executions if e["query_truncated"])
    assert len(long_sql["query"]) == 500
    assert set(executions[0]) >= {"state", "bytes_scanned", "run_time_ms", "completed", "error", "state_change_reason"}


@pytest.mark.usefixtures("account")
def test_history_default_limit_narrowing_and_bad_limits(aws_faults: Any) -> None:
    everything = direct_read("athena://query/history?limit=500")
    assert everything["page"]["total"] == EXECUTIONS
    assert aws_faults.calls["athena.BatchGetQueryExecution"] >= EXECUTIONS // 50  # chunks of at most 50
    assert len(direct_read("athena://query/history")["executions"]) == 50
    narrowed = direct_read("athena://query/history?workgroup=team-04&limit=500")
    assert {e["workgroup"] for e in narrowed["executions"]} == {"team-04"} and narrowed["page"]["total"] == 20
    for bad in ("0", "501", "ten", "-1"):
        with pytest.raises(Exception) as raised:
            direct_read(f"athena://query/history?limit={bad}")
        assert raised.value.payload()["error"] == "invalid_argument"  # type: ignore[attr-defined]


@pytest.mark.usefixtures("account")
def test_history_keeps_a_denied_workgroup_as_an_error_beside_the_rest(aws_faults: Any) -> None:
    aws_faults.fail("athena.ListQueryExecutions", "AccessDeniedException", when=lambda r: b'"team-01"' in r.body)
    result = direct_read("athena://query/history?limit=500")
    assert [e["workgroup"] for e in result["workgroup_errors"]] == ["team-01"]
    assert result["workgroup_errors"][0]["error"]["action"] == "athena:ListQueryExecutions"
    assert result["page"]["total"] == EXECUTIONS - 20


def test_one_query_with_results_keyed_by_column(account: dict[str, Any]) -> None:
    execution_id = account["ids"][0]
    athena = boto3.client("athena", region_name="us-east-1")
    detail = direct_read(f"athena://queries/{execution_id}")
    assert detail["execution"]["id"] == execution_id
    assert detail["execution"]["state"] == athena.get_query_execution(
        QueryExecutionId=execution_id)["QueryExecution"]["Status"]["State"]
    if detail["execution"]["state"] == "SUCCEEDED":
        assert detail["results"]["columns"] is not None


@pytest.mark.usefixtures("account")
def test_one_query_bad_and_unknown_ids() -> None:
    for uri, code in (("athena://queries/not-an-id", "invalid_argument"),
                      ("athena://queries/8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d", "not_found")):
        with pytest.raises(Exception) as raised:
            direct_read(uri)
        assert raised.value.payload()["error"] == code  # type: ignore[attr-defined]


@pytest.mark.usefixtures("account")
async def test_databases_and_tables(http_server: Any, local_lambda_handler: Any) -> None:
    databases = await read_everywhere(http_server.url, local_lambda_handler, "athena://databases")
    by_name = {d["name"]: d for d in databases["databases"]}
    assert by_name["sales"] | {"catalog": "AwsDataCatalog", "table_count": 1, "description": "Orders"} \
        == by_name["sales"]
    assert by_name["wide"]["table_count"] == TABLES
    tables = await read_everywhere(http_server.url, local_lambda_handler, "athena://databases/wide/tables")
    assert tables["page"]["total"] == TABLES and tables["tables"][0]["format"] == "csv"
    orders = await read_everywhere(http_server.url, local_lambda_handler, "athena://databases/sales/tables/orders")
    assert orders["format"] == "parquet" and orders["location"] == "s3://lake/sales/orders/"
    assert orders["columns"][0] == {"name": "order_id", "type": "string", "comment": "unique"}
    assert orders["partition_keys"] == [{"name": "order_date", "type": "date"}]
    assert "spark.sql.sources.schema" not in orders["parameters"]


@pytest.mark.usefixtures("account")
def test_unknown_database_or_table_is_not_found() -> None:
    for uri in ("athena://databases/nope/tables", "athena://databases/sales/tables/nope"):
        with pytest.raises(Exception) as raised:
            direct_read(uri)
        assert raised.value.payload()["error"] == "not_found"  # type: ignore[attr-defined]


@pytest.mark.usefixtures("account")
def test_a_database_whose_tables_are_denied_keeps_its_error(aws_faults: Any) -> None:
    aws_faults.fail("glue.GetTables", "AccessDeniedException", when=lambda r: b'"wide"' in r.body)
    by_name = {d["name"]: d for d in direct_read("athena://databases")["databases"]}
    assert by_name["wide"]["table_count"] is None and by_name["wide"]["error"]["action"] == "glue:GetTables"
    assert by_name["sales"]["table_count"] == 1


@pytest.mark.usefixtures("account")
def test_second_read_inside_the_ttl_makes_no_aws_call_and_is_never_shared(aws_faults: Any) -> None:
    settings = Settings(mode="local")
    reader = ResourceReader(registry, settings)
    alice = resolve_caller(None, settings)
    anyio.run(reader.read, "athena://workgroups", lambda: alice)
    before = aws_faults.total("athena.")
    anyio.run(reader.read, "athena://workgroups?cursor=", lambda: alice)
    assert aws_faults.total("athena.") == before
    bob = Caller("local", alice.session, alice.region, principal_arn="arn:aws:iam::123456789012:user/bob")
    anyio.run(reader.read, "athena://workgroups", lambda: bob)
    assert aws_faults.total("athena.") > before


@pytest.mark.usefixtures("account")
async def test_completion_offers_databases_tables_of_the_chosen_database_and_recent_ids(http_server: Any) -> None:
    tables = ResourceTemplateReference(uri="athena://databases/{database}/tables/{table}")
    query = ResourceTemplateReference(uri="athena://queries/{execution_id}")
    async with Client(http_server.url, mode="legacy") as client:
        databases = await client.complete(tables, {"name": "database", "value": "sa"})
        chosen = await client.complete(tables, {"name": "table", "value": "t12"},
                                       context_arguments={"database": "wide"})
        ids = await client.complete(query, {"name": "execution_id", "value": ""})
    assert databases.completion.values == ["sales"]
    assert chosen.completion.values == [f"t12{digit}" for digit in range(10)]
    assert len(ids.completion.values) == 50


def test_workgroups_without_credentials_is_authentication_required_with_no_call(aws_faults: Any) -> None:
    with pytest.raises(Exception) as raised:
        direct_read("athena://workgroups", caller=lambda: Caller("local", None, "us-east-1", "no credentials"))
    assert raised.value.payload()["error"] == "authentication_required"  # type: ignore[attr-defined]
    assert aws_faults.total() == 0



@pytest.mark.usefixtures("account")
def test_freshness_hints_on_2026_07_28_are_private_for_caller_data(local_lambda_handler: Any) -> None:
    def hints(uri: str) -> tuple[Any, Any]:
        event = http_api_event(modern("resources/read", {"uri": uri}), revision=REVISION_2026)
        result = body_json(local_lambda_handler(event))["result"]
        return result["ttlMs"], result["cacheScope"]

    assert hints("athena://workgroups") == (30_000, "private")
    assert hints("auth://status") == (0, "private")
    assert hints("metadata://templates") == (30_000, "public")
