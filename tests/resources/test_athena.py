"""athena:// and auth://catalog/info against an account shaped like a busy one: 45 workgroups (in several pages),
300 executions in every state across them, Glue databases with hundreds of tables (in several pages), a second
data catalog, and queries whose results can be read.

moto's server is shared by the session: this module resets it, seeds, and resets it again at the end. moto is
made to page as AWS does (the session installs the demo's extensions); its pages are made small here (AWS may
return fewer items than asked), so every paginator really follows NextToken.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import boto3
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference
from moto.athena.models import Execution, athena_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.identity.resolve import Caller, resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp_demo.emulator import extensions as moto_extensions
from aws_data_mcp_demo.emulator.extensions import EXECUTION_DETAILS_ATTR
from support.events import REVISION_2026, body_json, http_api_event, modern
from support.faults import AwsFaults
from support.reading import direct_read, parallel_read, read_everywhere, reset_moto
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio

ACCOUNT, REGION = "123456789012", "us-east-1"
RESULTS = "athena-results-test"
WORKGROUPS = ["primary", *[f"team-{n:02d}" for n in range(44)]]
BUSY = "team-00"
DATABASES = [f"lake_{n:02d}" for n in range(12)]
BIG_DATABASE, SHOWCASE = "lake_00", "lake_01"
BIG_TABLES = 250
FORMATS = {"orders_parquet": "parquet", "events_csv": "csv", "logs_json": "json", "metrics_orc": "orc",
           "ice": "iceberg", "recent_orders": "view", "raw_tsv": "tsv", "trips_hudi": "hudi"}
EXECUTIONS = 300
WIDTH = Settings(mode="local").fanout_width
LONG_SQL = "SELECT " + ", ".join(f"column_{n:04d}" for n in range(200)) + " FROM lake_01.orders_parquet"


# --------------------------------------------------------------------------- the estate

@dataclass
class Estate:
    ids: list[str] = field(default_factory=list)
    """Execution ids, newest first (index i was submitted i minutes ago)."""
    workgroup: dict[str, str] = field(default_factory=dict)
    select_id: str = ""
    show_id: str = ""
    big_id: str = ""

    def of(self, workgroup: str) -> list[str]:
        return [i for i in self.ids if self.workgroup[i] == workgroup]


def _queue_result(endpoint: str, columns: list[tuple[str, str]], rows: list[list[str | None]],
                  header: bool) -> None:
    """A canned GetQueryResults page for the next execution started (moto's documented queue)."""
    def row(values: list[str | None]) -> dict[str, Any]:
        return {"Data": [{"VarCharValue": v} if v is not None else {} for v in values]}
    body_rows = ([row([name for name, _ in columns])] if header else []) + [row(values) for values in rows]
    info = [{"Name": name, "Label": name, "Type": kind, "CatalogName": "hive", "SchemaName": "", "TableName": "",
             "Precision": 0, "Scale": 0, "Nullable": "UNKNOWN", "CaseSensitive": True} for name, kind in columns]
    payload = {"account_id": ACCOUNT, "region": REGION, "results": [{"rows": body_rows, "column_info": info}]}
    request = urllib.request.Request(f"{endpoint}/moto-api/static/athena/query-results", method="POST",
                                     data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request).close()


FAILURES: dict[int, tuple[str, dict[str, Any]]] = {
    13: ("HIVE_BAD_DATA: Malformed JSON in file s3://lake-bucket/lake_01/logs/part-0.json.gz (table lake_01.logs_json)",
         {"ErrorCategory": 2, "ErrorType": 1001, "Retryable": False}),
    23: ("GENERIC_INTERNAL_ERROR: worker lost reading spill file /tmp/athena-spill-7/part-3.bin",
         {"ErrorCategory": 1, "ErrorType": 200, "Retryable": True}),
    33: ("Bytes scanned limit was exceeded", {}),
}
"""Failed executions other than the COLUMN_NOT_FOUND of every other index ending in 3: a data error, an error of
Athena's own, and a query the workgroup's cutoff stopped."""


def _workgroup_for(index: int) -> str:
    if index < 120:
        return BUSY
    if index < 160:
        return "primary"
    return WORKGROUPS[2 + (index - 160) % 43]


def _state_for(index: int) -> str:
    return {0: "RUNNING", 1: "QUEUED"}.get(index) or {3: "FAILED", 7: "CANCELLED"}.get(index % 10, "SUCCEEDED")


def _storage(location: str, serde: str, input_format: str, parameters: dict[str, str] | None = None,
             columns: int = 4) -> dict[str, Any]:
    return {"Columns": [{"Name": f"c{n}", "Type": "string", "Comment": f"column {n}"} for n in range(columns)],
            "Location": location, "InputFormat": input_format,
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerdeInfo": {"SerializationLibrary": serde, "Parameters": parameters or {}}}


PARQUET = ("org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
           "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat")
TEXT_INPUT = "org.apache.hadoop.mapred.TextInputFormat"
HUDI_INPUT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"


def _showcase_tables() -> list[dict[str, Any]]:
    base = f"s3://lake-bucket/{SHOWCASE}"
    return [
        {"Name": "orders_parquet", "TableType": "EXTERNAL_TABLE", "Description": "Orders, partition projection",
         "PartitionKeys": [{"Name": "dt", "Type": "string"}],
         "Parameters": {"classification": "parquet", "parquet.compression": "SNAPPY", "projection.enabled": "true",
                        "projection.dt.type": "date", "projection.dt.range": "2024-01-01,NOW",
                        "storage.location.template": f"{base}/orders/dt=${{dt}}/",
                        "spark.sql.sources.schema.part.0": "{" + "x" * 5000 + "}"},
         "StorageDescriptor": _storage(f"{base}/orders/", *PARQUET)},
        {"Name": "events_csv", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": _storage(f"{base}/events/", "org.apache.hadoop.hive.serde2.OpenCSVSerde", TEXT_INPUT)},
        {"Name": "logs_json", "TableType": "EXTERNAL_TABLE", "Parameters": {"compressionType": "gzip"},
         "StorageDescriptor": _storage(f"{base}/logs/", "org.openx.data.jsonserde.JsonSerDe", TEXT_INPUT)},
        {"Name": "metrics_orc", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": _storage(f"{base}/metrics/", "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
                                       "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat")},
        {"Name": "ice", "TableType": "EXTERNAL_TABLE", "Parameters": {"table_type": "ICEBERG"},
         "StorageDescriptor": _storage(f"{base}/ice/", *PARQUET)},
        {"Name": "recent_orders", "TableType": "VIRTUAL_VIEW", "ViewOriginalText": "/* Presto View: e30= */",
         "StorageDescriptor": {"Columns": [{"Name": "c0", "Type": "string"}], "SerdeInfo": {}}},
        {"Name": "raw_tsv", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": _storage(f"{base}/raw/", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                                       TEXT_INPUT, {"field.delim": "\t"})},
        {"Name": "trips_hudi", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": _storage(f"{base}/trips/", PARQUET[0], HUDI_INPUT)},
    ]


def _seed(endpoint: str) -> Estate:
    session = boto3.Session(region_name=REGION)
    athena, glue = session.client("athena"), session.client("glue")
    athena.create_data_catalog(Name="AwsDataCatalog", Type="GLUE", Parameters={"catalog-id": ACCOUNT})
    athena.create_data_catalog(Name="partner", Type="HIVE",
                               Parameters={"metadata-function": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:hms"})
    for index, name in enumerate(WORKGROUPS[1:]):
        configuration: dict[str, Any] = {"ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/{name}/"},
                                         "EnforceWorkGroupConfiguration": index % 2 == 0,
                                         "EngineVersion": {"SelectedEngineVersion": "Athena engine version 3"}}
        if index % 3 == 0:
            configuration["BytesScannedCutoffPerQuery"] = (index + 1) * 1024**3
        athena.create_work_group(Name=name, Description=f"team {name}", Configuration=configuration)
    for database in DATABASES:
        glue.create_database(DatabaseInput={"Name": database, "Description": f"the {database} zone",
                                            "LocationUri": f"s3://lake-bucket/{database}/"})
    table_sets = {BIG_DATABASE: [{"Name": f"t_{n:03d}", "TableType": "EXTERNAL_TABLE",
                                  "StorageDescriptor": _storage(f"s3://lake-bucket/big/t_{n:03d}/", *PARQUET)}
                                 for n in range(BIG_TABLES)],
                  SHOWCASE: _showcase_tables()}
    for database in DATABASES[2:]:
        table_sets[database] = [{"Name": f"{database}_{n}", "StorageDescriptor": _storage("s3://x/", *PARQUET)}
                                for n in range(2)]

    specials = {10: "select", 11: "show", 12: "big"}
    plan = []
    for index in range(EXECUTIONS):
        sql, catalog = f"SELECT {index} AS n FROM lake_01.orders_parquet", "AwsDataCatalog"
        if index == 5:
            sql = LONG_SQL
        elif index == 20:
            sql, catalog = "CREATE DATABASE partner_sales", "partner"
        elif specials.get(index) == "show":
            sql = "SHOW TABLES IN lake_01"
        plan.append((index, _workgroup_for(index), sql, catalog))

    def start(entry: tuple[int, str, str, str]) -> tuple[int, str]:
        index, workgroup, sql, catalog = entry
        response = athena.start_query_execution(
            QueryString=sql, WorkGroup=workgroup, QueryExecutionContext={"Catalog": catalog, "Database": SHOWCASE},
            ResultConfiguration={"OutputLocation": f"s3://{RESULTS}/{workgroup}/"})
        return index, response["QueryExecutionId"]

    # The executions with canned results first, one at a time: moto gives a queued result to the next start.
    _queue_result(endpoint, [("id", "bigint"), ("name", "varchar"), ("id", "bigint")],
                  [["1", "alpha", "1"], ["2", None, "2"], ["3", "gamma", "3"]], header=True)
    started = dict([start(plan[10])])
    _queue_result(endpoint, [("tab_name", "string")], [["events_csv"], ["ice"], ["orders_parquet"]], header=False)
    started |= dict([start(plan[11])])
    _queue_result(endpoint, [("n", "integer"), ("payload", "varchar")],
                  [[str(n), f"{n:03d}-" + "p" * 300] for n in range(100)], header=True)
    started |= dict([start(plan[12])])
    with ThreadPoolExecutor(8) as pool:
        started |= dict(pool.map(start, [entry for entry in plan if entry[0] not in specials]))
        list(pool.map(lambda item: [glue.create_table(DatabaseName=item[0], TableInput=t) for t in item[1]],
                      table_sets.items()))

    # What moto's API cannot say: each execution's state, times, statistics and error (as the demo seed does).
    estate, now = Estate(), datetime.now(UTC)
    for index in range(EXECUTIONS):
        execution_id = started[index]
        state = "SUCCEEDED" if index in specials else _state_for(index)
        execution = athena_backends[ACCOUNT][REGION].executions[execution_id]
        submitted = now - timedelta(minutes=index)
        execution.status, execution._transitions = state, [(state, state)]
        execution.start_time = submitted.timestamp()
        execution.end_time = (submitted + timedelta(seconds=3)).timestamp()
        statistics = {"DataScannedInBytes": 1000 * index, "TotalExecutionTimeInMillis": 2500,
                      "EngineExecutionTimeInMillis": 2000}
        details: dict[str, Any] = {"Statistics": statistics}
        if state == "FAILED":
            message, error = FAILURES.get(index, (f"COLUMN_NOT_FOUND: line 1:8: Column 'x{index}' cannot be resolved",
                                                  {"ErrorCategory": 2, "ErrorType": 1006, "Retryable": False}))
            details |= {"StateChangeReason": message}
            if error:
                details["AthenaError"] = error | {"ErrorMessage": message}
        elif state == "CANCELLED":
            details["StateChangeReason"] = "Query cancelled by user"
        setattr(execution, EXECUTION_DETAILS_ATTR, details)
        estate.ids.append(execution_id)
        estate.workgroup[execution_id] = plan[index][1]
    estate.select_id, estate.show_id, estate.big_id = started[10], started[11], started[12]
    return estate


@pytest.fixture(scope="module")
def estate(moto_endpoint: str) -> Iterator[Estate]:
    reset_moto()
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(moto_extensions.PAGE_LIMITS, "ListWorkGroups", 20)  # 45 workgroups: 3 pages
        patch.setitem(moto_extensions.PAGE_LIMITS, "GetDatabases", 5)  # 12 databases: 3 pages
        yield _seed(moto_endpoint)
    reset_moto()


@pytest.fixture(scope="module")
def server(estate: Estate) -> Iterator[ServerThread]:
    """This module's own server: nothing cached by another module's reads can answer here."""
    with ServerThread(Settings(mode="local", port=free_port())) as thread:
        yield thread


def read_failure(uri: str, settings: Settings | None = None) -> ResourceFailure:
    with pytest.raises(ResourceFailure) as raised:
        direct_read(uri, settings)
    return raised.value


async def read_json(client: Client, uri: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(uri)).contents[0].text)


async def read_all_pages(client: Client, uri: str) -> tuple[list[dict[str, Any]], int]:
    """Follow page.next_uri to the end: every item of the paged list, and how many pages it took."""
    items: list[dict[str, Any]] = []
    pages, next_uri = 0, uri
    while next_uri:
        body = await read_json(client, next_uri)
        items += body[body["page"]["field"]]
        next_uri, pages = body["page"]["next_uri"], pages + 1
    return items, pages


# --------------------------------------------------------------------------- workgroups

async def test_workgroups_lists_every_page_with_their_settings(server: ServerThread, estate: Estate,
                                                               local_lambda_handler: Any) -> None:
    result = await read_everywhere(server.url, local_lambda_handler, "athena://workgroups")
    by_name = {w["name"]: w for w in result["workgroups"]}
    assert result["count"] == result["page"]["total"] == 45 and sorted(by_name) == sorted(WORKGROUPS)
    assert result["denied"] == 0
    assert by_name["team-03"] | {"state": "ENABLED", "access": "allowed", "result_location": f"s3://{RESULTS}/team-03/",
                                 "engine_version": "Athena engine version 3", "enforce_configuration": False,
                                 "bytes_scanned_cutoff": 4 * 1024**3, "description": "team team-03"} \
        == by_name["team-03"]
    assert by_name["team-04"]["bytes_scanned_cutoff"] is None and by_name["team-04"]["enforce_configuration"] is True


def test_workgroups_follow_every_page_then_describe_in_parallel(estate: Estate, aws_faults: AwsFaults) -> None:
    parallel_read("athena://workgroups", aws_faults, {"athena.GetWorkGroup": WIDTH})  # as wide as the fan-out
    assert aws_faults.calls["athena.ListWorkGroups"] == 3  # 45 workgroups, 20 a page
    assert aws_faults.calls["athena.GetWorkGroup"] == 45


def test_a_workgroup_listed_but_not_describable_stays_with_access_denied(estate: Estate,
                                                                         aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.GetWorkGroup", "AccessDeniedException",
                    when=lambda r: b'"team-03"' in r.body or b'"team-07"' in r.body)
    result = direct_read("athena://workgroups")
    denied = [w for w in result["workgroups"] if w["access"] == "denied"]
    assert [w["name"] for w in denied] == ["team-03", "team-07"] and result["denied"] == 2 and result["count"] == 45
    assert denied[0]["error"] == {"error": "access_denied", "retryable": False, "action": "athena:GetWorkGroup",
                                  "message": "Access denied: the caller is not allowed athena:GetWorkGroup"}
    assert "result_location" not in denied[0] and denied[0]["state"] == "ENABLED"  # what the list said is kept


def test_throttling_is_retried_and_throttling_forever_is_a_retryable_item_error(estate: Estate,
                                                                                aws_faults: AwsFaults) -> None:
    aws_faults.throttle("athena.ListWorkGroups", times=2)
    aws_faults.throttle("athena.GetWorkGroup", times=2)
    result = direct_read("athena://workgroups")
    assert result["count"] == 45 and all(w["access"] == "allowed" for w in result["workgroups"])
    assert aws_faults.calls["athena.ListWorkGroups"] == 3 + 2 and aws_faults.calls["athena.GetWorkGroup"] == 45 + 2
    aws_faults.fail("athena.GetWorkGroup", "ThrottlingException", when=lambda r: b'"team-05"' in r.body)
    result = direct_read("athena://workgroups", Settings(mode="local", max_attempts=2))
    (throttled,) = [w for w in result["workgroups"] if w["access"] != "allowed"]
    assert throttled["name"] == "team-05" and throttled["access"] == "error"
    assert throttled["error"]["error"] == "throttled" and throttled["error"]["retryable"] is True


def test_a_throttled_list_is_a_retryable_error_beside_the_query_workgroups(estate: Estate,
                                                                           aws_faults: AwsFaults) -> None:
    aws_faults.throttle("athena.ListWorkGroups")
    settings = Settings(mode="local", max_attempts=2, query_workgroups=("team-00",))
    result = direct_read("athena://workgroups", settings)
    error = result["workgroups_error"]
    assert error["error"] == "throttled" and error["retryable"] and "athena:ListWorkGroups" in error["message"]
    assert result["workgroups"] == [] and [(w["name"], w["usable"]) for w in result["query_workgroups"]] == [
        ("team-00", None)]  # nothing denies it; moto has no IAM simulator, so not every check could be told
    assert aws_faults.calls["athena.ListWorkGroups"] == 2, "max_attempts counts every attempt, the first included"


def test_an_endpoint_slower_than_the_deadline_times_out_those_items_only(estate: Estate,
                                                                         aws_faults: AwsFaults) -> None:
    direct_read("athena://workgroups")  # the caller and its clients are built before the clock starts, as warm
    slow = aws_faults.hold("athena.GetWorkGroup")  # answers only once the test is over
    result = direct_read("athena://workgroups", Settings(mode="local", request_timeout_seconds=3.0))
    assert slow.held == WIDTH and slow.passed == 0, "answered at the deadline, without waiting for the endpoint"
    assert result["count"] == 45 and {w["error"]["error"] for w in result["workgroups"]} == {"timeout"}
    assert all(w["error"]["retryable"] for w in result["workgroups"])


# --------------------------------------------------------------------------- query history

async def test_history_is_the_newest_50_across_every_workgroup(server: ServerThread, estate: Estate,
                                                               local_lambda_handler: Any) -> None:
    result = await read_everywhere(server.url, local_lambda_handler, "athena://query/history")
    executions = result["executions"]
    assert [e["execution_id"] for e in executions] == estate.ids[:50]
    assert result["limit"] == 50 and len(result["workgroups_read"]) == 45 and result["workgroup_errors"] == []
    first, long, failed, cancelled = executions[0], executions[5], executions[3], executions[7]
    assert first["state"] == "RUNNING" and first["completed"] is None and executions[1]["state"] == "QUEUED"
    assert long["query_truncated"] is True and long["query"] == LONG_SQL[:500]
    assert failed["state"] == "FAILED" and failed["error"]["error"] == "invalid_argument"
    assert failed["error"]["athena"] | {"category": "USER", "name": "COLUMN_NOT_FOUND", "line": 1, "column": 8} \
        == failed["error"]["athena"] and failed["state_reason"].startswith("COLUMN_NOT_FOUND")
    assert cancelled["state"] == "CANCELLED" and cancelled["state_reason"] == "Query cancelled by user"
    assert cancelled["error"] is None and cancelled["statistics"]["cost_usd"] > 0  # Athena bills what it read
    assert executions[9]["statement_type"] == "DML" and executions[9]["statistics"] | {
        "data_scanned_bytes": 9000, "billed_bytes": 10 << 20, "total_ms": 2500, "engine_ms": 2000} \
        == executions[9]["statistics"]
    assert all(e["uri"] == f"athena://queries/{e['execution_id']}" for e in executions)


async def test_history_of_all_300_is_paged_by_the_reader_newest_first(server: ServerThread, estate: Estate) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        executions, pages = await read_all_pages(client, "athena://query/history?limit=300")
        narrowed = await read_json(client, "athena://query/history?workgroup=team-07&limit=500")
    assert [e["execution_id"] for e in executions] == estate.ids and pages > 1
    assert {e["workgroup"] for e in executions} == set(WORKGROUPS)  # not just "primary"
    assert [e["execution_id"] for e in narrowed["executions"]] == estate.of("team-07")
    assert narrowed["workgroups_read"] == ["team-07"]


def test_history_reads_only_as_far_as_the_limit(estate: Estate, aws_faults: AwsFaults) -> None:
    per_workgroup = Counter(estate.workgroup.values())
    direct_read("athena://query/history?limit=5")
    assert aws_faults.calls["athena.ListWorkGroups"] == 3
    assert aws_faults.calls["athena.ListQueryExecutions"] == 45  # one page each, even for the busy one
    assert aws_faults.calls["athena.BatchGetQueryExecution"] == -(-sum(min(5, n) for n in per_workgroup.values())
                                                                  // 50)


def test_history_of_200_follows_only_the_busy_workgroup_deeper_and_only_as_far_as_needed(
        estate: Estate, aws_faults: AwsFaults) -> None:
    parallel_read("athena://query/history?limit=200", aws_faults,
                  {"athena.ListQueryExecutions": WIDTH, "athena.BatchGetQueryExecution": 5})
    # Round one: every workgroup's newest page (230 ids, 5 BatchGet calls). Only the busy one's oldest listed
    # execution is still among the newest 200 (50 are at least as new): it may add 150 more, and has 70.
    assert aws_faults.calls["athena.ListQueryExecutions"] == 45 + 2
    assert aws_faults.calls["athena.BatchGetQueryExecution"] == 5 + 2
    result = direct_read("athena://query/history?limit=200")
    assert result["page"]["total"] == 200
    assert [e["execution_id"] for e in result["executions"]] == estate.ids[:result["page"]["returned"]]


@pytest.fixture
def deep_history(estate: Estate) -> Iterator[list[str]]:
    """100 more executions in every workgroup (4,500), older than the estate's and interleaved across
    workgroups, added to moto's backend directly; every execution id, newest first."""
    backend = athena_backends[ACCOUNT][REGION]
    now, added = datetime.now(UTC), []
    for offset, name in enumerate(WORKGROUPS):
        for age in range(100):
            execution = Execution("SELECT 1", {"Database": SHOWCASE}, {"OutputLocation": f"s3://{RESULTS}/"},
                                  backend.work_groups[name], None)
            execution.status, execution._transitions = "SUCCEEDED", [("SUCCEEDED", "SUCCEEDED")]
            execution.start_time = (now - timedelta(minutes=300 + age * len(WORKGROUPS) + offset)).timestamp()
            backend.executions[execution.id] = execution
            added.append(execution.id)
    try:
        yield [e.id for e in sorted(backend.executions.values(), key=lambda e: e.start_time, reverse=True)]
    finally:
        for execution_id in added:
            del backend.executions[execution_id]


def test_history_of_500_over_45_deep_workgroups_describes_little_more_than_it_answers(
        deep_history: list[str], aws_faults: AwsFaults) -> None:
    """Listing every workgroup 500 deep would describe all 4,800 executions (96 BatchGet calls, 137 list pages).
    Round one describes each workgroup's newest 50; only the busy one can hold more of the newest 500."""
    result = direct_read("athena://query/history?limit=500", Settings(mode="local", response_char_budget=10**7))
    assert [e["execution_id"] for e in result["executions"]] == deep_history[:500]
    # Round two: the busy workgroup (50 of the newest 500 listed) may add 450 and has 170: 4 pages, 4 calls.
    assert aws_faults.calls["athena.ListQueryExecutions"] == 45 + 4
    assert aws_faults.calls["athena.BatchGetQueryExecution"] == 45 + 4


def test_history_keeps_a_denied_workgroup_as_an_error_beside_the_rest(estate: Estate, aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.ListQueryExecutions", "AccessDeniedException",
                    when=lambda r: f'"{BUSY}"'.encode() in r.body)
    result = direct_read("athena://query/history?limit=500")
    assert result["workgroup_errors"] == [{"workgroup": BUSY, "error": {
        "error": "access_denied", "message": "Access denied: the caller is not allowed athena:ListQueryExecutions",
        "retryable": False, "action": "athena:ListQueryExecutions"}}]
    assert result["page"]["total"] == EXECUTIONS - 120 and BUSY not in result["workgroups_read"]


def test_history_keeps_a_failed_chunk_beside_the_workgroups_it_costs(estate: Estate, aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.BatchGetQueryExecution", "AccessDeniedException",
                    when=lambda r: estate.ids[0].encode() in r.body)
    result = direct_read("athena://query/history?limit=2")
    errors = result["workgroup_errors"]
    assert BUSY in {e["workgroup"] for e in errors}
    assert {e["error"]["action"] for e in errors} == {"athena:BatchGetQueryExecution"}
    assert estate.ids[0] not in [e["execution_id"] for e in result["executions"]] and result["executions"]


@pytest.mark.parametrize(("query", "code"), [
    ("limit=0", "invalid_argument"), ("limit=501", "invalid_argument"), ("limit=ten", "invalid_argument"),
    ("limit=-1", "invalid_argument"), ("limit=1_0", "invalid_argument"), ("workgroup=no%20such", "invalid_argument"),
    ("since=yesterday", "invalid_argument"), ("workgroup=nope", "not_found"),
])
def test_history_refuses_bad_parameters_clearly(estate: Estate, aws_faults: AwsFaults, query: str, code: str) -> None:
    assert read_failure(f"athena://query/history?{query}").code.value == code
    if code == "invalid_argument":
        assert aws_faults.total("athena.") == 0


# --------------------------------------------------------------------------- one query

async def test_a_succeeded_select_gives_typed_rows_in_column_order_without_the_header(
        server: ServerThread, estate: Estate, local_lambda_handler: Any) -> None:
    select = await read_everywhere(server.url, local_lambda_handler, f"athena://queries/{estate.select_id}")
    show = await anyio.to_thread.run_sync(direct_read, f"athena://queries/{estate.show_id}")
    assert select | {"execution_id": estate.select_id, "state": "SUCCEEDED", "statement_type": "DML"} == select
    assert select["results"]["columns"] == [{"name": "id", "type": "bigint"}, {"name": "name", "type": "varchar"},
                                            {"name": "id", "type": "bigint"}]
    assert select["results"]["rows"] == [[1, "alpha", 1], [2, None, 2], [3, "gamma", 3]]  # names listed once
    assert select["results"] | {"returned": 3, "first_row": 0, "more_rows": False, "next_uri": None,
                                "cut_to_budget": False} == select["results"]
    assert show["statement_type"] == "UTILITY"  # no header row: the first row is data
    assert [row[0] for row in show["results"]["rows"]] == ["events_csv", "ice", "orders_parquet"]


async def test_a_large_result_is_paged_to_the_budget_every_row_once(budget_http_server: ServerThread,
                                                                   estate: Estate) -> None:
    uri: str | None = f"athena://queries/{estate.big_id}"
    seen: list[Any] = []
    async with Client(budget_http_server.url, mode="legacy") as client:
        while uri is not None:
            text = (await client.read_resource(uri)).contents[0].text
            results = json.loads(text)["results"]
            assert len(text) <= budget_http_server.settings.response_char_budget
            assert results["first_row"] == len(seen) and 0 < results["returned"] < 100
            seen += [row[0] for row in results["rows"]]
            uri = results["next_uri"]
            assert results["cut_to_budget"] is (uri is not None)
    assert seen == list(range(100))  # integers as JSON numbers


def test_unfinished_and_failed_executions_have_no_results(estate: Estate, aws_faults: AwsFaults) -> None:
    running = direct_read(f"athena://queries/{estate.ids[0]}")
    failed = direct_read(f"athena://queries/{estate.ids[3]}")
    assert running["results"] is None and running["state"] == "RUNNING" and running["next_step"]
    assert failed["results"] is None and failed["error"]["error"] == "invalid_argument"
    assert "COLUMN_NOT_FOUND: line 1:8" in failed["error"]["message"]
    assert aws_faults.calls["athena.GetQueryResults"] == 0  # asked only of a SUCCEEDED execution


@pytest.mark.parametrize(("index", "code", "retryable", "says"), [
    (13, "upstream_unavailable", False, "table lake_01.logs_json file s3://lake-bucket/lake_01/logs/part-0.json.gz"),
    (23, "upstream_unavailable", True, "worker lost reading spill file <local path>"),
    (33, "invalid_argument", False, "allows per query (its cutoff); Athena stopped it after 33,000 bytes"),
])
async def test_a_failure_says_what_happened_and_what_it_cost_in_every_shape(
        server: ServerThread, estate: Estate, index: int, code: str, retryable: bool, says: str) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        detail = await read_json(client, f"athena://queries/{estate.ids[index]}")
        history = await read_json(client, f"athena://query/history?workgroup={BUSY}&limit=50")
    error = detail["error"]
    assert detail["state"] == "FAILED" and error["error"] == code and error["retryable"] is retryable, error
    assert says in error["message"] and "/tmp" not in json.dumps(detail)
    assert "misspelt" not in json.dumps(error)
    [row] = [e for e in history["executions"] if e["execution_id"] == estate.ids[index]]
    assert row == {key: detail[key] for key in row}  # a history row is the query's answer without its results
    billed = detail["statistics"]["billed_bytes"]
    assert billed == (10 << 20 if index == 33 else 0)  # Athena bills what the cutoff let it read, not a failure


def test_query_workgroups_say_which_are_usable_for_the_caller_and_why_not(estate: Estate) -> None:
    settings = Settings(mode="local", query_workgroups=("team-00", "team-01", "team-03", "no-such-group"))
    found = direct_read("athena://workgroups", settings)["query_workgroups"]
    assert [(w["name"], w["default"], w["usable"]) for w in found] == [
        ("team-00", True, None), ("team-01", False, False), ("team-03", False, False),
        ("no-such-group", False, False)]
    # team-00: nothing denies it, and what moto cannot tell (it has no IAM simulator) is said, not assumed
    assert found[0]["why_not"] == [] and found[0]["unchecked"] and len(found[1]["why_not"]) == 2
    assert "not enforced" in found[2]["why_not"][0] and "cannot list" in found[3]["why_not"][0]


def test_unreadable_results_stay_beside_the_status(estate: Estate, aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.GetQueryResults", "AccessDeniedException")
    detail = direct_read(f"athena://queries/{estate.select_id}")
    assert detail["state"] == "SUCCEEDED" and detail["results"] is None
    assert detail["results_error"]["action"] == "athena:GetQueryResults"


def test_one_query_bad_and_unknown_ids(estate: Estate, aws_faults: AwsFaults) -> None:
    missing = read_failure("athena://queries/8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d")
    assert missing.code is ErrorCode.NOT_FOUND and missing.valid_uris == ["athena://query/history"]
    for bad in ("not-an-id", "%2E%2E", "x" * 300):
        assert read_failure(f"athena://queries/{bad}").code is ErrorCode.INVALID_ARGUMENT, bad
    assert aws_faults.calls["athena.GetQueryExecution"] == 1


# --------------------------------------------------------------------------- databases and tables

async def test_databases_per_catalog_with_where_their_tables_are(server: ServerThread, estate: Estate,
                                                                 local_lambda_handler: Any) -> None:
    result = await read_everywhere(server.url, local_lambda_handler, "athena://databases")
    assert result["catalogs"] == [{"name": "AwsDataCatalog", "type": "GLUE", "database_count": 12},
                                  {"name": "partner", "type": "HIVE", "database_count": 1}]
    assert result["catalogs_error"] is None
    by_name = {(d["catalog"], d["name"]): d for d in result["databases"]}
    assert by_name[("AwsDataCatalog", BIG_DATABASE)] == {
        "catalog": "AwsDataCatalog", "name": BIG_DATABASE, "description": f"the {BIG_DATABASE} zone",
        "location": f"s3://lake-bucket/{BIG_DATABASE}/", "tables": f"athena://databases/{BIG_DATABASE}/tables"}
    assert "tables" not in by_name[("partner", "partner_sales")] and len(by_name) == 13


def test_databases_read_no_table(estate: Estate, aws_faults: AwsFaults) -> None:
    direct_read("athena://databases")  # warm caller and clients
    aws_faults.calls.clear()
    direct_read("athena://databases")
    assert aws_faults.calls["glue.GetDatabases"] == 3  # 12 databases, 5 a page
    assert aws_faults.calls["glue.GetTables"] == 0  # its cost does not grow with the tables
    assert aws_faults.calls["athena.ListDataCatalogs"] == 1 and aws_faults.calls["athena.ListDatabases"] == 1


def test_a_catalog_that_fails_keeps_its_error_beside_it(estate: Estate, aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.ListDatabases", "AccessDeniedException")
    result = direct_read("athena://databases")
    partner = result["catalogs"][1]
    assert partner["database_count"] is None and partner["error"]["action"] == "athena:ListDatabases"
    assert result["catalogs"][0]["database_count"] == 12
    assert len([d for d in result["databases"] if d["catalog"] == "AwsDataCatalog"]) == 12


async def test_tables_of_a_database_every_page_and_their_formats(server: ServerThread, estate: Estate,
                                                                 budget_http_server: ServerThread,
                                                                 local_lambda_handler: Any) -> None:
    showcase = await read_everywhere(server.url, local_lambda_handler, f"athena://databases/{SHOWCASE}/tables")
    orders = await read_everywhere(server.url, local_lambda_handler,
                                   f"athena://databases/{SHOWCASE}/tables/orders_parquet")
    async with Client(budget_http_server.url, mode="legacy") as client:
        big, pages = await read_all_pages(client, f"athena://databases/{BIG_DATABASE}/tables")
    assert [t["name"] for t in big] == [f"t_{n:03d}" for n in range(BIG_TABLES)] and pages > 1
    assert {t["name"]: t["format"] for t in showcase["tables"]} == FORMATS
    summary = next(t for t in showcase["tables"] if t["name"] == "orders_parquet")
    assert summary | {"column_count": 4, "partition_keys": ["dt"], "location": f"s3://lake-bucket/{SHOWCASE}/orders/"} \
        == summary
    projection = orders["partition_projection"]
    assert projection["enabled"] and projection["location_template"] == f"s3://lake-bucket/{SHOWCASE}/orders/dt=${{dt}}/"
    assert [(k["name"], k["type"], k["range"]) for k in projection["keys"]] == [("dt", "date", "2024-01-01,NOW")]
    assert orders["parameters"] == {"classification": "parquet", "parquet.compression": "SNAPPY"}
    assert orders["columns"][0] == {"name": "c0", "type": "string", "comment": "column 0"}
    assert orders["partition_keys"] == [{"name": "dt", "type": "string"}]
    assert orders["serde"] == PARQUET[0] and orders["input_format"] == PARQUET[1] and orders["created"]


def test_tables_follow_glue_pages(estate: Estate, aws_faults: AwsFaults) -> None:
    direct_read(f"athena://databases/{BIG_DATABASE}/tables")
    assert aws_faults.calls["glue.GetTables"] == 3  # 250 tables, 100 a page


def test_unknown_database_or_table_is_not_found(estate: Estate) -> None:
    for uri in ("athena://databases/no_such_db/tables", "athena://databases/no_such_db/tables/t",
                f"athena://databases/{SHOWCASE}/tables/no_such_table"):
        failure = read_failure(uri)
        assert failure.code is ErrorCode.NOT_FOUND and failure.valid_uris == ["athena://databases"], uri


# --------------------------------------------------------------------------- auth://catalog/info

async def test_catalog_info_names_the_query_workgroup_and_its_results(server: ServerThread, estate: Estate,
                                                                      local_lambda_handler: Any) -> None:
    info = await read_everywhere(server.url, local_lambda_handler, "auth://catalog/info")
    assert info | {"region": REGION, "account": ACCOUNT, "deployment_mode": "local", "data_catalogs_error": None,
                   "protocol_revisions": ["2025-11-25", "2026-07-28"]} == info
    assert info["data_catalogs"] == [{"name": "AwsDataCatalog", "type": "GLUE"}, {"name": "partner", "type": "HIVE"}]
    assert info["query_workgroup"]["name"] == "primary"
    chosen = await anyio.to_thread.run_sync(direct_read, "auth://catalog/info",
                                            Settings(mode="local", query_workgroups=("team-02",)))
    assert chosen["query_workgroup"] | {"name": "team-02", "result_location": f"s3://{RESULTS}/team-02/"} \
        == chosen["query_workgroup"]


def test_catalog_info_keeps_a_denied_workgroup_beside_it(estate: Estate, aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.GetWorkGroup", "AccessDeniedException")
    info = direct_read("auth://catalog/info")
    assert info["query_workgroup"]["name"] == "primary"
    assert info["query_workgroup"]["error"]["action"] == "athena:GetWorkGroup"
    assert [c["name"] for c in info["data_catalogs"]] == ["AwsDataCatalog", "partner"]


# --------------------------------------------------------------------------- cache, completion, errors

def _second_caller() -> Caller:
    iam = boto3.client("iam", region_name=REGION)
    iam.create_user(UserName="athena-second-analyst")
    key = iam.create_access_key(UserName="athena-second-analyst")["AccessKey"]
    session = boto3.Session(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                            region_name=REGION)
    arn = session.client("sts").get_caller_identity()["Arn"]
    return Caller("local", session, REGION, principal_arn=arn, account=ACCOUNT)


def test_second_read_inside_the_ttl_makes_no_aws_call_and_is_never_shared(estate: Estate,
                                                                          aws_faults: AwsFaults) -> None:
    settings = Settings(mode="local")
    reader = ResourceReader(registry, settings)
    first, second = resolve_caller(None, settings), _second_caller()
    second_calls = AwsFaults(second.session)
    aws_faults.fail("athena.GetWorkGroup", "AccessDeniedException", when=lambda r: b'"team-09"' in r.body)

    def workgroups(caller: Caller, uri: str = "athena://workgroups") -> Any:
        return json.loads(anyio.run(reader.read, uri, lambda: caller).text)

    mine = workgroups(first)
    before = aws_faults.total("athena.")
    again = workgroups(first, "athena://workgroups?cursor=")
    assert aws_faults.total("athena.") == before  # within the TTL: no AWS call at all
    assert again["workgroups"] == mine["workgroups"] and mine["denied"] == 1
    theirs = workgroups(second)
    assert second_calls.calls["athena.GetWorkGroup"] == 45 and theirs["denied"] == 0  # read as them, not served
    assert aws_faults.total("athena.") == before


def test_a_read_after_the_ttl_asks_aws_again(estate: Estate, aws_faults: AwsFaults) -> None:
    reader = ResourceReader(registry, Settings(mode="local", cache_ttl_seconds=1.0))  # room for a busy machine
    caller = resolve_caller(None, Settings(mode="local"))

    def read() -> None:
        anyio.run(reader.read, "athena://workgroups", lambda: caller)

    read()
    read()
    assert aws_faults.calls["athena.ListWorkGroups"] == 3  # the second read was a cache hit
    time.sleep(1.05)
    read()
    assert aws_faults.calls["athena.ListWorkGroups"] == 6 and aws_faults.calls["athena.GetWorkGroup"] == 90


def test_access_denied_keeps_aws_reason_naming_the_caller_and_the_resource(estate: Estate,
                                                                          aws_faults: AwsFaults) -> None:
    """AWS's reason stays (no identity-based policy, an explicit deny, an SCP: each needs another fix). The
    principal it names is the caller itself, which auth://status shows the caller anyway."""
    role = f"arn:aws:sts::{ACCOUNT}:assumed-role/AnalystRole/alice"
    resource = f"arn:aws:athena:{REGION}:{ACCOUNT}:workgroup/primary"
    reason = (f"User: {role} is not authorized to perform: athena:ListWorkGroups on resource: {resource} "
              "with an explicit deny in a service control policy")
    aws_faults.fail("athena.ListWorkGroups", "AccessDeniedException", message=reason)
    settings = Settings(mode="local", query_workgroups=("team-00",))
    result = direct_read("athena://workgroups", settings)  # never a failed read: the query workgroups still answer
    error = result["workgroups_error"]
    assert error["error"] == "access_denied" and error["action"] == "athena:ListWorkGroups"
    assert reason in error["details"] and result["count"] == 0
    assert [(w["name"], w["usable"]) for w in result["query_workgroups"]] == [("team-00", None)]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_completion_offers_databases_tables_of_the_chosen_database_and_recent_ids(
        server: ServerThread, estate: Estate, mode: str) -> None:
    tables = ResourceTemplateReference(uri="athena://databases/{database}/tables/{table}")
    query = ResourceTemplateReference(uri="athena://queries/{execution_id}")
    async with Client(server.url, mode=mode) as client:
        databases = await client.complete(tables, {"name": "database", "value": "lake_0"})
        chosen = await client.complete(tables, {"name": "table", "value": "e"}, {"database": SHOWCASE})
        every = await client.complete(tables, {"name": "table", "value": ""}, {"database": BIG_DATABASE})
        unchosen = await client.complete(tables, {"name": "table", "value": ""})
        ids = await client.complete(query, {"name": "execution_id", "value": estate.ids[2][:6]})
    assert databases.completion.values == [f"lake_0{n}" for n in range(10)]
    assert chosen.completion.values == ["events_csv"] and unchosen.completion.values == []
    assert every.completion.total == BIG_TABLES and len(every.completion.values) == 100 and every.completion.has_more
    assert estate.ids[2] in ids.completion.values
    assert all(value.startswith(estate.ids[2][:6]) for value in ids.completion.values)


async def test_errors_agree_between_read_and_get_resource(server: ServerThread, estate: Estate) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        for uri, code in [("athena://queries/not-a-uuid", "invalid_argument"),
                          ("athena://databases/no_such_db/tables", "not_found"),
                          ("athena://query/history?limit=9999", "invalid_argument")]:
            with pytest.raises(MCPError) as read_error:
                await client.read_resource(uri)
            tool = await client.call_tool("get_resource", {"uri": uri})
            assert tool.is_error and read_error.value.error.data == tool.structured_content
            assert tool.structured_content["error"] == code, uri


def test_workgroups_without_credentials_is_authentication_required_with_no_call(aws_faults: AwsFaults) -> None:
    with pytest.raises(ResourceFailure) as raised:
        direct_read("athena://workgroups", caller=lambda: Caller("local", None, REGION, "no credentials"))
    assert raised.value.code is ErrorCode.AUTHENTICATION_REQUIRED and aws_faults.total() == 0


def test_freshness_hints_on_2026_07_28_are_private_for_caller_data(estate: Estate, local_lambda_handler: Any) -> None:
    def hints(uri: str) -> tuple[Any, Any]:
        event = http_api_event(modern("resources/read", {"uri": uri}), revision=REVISION_2026)
        result = body_json(local_lambda_handler(event))["result"]
        return result["ttlMs"], result["cacheScope"]

    first, scope = hints("athena://workgroups")
    assert scope == "private" and 0 < first <= 30_000
    time.sleep(0.05)
    again, _ = hints("athena://workgroups")
    assert again <= first - 50, "a cache hit is fresh only for what is left of the server's own TTL"
    assert hints("auth://status") == (0, "private")
    assert hints("metadata://templates") == (30_000, "public")


def test_a_partial_result_the_server_did_not_keep_is_stale_at_once(estate: Estate, local_lambda_handler: Any,
                                                                    aws_faults: AwsFaults) -> None:
    aws_faults.throttle("athena.BatchGetQueryExecution")  # for ever: each workgroup's batch fails, the read answers
    event = http_api_event(modern("resources/read", {"uri": "athena://query/history?limit=7"}),
                           revision=REVISION_2026)
    result = body_json(local_lambda_handler(event))["result"]
    assert "throttled" in result["contents"][0]["text"]
    assert (result["ttlMs"], result["cacheScope"]) == (0, "private")
