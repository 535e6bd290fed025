"""Workflows: one contract for both stores, no lost write between processes, ownership, bad input, the protocol."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore
from aws_data_mcp.workflows.service import MAX_NOTE, Workflows
from aws_data_mcp.workflows.sqlite_store import SqliteStore
from aws_data_mcp.workflows.store import WorkflowStore
from conftest import EVENTS, body_json, free_port, http_api_event, lambda_container, rpc

TABLE = "test-workflows"


def create_table(name: str = TABLE) -> None:
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    if name in dynamodb.list_tables()["TableNames"]:
        return
    dynamodb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}])


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> WorkflowStore:
    if request.param == "sqlite":
        return SqliteStore(str(tmp_path / "workflows.sqlite3"))
    table = f"{TABLE}-{os.getpid()}-{tmp_path.name}"[:200]
    create_table(table)
    return DynamoDbStore(Settings(mode="local", workflow_table=table))


# --------------------------------------------------------------------------- the contract, both stores


def test_create_read_list_update_delete(store: WorkflowStore) -> None:
    mine = Workflows(store, "owner-a")
    first = mine.create("Monthly churn report", "find, check, query, write", ["find the table", "check access"])
    second = mine.create("Second")
    assert [w.id for w in mine.list()] == [second.id, first.id]  # newest first
    updated = mine.update_step(first.id, "s1", status="completed", result="athena://databases/sales/tables")
    assert updated.version == 2 and updated.status == "in_progress"
    mine.add_step(first.id, "run the query", position=2)
    assert [s.title for s in mine.get(first.id).steps] == ["find the table", "run the query", "check access"]
    mine.reorder(first.id, ["s2", "s3", "s1"])
    for step in ("s1", "s2", "s3"):
        mine.update_step(first.id, step, status="completed")
    done = mine.get(first.id)
    assert done.status == "completed" and done.version == 7
    mine.delete(first.id)
    with pytest.raises(ResourceFailure) as gone:
        mine.get(first.id)
    assert gone.value.code.value == "not_found"


def test_another_callers_workflow_is_indistinguishable_from_none(store: WorkflowStore) -> None:
    theirs = Workflows(store, "owner-b").create("Theirs", steps=["x"])
    mine = Workflows(store, "owner-a")
    answers = []
    for attempt in (lambda: mine.get(theirs.id), lambda: mine.update_step(theirs.id, "s1", status="failed"),
                    lambda: mine.delete(theirs.id), lambda: mine.get("00000000-0000-0000-0000-000000000000")):
        with pytest.raises(ResourceFailure) as refused:
            attempt()
        answers.append((refused.value.code.value, refused.value.details))
    assert len({json.dumps(a) for a in answers}) == 1 and answers[0][0] == "not_found"
    assert Workflows(store, "owner-b").get(theirs.id).version == 1


@pytest.mark.parametrize(("change", "code"), [
    (lambda m, w: m.update_step(w, "s9", status="completed"), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", status="done"), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", note="x" * (MAX_NOTE + 1)), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", note=5), "invalid_argument"),
    (lambda m, w: m.add_step(w, ""), "invalid_argument"),
    (lambda m, w: m.reorder(w, ["s1", "s1"]), "invalid_argument"),
])
def test_bad_input_is_refused_and_changes_nothing(store: WorkflowStore, change: Any, code: str) -> None:
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["a", "b"])
    with pytest.raises(ResourceFailure) as refused:
        change(mine, workflow.id)
    assert refused.value.code.value == code
    assert mine.get(workflow.id).to_json() == workflow.to_json()


# --------------------------------------------------------------------------- no lost write across processes


def _hammer(kind: str, location: str, endpoint: str, workflow_id: str, worker: int, updates: int) -> None:
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    store: WorkflowStore = SqliteStore(location) if kind == "sqlite" else \
        DynamoDbStore(Settings(mode="local", workflow_table=location))
    mine = Workflows(store, "owner-a")
    for index in range(updates):
        mine.update_step(workflow_id, f"s{worker + 1}", note=f"{worker}:{index}")


@pytest.mark.parametrize("kind", ["sqlite", "dynamodb"])
def test_two_processes_updating_one_workflow_500_times_lose_nothing(kind: str, tmp_path: Path) -> None:
    location = str(tmp_path / "shared.sqlite3") if kind == "sqlite" else f"{TABLE}-shared-{os.getpid()}"
    if kind == "dynamodb":
        create_table(location)
    store: WorkflowStore = SqliteStore(location) if kind == "sqlite" else \
        DynamoDbStore(Settings(mode="local", workflow_table=location))
    workflow = Workflows(store, "owner-a").create("Contended", steps=["one", "two"])
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_hammer, args=(kind, location, os.environ["AWS_ENDPOINT_URL"], workflow.id,
                                                     worker, 250)) for worker in (0, 1)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(240)
        assert process.exitcode == 0
    final = Workflows(store, "owner-a").get(workflow.id)
    assert final.version == 1 + 500
    assert [step.note for step in final.steps] == ["0:249", "1:249"]


# --------------------------------------------------------------------------- through the protocol


@pytest.fixture(scope="module")
def workflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from conftest import ServerThread

    database = str(tmp_path_factory.mktemp("wf") / "workflows.sqlite3")
    with ServerThread(Settings(mode="local", port=free_port(), workflow_db=database)) as server:
        yield server.url


@pytest.mark.anyio
async def test_tools_and_resources_through_the_sdk_client(workflow_server: str) -> None:
    async with Client(workflow_server, mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["workflow_update_step"].annotations.read_only_hint is False
        assert tools["workflow_delete"].annotations.destructive_hint is True
        assert "in_progress" in json.dumps(tools["workflow_update_step"].input_schema)
        created = await client.call_tool("workflow_create", {"name": "Report", "steps": ["find", "query"]})
        assert not created.is_error
        link = next(c for c in created.content if c.type == "resource_link")
        workflow_id = created.structured_content["workflow"]["id"]
        assert link.uri == f"workflow://workflows/{workflow_id}/status"
        await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                        "status": "completed", "note": "sales.orders"})
        status = json.loads((await client.read_resource(link.uri)).contents[0].text)
        listed = json.loads((await client.read_resource("workflow://workflows")).contents[0].text)
        bad = await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s7",
                                                              "status": "completed"})
    assert status["status"] == "in_progress" and status["steps"][0]["note"] == "sales.orders"
    assert status["version"] == 2 and "owner" not in status
    assert listed["workflows"][0]["id"] == workflow_id
    assert bad.is_error and bad.structured_content["error"] == "invalid_argument"


def test_a_workflow_created_through_one_lambda_process_is_read_through_another(tmp_path: Path) -> None:
    create_table("aws-data-mcp-workflows")
    settings = Settings(mode="local", workflow_store="dynamodb", allowed_hosts=("abc123.execute-api.us-east-1."
                                                                                  "amazonaws.com",))
    created = body_json(lambda_container(settings)(http_api_event(rpc("tools/call", {
        "name": "workflow_create", "arguments": {"name": "Across containers", "steps": ["a"]}}))))
    workflow_id = created["result"]["structuredContent"]["workflow"]["id"]
    script = f"""
import json
from mangum import Mangum
from aws_data_mcp.app import create_http_app
from aws_data_mcp.cli import LocalLambdaContext
from aws_data_mcp.config import Settings
event = json.load(open({str(EVENTS / "http-api-v2/resources-read-static.json")!r}))
event["body"] = json.dumps({{"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                             "params": {{"uri": "workflow://workflows/{workflow_id}/status"}}}})
settings = Settings(mode="local", workflow_store="dynamodb", allowed_hosts=(event["headers"]["host"],))
answer = json.loads(Mangum(create_http_app(settings), lifespan="off")(event, LocalLambdaContext())["body"])
print(json.loads(answer["result"]["contents"][0]["text"])["name"])
"""
    import subprocess

    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                           env={**os.environ})
    assert other.stdout.strip().splitlines()[-1] == "Across containers", other.stderr[-2000:]


@pytest.mark.anyio
async def test_a_listening_client_hears_of_a_change_within_a_second(workflow_server: str) -> None:
    import anyio

    async with Client(workflow_server, mode="2026-07-28") as writer:
        created = await writer.call_tool("workflow_create", {"name": "Watched", "steps": ["a"]})
        workflow_id = created.structured_content["workflow"]["id"]
        uri = f"workflow://workflows/{workflow_id}/status"
        async with Client(workflow_server, mode="2026-07-28") as listener, \
                listener.listen(resource_subscriptions=[uri], resources_list_changed=True) as subscription:
            started = anyio.current_time()
            await writer.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                            "status": "in_progress"})
            with anyio.fail_after(1.0):
                event = await subscription.__anext__()
            assert getattr(event, "uri", None) == uri
            assert anyio.current_time() - started < 1.0
