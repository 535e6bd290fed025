"""athena_query as a client uses it: the SDK client over HTTP on both revisions and the Lambda path, against the
demo account whose Athena really runs SQL over sales.orders (250,000 rows), IAM enforced for the demo caller.

One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ResourceLink
from moto.glue.models import glue_backends
from moto.s3.models import s3_backends

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import CONFLICTING_ENVIRONMENT, DemoAccount
from aws_data_mcp_demo.account.lake_data import ORDER_ROWS, order_values
from aws_data_mcp_demo.account.seed_data import BUCKET_CURATED, DENIED_WORKGROUP, QUERY_CUTOFF_BYTES, QUERY_WORKGROUPS
from aws_data_mcp_demo.command import DEMO_QUESTION
from support.events import REVISION_2026, body_json, http_api_event, modern, rpc
from support.exchanges import AnsweredPosts, client_over
from support.queries import answer, query
from support.servers import ServerThread, free_port, lambda_container

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
REVISIONS = ("legacy", "2026-07-28")
THREE_DAYS = ("SELECT order_date, count(*) AS orders, sum(total_amount) AS total, max(items_count) AS most_items "
              "FROM orders WHERE order_date BETWEEN '2026-01-01' AND '2026-01-03' GROUP BY order_date "
              "ORDER BY order_date")


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)


@pytest.fixture(scope="module")
def server(demo: DemoAccount, settings: Settings) -> Iterator[ServerThread]:
    with ServerThread(settings) as running:
        yield running


def expected_three_days() -> list[list[Any]]:
    """What THREE_DAYS must answer, computed from the generator of the files Athena reads."""
    days: dict[str, list[Any]] = {}
    for order in map(order_values, range(ORDER_ROWS)):
        if order.order_date.isoformat() <= "2026-01-03":
            day = days.setdefault(order.order_date.isoformat(), [order.order_date.isoformat(), 0, 0, 0])
            day[1] += 1
            day[2] += order.total_amount
            day[3] = max(day[3], order.items_count)
    return [[d, n, f"{total:.2f}", items] for d, n, total, items in sorted(days.values())]


@pytest.mark.parametrize("mode", REVISIONS)
async def test_a_question_answered_with_typed_rows_what_it_scanned_and_cost(
        server: ServerThread, demo_caller: DemoAccount, mode: str) -> None:
    result = await query(server, mode, sql=THREE_DAYS)
    assert not result.is_error, result.content[0].text
    got = answer(result)
    assert got["state"] == "SUCCEEDED" and got["workgroup"] == "analytics" and got["statement"] == "SELECT"
    assert [c["name"] for c in got["results"]["columns"]] == ["order_date", "orders", "total", "most_items"]
    assert got["results"]["rows"] == expected_three_days()  # counts as numbers, the decimal sum as a string
    assert got["results"] | {"returned": 3, "first_row": 0, "more_rows": False, "next_uri": None} == got["results"]
    stats = got["statistics"]
    assert 0 < stats["data_scanned_bytes"] < QUERY_CUTOFF_BYTES and stats["engine_ms"] is not None
    assert stats["billed_bytes"] == 10 << 20 and stats["cost_usd"] == pytest.approx(10 / (1 << 20) * 5, rel=1e-3)
    assert got["cutoff_bytes"] == QUERY_CUTOFF_BYTES
    link = result.content[1]
    assert isinstance(link, ResourceLink) and link.uri == f"athena://queries/{got['execution_id']}"
    assert got["result_file"]["s3_uri"].startswith("s3://") and got["result_file"]["presigned_url"].startswith("http")


async def test_the_linked_resource_pages_100000_rows_every_row_once_on_both_revisions(
        server: ServerThread, demo_caller: DemoAccount) -> None:
    sql = ("SELECT order_id FROM orders WHERE order_date BETWEEN '2026-01-01' AND '2026-02-17' ORDER BY order_id")
    got = answer(await query(server, "legacy", sql=sql))
    assert got["state"] == "SUCCEEDED", got
    total = sum(1 for row in range(ORDER_ROWS) if order_values(row).order_date.isoformat() <= "2026-02-17")
    assert total >= 100_000
    for mode in REVISIONS:
        seen: list[str] = [row[0] for row in got["results"]["rows"]]
        uri = got["results"]["next_uri"]
        async with Client(server.url, mode=mode) as client:
            while uri is not None:
                page = json.loads((await client.read_resource(uri)).contents[0].text)["results"]
                assert page["first_row"] == len(seen)
                seen += [row[0] for row in page["rows"]]
                uri = page["next_uri"]
        assert len(seen) == total and len(set(seen)) == total and seen == sorted(seen), mode


async def test_later_pages_ask_for_the_finished_querys_state_once_not_once_a_page(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str]) -> None:
    sql = "SELECT order_id FROM orders WHERE order_date BETWEEN '2026-01-01' AND '2026-01-04'"
    got = answer(await query(server, "legacy", sql=sql, max_rows=100))
    uri, pages = got["results"]["next_uri"], 0
    described = aws_calls["athena:GetQueryExecution"]
    async with Client(server.url, mode="2026-07-28") as client:
        while uri is not None and pages < 6:
            page = json.loads((await client.read_resource(uri)).contents[0].text)
            assert page["state"] == "SUCCEEDED" and page["statistics"] == got["statistics"]
            uri, pages = page["results"]["next_uri"], pages + 1
    assert pages == 6
    assert aws_calls["athena:GetQueryExecution"] - described == 1, "a finished query's state does not change"
    assert aws_calls["athena:GetQueryResults"] >= 6


@pytest.mark.parametrize("sql", ["INSERT INTO orders SELECT * FROM orders", "SELECT 1; DROP TABLE orders",
                                 "WITH x AS (DELETE FROM orders) SELECT 1", "UNLOAD (SELECT 1) TO 's3://x/'"])
async def test_writes_are_refused_before_any_aws_call(server: ServerThread, demo_caller: DemoAccount,
                                                      aws_calls: Counter[str], sql: str) -> None:
    result = await query(server, "2026-07-28", sql=sql)
    assert result.is_error and answer(result)["error"] == "invalid_argument"
    assert not [call for call in aws_calls if call.startswith("athena:")]


async def test_a_workgroup_without_an_enforced_cutoff_is_refused_with_the_settings_to_add(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str]) -> None:
    result = await query(server, "legacy", sql="SELECT 1", workgroup="data-science")
    got = answer(result)
    assert result.is_error and got["error"] == "invalid_argument"
    assert "no per-query bytes-scanned cutoff" in got["message"]
    assert any("aws athena update-work-group --work-group data-science" in line for line in got["details"])
    assert aws_calls["athena:StartQueryExecution"] == 0


async def test_a_workgroup_the_caller_cannot_describe_is_refused(server: ServerThread, demo_caller: DemoAccount,
                                                                 aws_calls: Counter[str]) -> None:
    got = answer(await query(server, "legacy", sql="SELECT 1", workgroup=DENIED_WORKGROUP))
    assert got["error"] == "access_denied" and got["action"] == "athena:GetWorkGroup"
    assert aws_calls["athena:StartQueryExecution"] == 0


async def test_a_query_over_the_cutoff_says_the_cutoff_what_it_scanned_and_what_that_cost(
        server: ServerThread, demo_caller: DemoAccount) -> None:
    result = await query(server, "legacy", sql="SELECT * FROM orders")
    got = answer(result)
    assert result.is_error and got["error"]["error"] == "invalid_argument" and got["state"] in ("FAILED", "CANCELLED")
    assert f"{QUERY_CUTOFF_BYTES:,} bytes" in got["error"]["message"] and "partition" in got["error"]["details"][0]
    assert got["uri"] == f"athena://queries/{got['execution_id']}"
    stats = got["statistics"]  # Athena bills what it read before the cutoff stopped it
    assert stats["data_scanned_bytes"] == QUERY_CUTOFF_BYTES and stats["billed_bytes"] >= QUERY_CUTOFF_BYTES
    assert stats["cost_usd"] > 0


async def test_athenas_own_refusal_names_the_line_and_column(server: ServerThread, demo_caller: DemoAccount) -> None:
    result = await query(server, "legacy", sql="SELECT no_such_column FROM orders WHERE order_date = '2026-01-01'")
    got = answer(result)
    assert result.is_error and got["state"] == "FAILED" and got["statistics"]["cost_usd"] == 0
    assert got["error"]["error"] == "invalid_argument" and "line 1:8" in got["error"]["message"], got
    assert got["error"]["athena"] | {"category": "USER", "name": "COLUMN_NOT_FOUND", "line": 1, "column": 8} \
        == got["error"]["athena"]


@pytest.fixture
def broken_table(demo: DemoAccount) -> Iterator[str]:
    """sales.h_unreadable: a Parquet table whose one file is not Parquet, as a lake sometimes has."""
    glue = glue_backends[demo.account_id][demo.region]
    definition = glue.get_table("sales", "orders").as_dict()
    descriptor = definition["StorageDescriptor"] | {"Location": f"s3://{BUCKET_CURATED}/sales/h_unreadable/"}
    glue.create_table("sales", "h_unreadable", {"Name": "h_unreadable", "StorageDescriptor": descriptor,
                                                "TableType": "EXTERNAL_TABLE"})
    s3_backends[demo.account_id]["aws"].put_object(BUCKET_CURATED, "sales/h_unreadable/part-0.parquet",
                                                   b"twenty bytes, no PAR")
    yield f"s3://{BUCKET_CURATED}/sales/h_unreadable/part-0.parquet"
    glue.delete_table("sales", "h_unreadable")
    s3_backends[demo.account_id]["aws"].delete_object(BUCKET_CURATED, "sales/h_unreadable/part-0.parquet")


async def test_unreadable_data_is_athenas_failure_naming_the_table_and_file_not_the_callers_sql(
        server: ServerThread, demo_caller: DemoAccount, broken_table: str) -> None:
    result = await query(server, "2026-07-28", sql="SELECT count(*) FROM h_unreadable")
    got = answer(result)
    error = got["error"]
    assert result.is_error and error["error"] == "upstream_unavailable" and error["retryable"] is False, error
    assert f"table sales.h_unreadable file {broken_table}" in error["message"]
    assert "not the statement" in error["details"][0] and "misspelt" not in json.dumps(got)
    assert "/tmp" not in json.dumps(got) and tempfile.gettempdir() not in json.dumps(got)
    assert error["athena"] | {"category": "USER", "type": 1001, "file": broken_table} == error["athena"]


async def test_one_value_longer_than_the_budget_is_cut_marked_and_pointed_at_its_file(
        server: ServerThread, demo_caller: DemoAccount, settings: Settings) -> None:
    result = await query(server, "2026-07-28", sql="SELECT 1 AS n, rpad('x', 2000000, 'y') AS big")
    text = result.content[0].text
    got = answer(result)
    assert not result.is_error and len(text) <= settings.response_char_budget, len(text)
    [[n, big]] = got["results"]["rows"]
    kept = got["results"]["truncated_values"]
    assert n == 1 and kept == [{"row": 0, "column": "big", "original_length": 2_000_000, "kept_length": len(big)}]
    assert big == "x" + "y" * (len(big) - 1) and len(big) > settings.response_char_budget // 2
    assert got["results"]["whole_values_file"] == got["result_file"]["s3_uri"]
    assert got["results"]["whole_values_file"].startswith("s3://")


SHARED = ("execution_id", "uri", "state", "state_reason", "workgroup", "database", "statement_type", "submitted",
          "completed", "query", "query_truncated", "statistics", "error", "next_step", "results", "result_file")
"""What athena_query, athena://queries/{id} and each of its pages answer alike."""


def same_shape(tool: dict[str, Any], resource: dict[str, Any]) -> None:
    assert set(SHARED) <= set(tool) and set(SHARED) <= set(resource)
    for key in ("execution_id", "uri", "state", "state_reason", "workgroup", "database", "statistics", "error"):
        assert tool[key] == resource[key], key
    for part in ("results", "result_file"):
        if tool[part] is not None and resource[part] is not None:
            assert set(tool[part]) <= set(resource[part]) | {"presigned_url", "expires_in_seconds"}, part


async def test_the_tool_the_query_uri_and_a_cursor_page_answer_one_shape(server: ServerThread,
                                                                         demo_caller: DemoAccount) -> None:
    sql = "SELECT order_id FROM orders WHERE order_date = '2026-01-01' ORDER BY order_id"
    async with Client(server.url, mode="2026-07-28") as client:
        first = answer(await client.call_tool("athena_query", {"sql": sql, "database": "sales", "max_rows": 5}))
        linked = json.loads((await client.read_resource(first["uri"])).contents[0].text)
        later = json.loads((await client.read_resource(first["results"]["next_uri"])).contents[0].text)
        failed = await client.call_tool("athena_query", {
            "sql": "SELECT nope FROM orders WHERE order_date = '2026-01-01'", "database": "sales"})
        failed_linked = json.loads((await client.read_resource(answer(failed)["uri"])).contents[0].text)
        running = answer(await client.call_tool("athena_query", {
            "sql": f"/* demo:running_seconds=2 */ {sql}", "database": "sales", "wait_seconds": 0}))
        running_linked = json.loads((await client.read_resource(running["uri"])).contents[0].text)
        history = json.loads((await client.read_resource("athena://query/history?limit=10")).contents[0].text)
    assert first["state"] == "SUCCEEDED" and later["state"] == "SUCCEEDED" and first["statistics"]["cost_usd"] > 0
    same_shape(first, linked)
    same_shape(first, later)
    assert later["results"]["first_row"] == first["results"]["returned"] and later["results"]["rows"]
    assert failed.is_error and answer(failed)["state"] == failed_linked["state"] == "FAILED"
    same_shape(answer(failed), failed_linked)
    assert running["state"] in ("QUEUED", "RUNNING") and running["results"] is None
    assert set(SHARED) <= set(running_linked) and running["uri"] in running["next_step"]
    rows = {row["execution_id"]: row for row in history["executions"]}
    for shown in (linked, failed_linked):
        row = rows[shown["execution_id"]]
        assert row == {key: shown[key] for key in row}, row  # a history row: the answer without its results


async def test_a_long_query_answers_a_link_then_the_rows(server: ServerThread, demo_caller: DemoAccount) -> None:
    sql = f"/* demo:running_seconds=3 */ {THREE_DAYS}"
    result = await query(server, "2026-07-28", sql=sql, wait_seconds=0.5)
    got = answer(result)
    # Still queued or running: answered at its 0.5 s wait, not when the 3 s query ended.
    assert got["state"] in ("QUEUED", "RUNNING") and got["results"] is None and got["uri"] in got["next_step"]
    assert got["error"] is None and got["statistics"]["cost_usd"] == 0 and not result.is_error
    link = result.content[1]
    assert isinstance(link, ResourceLink)
    async with Client(server.url, mode="2026-07-28") as client:
        for _ in range(100):
            detail = json.loads((await client.read_resource(link.uri)).contents[0].text)
            if detail["state"] == "SUCCEEDED":
                break
            await anyio.sleep(0.1)
    assert detail["results"]["rows"] == expected_three_days()


def executions_marked(athena: Any, marker: str) -> list[dict[str, Any]]:
    """The executions of the analytics workgroup whose SQL holds `marker`."""
    ids = athena.list_query_executions(WorkGroup="analytics", MaxResults=50)["QueryExecutionIds"]
    found = athena.batch_get_query_execution(QueryExecutionIds=ids)["QueryExecutions"] if ids else []
    return [execution for execution in found if marker in execution["Query"]]


async def test_a_cancelled_tool_call_stops_its_query(server: ServerThread, demo_caller: DemoAccount) -> None:
    marker = f"cancelled-{time.time_ns()}"
    sql = f"/* demo:running_seconds=60 */ /* {marker} */ {THREE_DAYS}"
    athena = demo_caller.caller_session().client("athena", endpoint_url=demo_caller.endpoint_url)
    posts = AnsweredPosts()
    async with client_over(posts) as http, Client(streamable_http_client(server.url, http_client=http),
                                                  mode="legacy") as client:
        async with anyio.create_task_group() as calls:
            calls.start_soon(client.call_tool, "athena_query", {"sql": sql, "database": "sales"})
            with anyio.fail_after(30):  # the client cancels once the query is running
                while not [e for e in executions_marked(athena, marker) if e["Status"]["State"] == "RUNNING"]:
                    await anyio.sleep(0.1)
            calls.cancel_scope.cancel()
        # The client stays connected: the cancel notification alone must stop the query (closing the
        # session while the server still answers the POST races inside the SDK's client).
        with anyio.fail_after(30):
            while executions_marked(athena, marker)[0]["Status"]["State"] != "CANCELLED":
                await anyio.sleep(0.1)
        await posts.settled()  # the cancelled call's POST is answered before the client closes


async def test_athena_stop_query_stops_a_query_left_running(server: ServerThread, demo_caller: DemoAccount) -> None:
    got = answer(await query(server, "legacy", sql=f"/* demo:running_seconds=30 */ {THREE_DAYS}", wait_seconds=0))
    async with Client(server.url, mode="legacy") as client:
        stopped = await client.call_tool("athena_stop_query", {"execution_id": got["execution_id"]})
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert answer(stopped)["state"] == "CANCELLED"
    assert tools["athena_query"].annotations.read_only_hint is True
    assert tools["athena_stop_query"].annotations.read_only_hint is False


@pytest.mark.parametrize(("arguments", "says"), [
    ({"sql": ""}, "empty"),
    ({"sql": "SELECT 1 -- " + "x" * 300_000}, "262,144"),  # over Athena's limit, under the body limit
    ({"sql": "SELECT 1", "workgroup": "primary"}, "not one this deployment runs queries in"),
    ({"sql": "SELECT 1", "database": "../etc"}, "database must be"),
    ({"sql": "SELECT 1", "max_rows": -1}, "max_rows"),
    ({"sql": "SELECT 1", "wait_seconds": -5}, "wait_seconds"),
    ({"sql": 42}, "sql"),
    ({"sql": "SELECT 1", "rows": 10}, "rows"),
])
async def test_bad_input_is_a_structured_error_with_no_aws_call(server: ServerThread, demo_caller: DemoAccount,
                                                                aws_calls: Counter[str], arguments: dict[str, Any],
                                                                says: str) -> None:
    async with Client(server.url, mode="legacy") as client:
        result = await client.call_tool("athena_query", {"database": "sales", **arguments})
    got = answer(result)
    assert result.is_error and got["error"] == "invalid_argument" and says in json.dumps(got), got
    assert not [call for call in aws_calls if not call.startswith("sts:")]


async def test_a_caller_asking_for_more_rows_than_the_cap_gets_the_cap_and_is_told(server: ServerThread,
                                                                                   demo_caller: DemoAccount) -> None:
    got = answer(await query(server, "legacy", sql=THREE_DAYS, max_rows=10**9, wait_seconds=10**6))
    assert got["limits"]["max_rows"] == 1000 and got["limits"]["wait_seconds"] <= 10
    assert any("1000000000" in note for note in got["limits"]["notes"])
    assert any("1000000" in note for note in got["limits"]["notes"])


def test_the_lambda_path_answers_the_same_query(demo_caller: DemoAccount) -> None:
    event_settings = Settings(mode="local", query_workgroups=QUERY_WORKGROUPS, allowed_hosts=(
        http_api_event(rpc("ping"))["headers"]["host"],))
    handler = lambda_container(event_settings)
    call = {"name": "athena_query", "arguments": {"sql": THREE_DAYS, "database": "sales"}}
    for event in (http_api_event(rpc("tools/call", call)),
                  http_api_event(modern("tools/call", call), revision=REVISION_2026)):
        got = body_json(handler(event))["result"]["structuredContent"]
        assert got["state"] == "SUCCEEDED" and got["results"]["rows"] == expected_three_days()


async def test_the_demo_banners_question_is_answered(server: ServerThread, demo_caller: DemoAccount) -> None:
    assert "first week of January 2026" in DEMO_QUESTION
    sql = ("SELECT channel, count(*) AS returned FROM orders WHERE status = 'returned' "
           "AND order_date BETWEEN '2026-01-01' AND '2026-01-07' GROUP BY channel ORDER BY returned DESC, channel")
    got = answer(await query(server, "2026-07-28", sql=sql))
    counted = Counter(order.channel for order in map(order_values, range(ORDER_ROWS))
                      if order.status == "returned" and order.order_date.isoformat() <= "2026-01-07")
    assert got["results"]["rows"] == sorted(([c, n] for c, n in counted.items()), key=lambda r: (-r[1], r[0]))
    assert got["statistics"]["cost_usd"] > 0


async def test_a_waiting_query_reports_its_state_as_progress_over_stdio() -> None:
    """stdio streams notifications during a call (every transport: tests/transport/test_revision_matrix.py)."""
    seen: list[tuple[float, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, message))

    environment = {k: v for k, v in os.environ.items() if k not in CONFLICTING_ENVIRONMENT}
    params = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp_demo", "stdio"],
                                   env=environment)
    async with Client(params, mode="legacy") as client:
        result = await client.call_tool("athena_query", {"sql": f"/* demo:running_seconds=2 */ {THREE_DAYS}",
                                                         "database": "sales"}, progress_callback=progress)
    assert answer(result)["state"] == "SUCCEEDED"
    assert seen and all("bytes scanned so far" in (message or "") for _, message in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
