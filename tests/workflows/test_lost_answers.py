"""A workflow write whose answer is lost is applied once: the write carries a token of its own, and the store finds
out whether the token landed (the item a failed condition returns, or a consistent read) instead of reading a lost
answer as a conflict or a failure. When it cannot find out in time, the caller is told the outcome is unknown, not
to retry, and the status URI shows the truth."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from mcp import Client
from workflow_support import TABLE, LostAnswers, create_table

from aws_data_mcp.config import Settings
from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore
from aws_data_mcp.workflows.model import Workflow
from aws_data_mcp.workflows.service import Workflows, store_for
from support.servers import ServerThread, free_port


def _table(tmp_path: Path, kind: str) -> str:
    table = f"{TABLE}-{kind}-{os.getpid()}-{tmp_path.name}"[:200]
    create_table(table)
    return table


def lossy(tmp_path: Path, attempts: int) -> tuple[Workflows, LostAnswers]:
    """One caller's workflows in a table of their own, through a session whose DynamoDB answers can be lost."""
    session = boto3.Session(region_name="us-east-1")
    lost = LostAnswers(session)
    store = DynamoDbStore(Settings(mode="local", workflow_table=_table(tmp_path, "lost"), max_attempts=attempts),
                          session=session)
    return Workflows(store, "owner-a"), lost


CHANGES: dict[str, Callable[[Workflows, str], Workflow]] = {
    "update_step": lambda mine, workflow_id: mine.update_step(workflow_id, "s1", status="completed", note="once"),
    "add_step": lambda mine, workflow_id: mine.add_step(workflow_id, "b"),
    "rename": lambda mine, workflow_id: mine.update(workflow_id, name="Renamed"),
}


@pytest.mark.parametrize("attempts", [3, 1], ids=["botocore-retries", "no-retry"])
@pytest.mark.parametrize("how", ["timeout", "500"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_write_whose_answer_is_lost_is_applied_once(tmp_path: Path, attempts: int, how: str, change: str) -> None:
    """With retries, botocore sends the same write again: its condition fails on the first one's version, and the
    item that failure returns carries the write's own token. Without, the store reads the item back."""
    mine, lost = lossy(tmp_path, attempts)
    workflow = mine.create("Plan", steps=["a"])
    lost.lose("PutItem", 1, how)
    answered = CHANGES[change](mine, workflow.id)
    assert lost.delivered == [("PutItem", 200)]  # the write landed; its answer did not come back
    stored = mine.get(workflow.id)
    assert answered.version == stored.version == 2
    assert answered.view() == stored.view()
    assert [step.title for step in stored.steps] == (["a", "b"] if change == "add_step" else ["a"])


@pytest.mark.parametrize("how", ["timeout", "500"])
def test_a_create_whose_answer_is_lost_creates_one_workflow(tmp_path: Path, how: str) -> None:
    mine, lost = lossy(tmp_path, 3)
    lost.lose("PutItem", 1, how)
    created = mine.create("Plan", steps=["a"])
    assert lost.delivered == [("PutItem", 200)]
    assert [(w.id, w.version) for w in mine.list()] == [(created.id, 1)]


def test_a_lost_answer_after_another_writer_won_is_a_conflict_applied_on_the_winner(tmp_path: Path) -> None:
    """The retried write fails its condition on someone else's version: not ours, so the change is applied on top
    of theirs, once."""
    mine, lost = lossy(tmp_path, 3)
    workflow = mine.create("Plan", steps=["a", "b"])
    store = mine.store.store  # type: ignore[attr-defined]
    theirs = Workflows(DynamoDbStore(store._settings), "owner-a")  # another process: a session of its own

    def race(**_: Any) -> None:
        if not lost.delivered:
            theirs.update_step(workflow.id, "s2", note="theirs")  # lands first; ours then fails its condition

    store._client.meta.events.register_first("before-send.dynamodb.PutItem", race)
    lost.lose("PutItem", 1, "timeout")
    ours = mine.update_step(workflow.id, "s1", note="ours")
    stored = mine.get(workflow.id)
    assert lost.delivered == [("PutItem", 400)]  # reached the table, and failed its condition there
    assert ours.version == stored.version == 3
    assert [step.note for step in stored.steps] == ["ours", "theirs"]


# --------------------------------------------------------------------------- through the protocol


@pytest.fixture
def lossy_server(tmp_path: Path) -> Iterator[tuple[str, LostAnswers]]:
    settings = Settings(mode="local", port=free_port(), workflow_store="dynamodb",
                        workflow_table=_table(tmp_path, "server"))
    lost = LostAnswers(store_for(settings).session)  # the store's own session: the function's credentials
    with ServerThread(settings) as server:
        yield server.url, lost


async def _status(client: Client, workflow_id: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(f"workflow://workflows/{workflow_id}/status")).contents[0].text)


@pytest.mark.anyio
async def test_a_write_whose_outcome_cannot_be_settled_answers_outcome_unknown(
        lossy_server: tuple[str, LostAnswers]) -> None:
    """Every attempt of the write reaches the table and loses its answer, and the store cannot read the item back:
    the caller is told the outcome is unknown (not to retry), with the version it expected, and the status URI
    shows that the write did land."""
    url, lost = lossy_server
    async with Client(url, mode="legacy") as client:
        created = await client.call_tool("workflow_create", {"name": "Plan", "steps": ["a"]})
        workflow_id = created.structured_content["workflow"]["id"]
        lost.lose("PutItem", 3, then_fail="GetItem")
        answer = await client.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                                 "note": "maybe"})
        lost.heal()
        status = await _status(client, workflow_id)
    payload = answer.structured_content
    assert answer.is_error and payload["retryable"] is False, payload
    assert payload["outcome"] == "unknown" and payload["expected_version"] == 1, payload
    assert f"workflow://workflows/{workflow_id}/status" in payload["message"]
    assert lost.delivered[0] == ("PutItem", 200)
    assert status["version"] == 2 and status["steps"][0]["note"] == "maybe"


@pytest.mark.anyio
async def test_a_lost_answer_through_the_protocol_is_one_success(lossy_server: tuple[str, LostAnswers]) -> None:
    url, lost = lossy_server
    async with Client(url, mode="legacy") as client:
        created = await client.call_tool("workflow_create", {"name": "Plan", "steps": ["a"]})
        workflow_id = created.structured_content["workflow"]["id"]
        lost.lose("PutItem", 1)
        answer = await client.call_tool("workflow_add_step", {"workflow_id": workflow_id, "title": "b"})
        status = await _status(client, workflow_id)
    assert not answer.is_error, answer.structured_content
    assert answer.structured_content["workflow"]["version"] == status["version"] == 2
    assert [step["title"] for step in status["steps"]] == ["a", "b"]


@pytest.mark.anyio
async def test_an_add_step_of_unknown_outcome_sent_again_with_its_step_id_adds_it_once(
        lossy_server: tuple[str, LostAnswers]) -> None:
    """What docs/workflows.md tells a client to do: after an unknown outcome, send the same add_step (with its
    step_id) again; the step that did land is the answer, not a second one."""
    url, lost = lossy_server
    arguments = {"title": "check access", "step_id": "check-1"}
    async with Client(url, mode="legacy") as client:
        created = await client.call_tool("workflow_create", {"name": "Plan", "steps": ["a"]})
        workflow_id = created.structured_content["workflow"]["id"]
        lost.lose("PutItem", 3, then_fail="GetItem")
        unknown = await client.call_tool("workflow_add_step", {"workflow_id": workflow_id, **arguments})
        lost.heal()
        again = await client.call_tool("workflow_add_step", {"workflow_id": workflow_id, **arguments})
        status = await _status(client, workflow_id)
    assert unknown.is_error and unknown.structured_content["outcome"] == "unknown"
    assert not again.is_error and again.structured_content["workflow"]["version"] == status["version"] == 2
    assert [step["id"] for step in status["steps"]] == ["s1", "check-1"]
