"""Bad input through the real tools (the SDK client over local HTTP): the shared structured `invalid_argument`
error, never the SDK's validation dump, and the stored workflow exactly as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.workflows.service import MAX_DESCRIPTION, MAX_NAME, MAX_NOTE, MAX_STEPS
from support.servers import ServerThread, free_port

ONE_MB_NOTE = "x" * 1_000_000
"""A real megabyte of note: it fits the 1 MiB request-body limit, so the tool itself must refuse it."""

BAD_INPUT: dict[str, tuple[str, dict[str, Any], str, str]] = {
    # case: (tool, arguments besides workflow_id, the argument the message names, what the message says of it)
    "invalid status": ("workflow_update_step", {"step_id": "s1", "status": "done"}, "status", "in_progress"),
    "wrong type": ("workflow_update_step", {"step_id": "s1", "status": 5}, "status", "completed"),
    "1 MB note": ("workflow_update_step", {"step_id": "s1", "note": ONE_MB_NOTE}, "note", str(MAX_NOTE)),
    "unknown step": ("workflow_update_step", {"step_id": "s9", "status": "completed"}, "step_id", "s1, s2"),
    "missing step id": ("workflow_update_step", {"status": "completed"}, "step_id", "required"),
    "position zero": ("workflow_add_step", {"title": "c", "position": 0}, "position", "1"),
    "empty title": ("workflow_add_step", {"title": ""}, "title", "1"),
    "long name": ("workflow_update", {"name": "n" * (MAX_NAME + 1)}, "name", str(MAX_NAME)),
    "long description": ("workflow_update", {"description": "d" * (MAX_DESCRIPTION + 1)}, "description",
                         str(MAX_DESCRIPTION)),
    "nothing to update": ("workflow_update", {}, "name", "description"),
    "unknown step removed": ("workflow_remove_step", {"step_id": "s7"}, "step_id", "s1, s2"),
    "steps not a list": ("workflow_reorder_steps", {"step_ids": "s2,s1"}, "step_ids", "list"),
    "too many steps": ("workflow_create", {"name": "Big", "steps": ["s"] * (MAX_STEPS + 1)}, "steps",
                       str(MAX_STEPS)),
    "unknown argument on create": ("workflow_create", {"name": "a", "zzz": 1}, "zzz", "name, description, steps"),
    "misspelt argument": ("workflow_update_step", {"step_id": "s1", "stauts": "completed"}, "stauts",
                          "workflow_id, step_id, status, note, result, title"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("input") / "workflows.sqlite3"
    with ServerThread(Settings(mode="local", port=free_port(), workflow_db=str(database))) as running:
        yield running.url


def _stored(answer: Any) -> str:
    return str(answer.contents[0].text)


@pytest.mark.anyio
@pytest.mark.parametrize("case", sorted(BAD_INPUT))
async def test_bad_input_is_a_structured_invalid_argument_and_changes_nothing(server: str, case: str) -> None:
    tool, arguments, argument, limit = BAD_INPUT[case]
    async with Client(server, mode="legacy") as client:
        created = await client.call_tool("workflow_create", {"name": "Plan", "steps": ["a", "b"]})
        workflow = created.structured_content["workflow"]
        uri = workflow["status_uri"]
        before = _stored(await client.read_resource(uri))
        listed_before = json.loads(_stored(await client.read_resource("workflow://workflows")))["count"]
        target = {} if tool == "workflow_create" else {"workflow_id": workflow["id"]}
        refused = await client.call_tool(tool, {**target, **arguments})
        after = _stored(await client.read_resource(uri))
        listed_after = json.loads(_stored(await client.read_resource("workflow://workflows")))["count"]
    assert refused.is_error
    payload = refused.structured_content
    assert payload is not None, refused.content[0].text[:300]
    assert payload["error"] == "invalid_argument" and payload["retryable"] is False
    assert argument in payload["message"] and limit in payload["message"] + " ".join(payload["details"])
    assert payload["details"], payload
    assert json.loads(refused.content[0].text) == payload  # the text is the same JSON, as on every other error
    assert "validation error" not in refused.content[0].text and "Error executing tool" not in refused.content[0].text
    assert len(refused.content[0].text) < 2_000  # never the 1 MB note (or any other input) quoted back
    assert after == before and listed_after == listed_before


@pytest.mark.anyio
async def test_a_1_mb_note_on_a_new_step_changes_nothing_either(server: str) -> None:
    """The same refusal on the 2026-07-28 revision, for a different tool path: add_step then the note."""
    async with Client(server, mode="2026-07-28") as client:
        created = (await client.call_tool("workflow_create", {"name": "Plan"})).structured_content["workflow"]
        added = (await client.call_tool("workflow_add_step", {"workflow_id": created["id"], "title": "a"}))
        before = _stored(await client.read_resource(created["status_uri"]))
        refused = await client.call_tool("workflow_update_step", {"workflow_id": created["id"], "step_id": "s1",
                                                                  "note": ONE_MB_NOTE, "status": "completed"})
        after = _stored(await client.read_resource(created["status_uri"]))
    assert not added.is_error
    assert refused.is_error and refused.structured_content["error"] == "invalid_argument"
    assert after == before and json.loads(after)["version"] == 2


@pytest.mark.anyio
async def test_every_workflow_tool_schema_refuses_unknown_arguments(server: str) -> None:
    async with Client(server, mode="legacy") as client:
        schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    workflow_tools = sorted(name for name in schemas if name.startswith("workflow_"))
    assert len(workflow_tools) == 7
    assert [schemas[name].get("additionalProperties") for name in workflow_tools] == [False] * 7
