"""Workflows: one contract for both stores, no lost write between processes, ownership, bad input, the protocol."""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference
from workflow_support import TABLE, create_table

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp.workflows import service
from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore
from aws_data_mcp.workflows.model import TOKEN_CHARS, Workflow
from aws_data_mcp.workflows.service import (
    CONFLICT_RETRIES,
    MAX_DESCRIPTION,
    MAX_NAME,
    MAX_NOTE,
    MAX_RESULT,
    MAX_STEPS,
    MAX_WORKFLOW_BYTES,
    Workflows,
)
from aws_data_mcp.workflows.sqlite_store import SqliteStore
from aws_data_mcp.workflows.store import WorkflowStore, Written
from support.events import EVENTS, ROOT, body_json, http_api_event, rpc
from support.servers import free_port, lambda_container


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


def test_rename_and_redescribe(store: WorkflowStore) -> None:
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", "the old plan", ["a"])
    renamed = mine.update(workflow.id, name="  Churn report  ", description="find, check, query, write")
    assert (renamed.name, renamed.description, renamed.version) == ("Churn report", "find, check, query, write", 2)
    described = mine.update(workflow.id, description="")
    assert (described.name, described.description, described.version) == ("Churn report", "", 3)
    assert mine.get(workflow.id).to_json() == described.to_json()
    assert [s.title for s in described.steps] == ["a"]


def test_remove_a_step_keeping_the_others_and_never_reusing_its_id(store: WorkflowStore) -> None:
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["find", "check", "query"])
    mine.update_step(workflow.id, "s1", status="completed")
    removed = mine.remove_step(workflow.id, "s3")
    assert [(s.id, s.status) for s in removed.steps] == [("s1", "completed"), ("s2", "pending")]
    assert removed.version == 3 and mine.get(workflow.id).to_json() == removed.to_json()
    added = mine.add_step(workflow.id, "write")
    assert [s.id for s in added.steps] == ["s1", "s2", "s4"]  # a reference to the removed s3 never finds another


def test_delete_answers_what_it_deleted(store: WorkflowStore) -> None:
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["a", "b"])
    mine.update_step(workflow.id, "s1", status="completed")
    deleted = mine.delete(workflow.id)
    assert (deleted.id, deleted.name, deleted.version, deleted.status) == (workflow.id, "Plan", 2, "in_progress")
    assert mine.list() == []
    with pytest.raises(ResourceFailure) as again:
        mine.delete(workflow.id)
    assert again.value.code is ErrorCode.NOT_FOUND


# --------------------------------------------------------------------------- sending a change again


def test_adding_a_step_with_its_own_id_again_is_a_no_op(store: WorkflowStore) -> None:
    """The caller names the step: a re-sent call (after a lost answer, or an unknown outcome) finds it there."""
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["a"])
    first = mine.add_step(workflow.id, "check access", step_id="check-1")
    again = mine.add_step(workflow.id, "check access", step_id="check-1", position=1)
    assert [(s.id, s.title) for s in again.steps] == [("s1", "a"), ("check-1", "check access")]
    assert first.version == again.version == 2 and mine.get(workflow.id).to_json() == first.to_json()
    with pytest.raises(ResourceFailure) as taken:
        mine.add_step(workflow.id, "something else", step_id="check-1")
    assert taken.value.code is ErrorCode.INVALID_ARGUMENT and "already a step" in taken.value.message
    with pytest.raises(ResourceFailure) as bad:
        mine.add_step(workflow.id, "x", step_id="no spaces")
    assert bad.value.code is ErrorCode.INVALID_ARGUMENT
    mine.add_step(workflow.id, "named like the server's", step_id="s7")
    assert mine.add_step(workflow.id, "next").steps[-1].id == "s8"  # an issued kind of id is never issued again
    assert mine.get(workflow.id).version == 4


def test_every_other_change_sent_again_applies_nothing_twice(store: WorkflowStore) -> None:
    """Setting tools set the same values again (the state is the same; the version says it was written again);
    removing tools refuse, changing nothing."""
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["a", "b", "c"])
    for _ in range(2):
        mine.update_step(workflow.id, "s1", status="completed", note="done")
        mine.update(workflow.id, name="Renamed")
        mine.reorder(workflow.id, ["s3", "s1", "s2"])
    twice = mine.get(workflow.id)
    assert (twice.name, [(s.id, s.status, s.note) for s in twice.steps]) == (
        "Renamed", [("s3", "pending", None), ("s1", "completed", "done"), ("s2", "pending", None)])
    mine.remove_step(workflow.id, "s2")
    with pytest.raises(ResourceFailure) as removed:
        mine.remove_step(workflow.id, "s2")
    assert removed.value.code is ErrorCode.INVALID_ARGUMENT and [s.id for s in mine.get(workflow.id).steps] == [
        "s3", "s1"]
    mine.delete(workflow.id)
    with pytest.raises(ResourceFailure) as deleted:
        mine.delete(workflow.id)
    assert deleted.value.code is ErrorCode.NOT_FOUND


def _stored_bytes(workflow: Workflow) -> int:
    return len(workflow.to_json().encode())


def test_plain_text_at_every_limit_fits_and_a_workflow_at_the_size_limit_is_kept(store: WorkflowStore) -> None:
    """DynamoDB refuses an item over 400 KB; SQLite would keep it. The size limit holds for both, so they agree."""
    mine = Workflows(store, "d" * 32)  # as long as a caller's identity digest
    plain = mine.create("n" * MAX_NAME, "d" * MAX_DESCRIPTION, ["t" * MAX_NAME] * MAX_STEPS)
    for step in plain.steps:
        plain = mine.update_step(plain.id, step.id, "in_progress", "x" * MAX_NOTE, "r" * MAX_RESULT)
    assert mine.get(plain.id).to_json() == plain.to_json() and plain.version == 1 + MAX_STEPS
    mine.delete(plain.id)

    emoji = "\U0001F600"  # 12 bytes as stored (an escaped surrogate pair): what a change can reach the limit with
    big = mine.create("Big", "d" * MAX_DESCRIPTION, [emoji * MAX_NAME] * 9)
    for step in big.steps:
        big = mine.update_step(big.id, step.id, note=emoji * MAX_NOTE, result=emoji * MAX_RESULT)
    big = mine.add_step(big.id, "last")
    probe = copy.deepcopy(big)
    probe.version += 1
    probe.steps[-1].note = ""
    room = MAX_WORKFLOW_BYTES - _stored_bytes(probe)
    assert 0 < room < MAX_NOTE
    with pytest.raises(ResourceFailure) as refused:
        mine.update_step(big.id, big.steps[-1].id, note="x" * (room + 1))
    payload = refused.value.payload()
    assert payload["error"] == "invalid_argument" and f"{MAX_WORKFLOW_BYTES:,}" in payload["message"]
    assert f"{MAX_WORKFLOW_BYTES + 1:,} bytes" in payload["message"]
    assert mine.get(big.id).to_json() == big.to_json()
    at_limit = mine.update_step(big.id, big.steps[-1].id, note="x" * room)
    assert _stored_bytes(at_limit) == MAX_WORKFLOW_BYTES
    assert mine.get(big.id).to_json() == at_limit.to_json()
    with pytest.raises(ResourceFailure) as no_room:
        mine.add_step(big.id, "one more")
    assert no_room.value.code is ErrorCode.INVALID_ARGUMENT and mine.get(big.id).version == at_limit.version


class LosingStore:
    """A store where every versioned write loses to another writer, counting the attempts."""

    def __init__(self, store: WorkflowStore) -> None:
        self.store, self.location, self.attempts = store, store.location, 0

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        return self.store.get(owner, workflow_id)

    def list(self, owner: str) -> list[Workflow]:
        return self.store.list(owner)

    def create(self, workflow: Workflow) -> Written:
        return self.store.create(workflow)

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        """Refused by its condition: another writer's version is there (its token in the place of this write's);
        nothing is written."""
        self.attempts += 1
        winner = copy.deepcopy(workflow)
        winner.writes = "x" * TOKEN_CHARS + workflow.writes[TOKEN_CHARS:]
        return Written(winner)

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        return self.store.delete(owner, workflow_id)


def test_a_write_that_keeps_losing_answers_a_retryable_error_and_changes_nothing(
        store: WorkflowStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "CONFLICT_BACKOFF_SECONDS", 0.0)
    losing = LosingStore(store)
    mine = Workflows(losing, "owner-a")
    workflow = mine.create("Contended", steps=["a"])
    with pytest.raises(ResourceFailure) as refused:
        mine.update_step(workflow.id, "s1", status="completed")
    assert losing.attempts == CONFLICT_RETRIES
    payload = refused.value.payload()
    assert payload["error"] == "upstream_unavailable" and payload["retryable"] is True
    assert "not applied" in " ".join(payload["details"])
    assert mine.get(workflow.id).to_json() == workflow.to_json()


@pytest.mark.parametrize(("change", "code"), [
    (lambda m, w: m.update_step(w, "s9", status="completed"), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", status="done"), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", note="x" * (MAX_NOTE + 1)), "invalid_argument"),
    (lambda m, w: m.update_step(w, "s1", note=5), "invalid_argument"),
    (lambda m, w: m.add_step(w, ""), "invalid_argument"),
    (lambda m, w: m.reorder(w, ["s1", "s1"]), "invalid_argument"),
    (lambda m, w: m.update(w), "invalid_argument"),
    (lambda m, w: m.update(w, name=" "), "invalid_argument"),
    (lambda m, w: m.update(w, name="n" * (MAX_NAME + 1)), "invalid_argument"),
    (lambda m, w: m.remove_step(w, "s9"), "invalid_argument"),
])
def test_bad_input_is_refused_and_changes_nothing(store: WorkflowStore, change: Any, code: str) -> None:
    mine = Workflows(store, "owner-a")
    workflow = mine.create("Plan", steps=["a", "b"])
    with pytest.raises(ResourceFailure) as refused:
        change(mine, workflow.id)
    assert refused.value.code.value == code
    assert mine.get(workflow.id).to_json() == workflow.to_json()


def test_a_finished_workflow_expires_by_ttl_in_dynamodb_and_a_reopened_one_does_not(tmp_path: Path) -> None:
    table = f"{TABLE}-ttl-{os.getpid()}"
    create_table(table)
    mine = Workflows(DynamoDbStore(Settings(mode="local", workflow_table=table, workflow_retention_days=7)), "owner-a")
    running = mine.create("Running", steps=["a", "b"])
    mine.update_step(running.id, "s1", status="completed")
    done = mine.create("Done", steps=["a"])
    before = int(time.time())
    mine.update_step(done.id, "s1", status="failed")
    after = int(time.time())

    def item(workflow_id: str) -> dict[str, Any]:
        key = {"pk": {"S": "owner-a"}, "sk": {"S": workflow_id}}
        return boto3.client("dynamodb", region_name="us-east-1").get_item(TableName=table, Key=key)["Item"]

    assert before + 7 * 86_400 <= int(item(done.id)["expires_at"]["N"]) <= after + 7 * 86_400
    assert "expires_at" not in item(running.id)
    mine.update_step(done.id, "s1", status="in_progress")  # reopened: it must not vanish under the caller
    assert "expires_at" not in item(done.id)
    assert "AttributeName: expires_at" in (ROOT / "template.yaml").read_text()  # the attribute the TTL reads


def test_the_sqlite_file_is_created_on_first_use_in_wal_mode(tmp_path: Path) -> None:
    """WAL: readers never wait for the writer, and two processes sharing the file write in turn."""
    path = tmp_path / "new" / "state" / "workflows.sqlite3"
    Workflows(SqliteStore(str(path)), "owner-a").create("Plan")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.anyio
async def test_config_server_shows_where_the_sqlite_file_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    nobody = Caller("local", None, "us-east-1", "not needed")
    chosen = str(tmp_path / "elsewhere" / "plans.sqlite3")
    for settings, location in ((Settings(mode="local"), tmp_path / "state" / "aws-data-mcp" / "workflows.sqlite3"),
                               (Settings(mode="local", workflow_db=chosen), chosen)):
        reading = await ResourceReader(registry, settings).read("config://server", lambda: nobody)
        assert json.loads(reading.text)["workflows"] == {"store": "sqlite", "location": str(location)}


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
    from support.servers import ServerThread

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


@pytest.mark.anyio
async def test_rename_remove_a_step_and_delete_through_the_sdk_client(workflow_server: str) -> None:
    async with Client(workflow_server, mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        created = (await client.call_tool("workflow_create", {"name": "Draft", "steps": ["a", "b"]})).structured_content
        workflow_id = created["workflow"]["id"]
        renamed = await client.call_tool("workflow_update", {"workflow_id": workflow_id, "name": "Final",
                                                             "description": "the real plan"})
        removed = await client.call_tool("workflow_remove_step", {"workflow_id": workflow_id, "step_id": "s1"})
        deleted = await client.call_tool("workflow_delete", {"workflow_id": workflow_id})
        listed = json.loads((await client.read_resource("workflow://workflows")).contents[0].text)
    assert {"workflow_update", "workflow_remove_step"} <= set(tools)
    assert tools["workflow_remove_step"].annotations.destructive_hint is True
    assert tools["workflow_update"].annotations.read_only_hint is False
    assert not renamed.is_error and renamed.structured_content["workflow"]["name"] == "Final"
    assert renamed.structured_content["workflow"]["description"] == "the real plan"
    assert [link.uri for link in renamed.content if link.type == "resource_link"] == [
        f"workflow://workflows/{workflow_id}/status"]
    assert [step["id"] for step in removed.structured_content["workflow"]["steps"]] == ["s2"]
    assert not deleted.is_error
    gone = deleted.structured_content["deleted"]
    assert (gone["id"], gone["name"], gone["version"], gone["step_count"]) == (workflow_id, "Final", 3, 1)
    links = [c.uri for c in deleted.content if c.type == "resource_link"]
    assert links == ["workflow://workflows"]  # the list that changed; the deleted status URI would be not_found
    assert workflow_id not in [w["id"] for w in listed["workflows"]]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_completion_offers_the_callers_workflow_ids(workflow_server: str, mode: str) -> None:
    template = ResourceTemplateReference(type="ref/resource", uri="workflow://workflows/{workflow_id}/status")
    async with Client(workflow_server, mode=mode) as client:
        created = [(await client.call_tool("workflow_create", {"name": f"{mode} {n}"})).structured_content
                   for n in range(2)]
        ids = [answer["workflow"]["id"] for answer in created]
        one = await client.complete(template, {"name": "workflow_id", "value": ids[0][:8]})
        every = await client.complete(template, {"name": "workflow_id", "value": ""})
        config = json.loads((await client.read_resource("config://server")).contents[0].text)
    assert one.completion.values == [ids[0]]
    assert set(ids) <= set(every.completion.values)
    assert config["workflows"]["store"] == "sqlite" and config["workflows"]["location"].endswith("workflows.sqlite3")


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
from aws_data_mcp.transport.lambda_context import LocalLambdaContext
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
