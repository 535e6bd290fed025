"""athena_query as a task (the Tasks extension, SEP-2663) against the demo account, whose Athena really runs SQL:
created, polled, its result paged, cancelled, another caller refused, the container changed between calls, and
the link unchanged for a client without the extension. Through the SDK client (2026-07-28, with a client extension
that claims `resultType: "task"`) and the Lambda handler (API Gateway events, one container per call)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Result
from moto.iam.models import iam_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp.query.tasks import EXTENSION_ID, HISTORY_MS
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.events import REVISION_2026, body_json, http_api_event, modern
from support.servers import ServerThread, lambda_container
from support.tasks_client import CancelTask, CreatedTask, DetailedTask, GetTask, TaskParams, Tasks

pytestmark = [pytest.mark.usefixtures("quick_queries")]
SQL = "SELECT order_date, count(*) AS orders FROM orders WHERE order_date < '2026-01-04' GROUP BY 1 ORDER BY 1"
SLOW = f"/* demo:running_seconds=3 */ {SQL}"
LONG = f"/* demo:running_seconds=60 */ {SQL}"
OTHER = "tasks-other-analyst"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def structured(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content == json.loads(result.content[0].text)
    return result.structured_content  # type: ignore[return-value]


@pytest.mark.anyio
async def test_a_long_query_is_a_task_polled_to_its_result_whose_rows_page_as_today(
        demo_query_http: ServerThread, demo_caller: DemoAccount) -> None:
    tasks = Tasks()
    async with Client(demo_query_http.url, mode="2026-07-28", extensions=[tasks]) as client:
        created = await client.session.call_tool("athena_query", {"database": "sales", "sql": SLOW,
                                                                  "wait_seconds": 0}, allow_claimed=True)
        assert isinstance(created, CreatedTask), created
        assert created.status == "working" and created.ttl_ms == HISTORY_MS and created.poll_interval_ms
        assert "bytes scanned" in (created.status_message or "")
        first = await client.session.send_request(GetTask(params=TaskParams(task_id=created.task_id)), DetailedTask)
        assert first.task_id == created.task_id and first.status in ("working", "completed")
        assert first.meta and first.meta["aws-data-mcp/athena"]["state"] in ("QUEUED", "RUNNING", "SUCCEEDED")
        # The same call through the claim: the client polls and gets the tool's own answer in the end.
        resolved = await client.call_tool("athena_query", {"database": "sales", "sql": SLOW, "wait_seconds": 0})
        answer = structured(resolved)
        rows = await client.read_resource(answer["uri"])
    assert tasks.polls >= 1 and not resolved.is_error
    assert answer["state"] == "SUCCEEDED" and answer["results"]["rows"][0][0] == "2026-01-01"
    assert [link.uri for link in resolved.content if link.type == "resource_link"] == [answer["uri"]]
    assert json.loads(rows.contents[0].text)["results"]["rows"] == answer["results"]["rows"], "pages as today"
    assert answer["execution_id"] == json.loads(rows.contents[0].text)["execution_id"]


@pytest.mark.anyio
async def test_a_task_cancelled_stops_its_query(demo_query_http: ServerThread, demo_caller: DemoAccount) -> None:
    async with Client(demo_query_http.url, mode="2026-07-28", extensions=[Tasks()]) as client:
        created = await client.session.call_tool("athena_query", {"database": "sales", "sql": LONG,
                                                                  "wait_seconds": 0}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        await client.session.send_request(CancelTask(params=TaskParams(task_id=created.task_id)), Result)
        after = await client.session.send_request(GetTask(params=TaskParams(task_id=created.task_id)), DetailedTask)
        with pytest.raises(MCPError) as unknown:
            await client.session.send_request(GetTask(params=TaskParams(
                task_id="8f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d")), DetailedTask)
        with pytest.raises(MCPError) as malformed:
            await client.session.send_request(GetTask(params=TaskParams(task_id="not-an-id")), DetailedTask)
    assert after.status == "cancelled" and after.meta["aws-data-mcp/athena"]["state"] == "CANCELLED"
    for refused in (unknown.value.error, malformed.value.error):
        assert refused.code == -32602 and "Unknown task" in refused.message, refused


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_client_without_the_extension_gets_todays_link(demo_query_http: ServerThread,
                                                               demo_caller: DemoAccount, mode: str) -> None:
    async with Client(demo_query_http.url, mode=mode) as client:
        result = await client.call_tool("athena_query", {"database": "sales", "sql": LONG, "wait_seconds": 0})
        answer = structured(result)
        await client.call_tool("athena_stop_query", {"execution_id": answer["execution_id"]})
    assert answer["state"] in ("QUEUED", "RUNNING") and answer["next_step"] and answer["uri"].endswith(
        answer["execution_id"])


def _call(handler: Callable[[dict[str, Any]], dict[str, Any]], method: str, params: dict[str, Any],
          tasks: bool = True) -> dict[str, Any]:
    body = modern(method, params)
    if tasks:  # a copy: modern() shares one `_meta`
        body["params"]["_meta"] = {**body["params"]["_meta"],
                                   "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION_ID: {}}}}
    name = params.get("taskId") or params.get("name")
    return body_json(handler(http_api_event(body, revision=REVISION_2026, headers={"mcp-name": name})))


def _as_another_caller(demo: DemoAccount, monkeypatch: pytest.MonkeyPatch) -> None:
    """The local chain acts from now on as an IAM user of the account with no Athena rights (made on moto's IAM
    backend directly: the demo caller may not create users)."""
    iam = iam_backends[demo.account_id]["aws"]
    if OTHER not in iam.users:
        iam.create_user(demo.region, OTHER)
    key = iam.create_access_key(OTHER)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key.access_key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key.secret_access_key)
    local_chain.reset()


def test_on_lambda_any_container_answers_the_task_and_another_caller_is_refused(
        demo_caller: DemoAccount, monkeypatch: pytest.MonkeyPatch) -> None:
    host = http_api_event(modern("ping"))["headers"]["host"]

    def container() -> Callable[[dict[str, Any]], dict[str, Any]]:  # a fresh Lambda container: nothing kept
        return lambda_container(Settings(mode="local", query_workgroups=QUERY_WORKGROUPS, allowed_hosts=(host,)))

    created = _call(container(), "tools/call", {"name": "athena_query", "arguments": {
        "database": "sales", "sql": LONG, "wait_seconds": 0}})["result"]
    assert created["resultType"] == "task" and created["status"] == "working", created
    task_id = created["taskId"]
    polled = _call(container(), "tasks/get", {"taskId": task_id})["result"]
    assert polled["resultType"] == "complete" and polled["taskId"] == task_id and polled["status"] == "working"
    assert polled["_meta"]["aws-data-mcp/athena"]["data_scanned_bytes"] >= 0
    assert _call(container(), "tasks/update", {"taskId": task_id, "inputResponses": {}})["result"][
        "resultType"] == "complete", "nothing is ever asked, so nothing is outstanding: acknowledged"
    mismatched = modern("tasks/get", {"taskId": task_id})
    mismatched["params"]["_meta"] = {**mismatched["params"]["_meta"], "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {EXTENSION_ID: {}}}}
    routed = container()(http_api_event(mismatched, revision=REVISION_2026, headers={"mcp-name": "another-task"}))
    assert body_json(routed)["error"]["code"] == -32020, "Mcp-Name routes on the task id: it must match"
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):  # the extension's MUST for an undeclared client
        missing = _call(container(), method, {"taskId": task_id}, tasks=False)["error"]
        assert missing["code"] == -32021, missing
        assert missing["data"]["requiredCapabilities"] == {"extensions": {EXTENSION_ID: {}}}
    # Without the extension on the request: today's answer, whatever the client said before.
    plain = _call(container(), "tools/call", {"name": "athena_query", "arguments": {
        "database": "sales", "sql": LONG, "wait_seconds": 0}}, tasks=False)["result"]
    assert plain.get("resultType", "complete") == "complete" and plain["structuredContent"]["state"] in (
        "QUEUED", "RUNNING")

    with monkeypatch.context() as other:
        _as_another_caller(demo_caller, other)
        for method in ("tasks/get", "tasks/cancel"):
            refused = _call(container(), method, {"taskId": task_id})["error"]
            assert refused["code"] == -32602 and "Unknown task" in refused["message"], refused
    local_chain.reset()
    assert _call(container(), "tasks/get", {"taskId": task_id})["result"]["status"] == "working", "still running"
    assert _call(container(), "tasks/cancel", {"taskId": task_id})["result"]["resultType"] == "complete"
    assert _call(container(), "tasks/get", {"taskId": task_id})["result"]["status"] == "cancelled"
    _call(container(), "tools/call", {"name": "athena_stop_query", "arguments": {
        "execution_id": plain["structuredContent"]["execution_id"]}})
