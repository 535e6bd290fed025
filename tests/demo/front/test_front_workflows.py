"""Workflows on the hosted path: two callers through the demo's OIDC front, the real Lambda handler, and the
emulated account's DynamoDB table reached with the function's own identity (IAM enforced)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference

STATUS = ResourceTemplateReference(type="ref/resource", uri="workflow://workflows/{workflow_id}/status")


@asynccontextmanager
async def connected(url: str, token: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        yield client


async def read(client: Client, uri: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(uri)).contents[0].text)


async def refusals(client: Client, workflow_id: str) -> list[dict[str, Any]]:
    """What a caller hears reading, updating and deleting `workflow_id`, with the id itself masked."""
    answers = []
    try:
        await client.read_resource(f"workflow://workflows/{workflow_id}/status")
    except MCPError as exc:
        answers.append(exc.error.data)
    else:
        answers.append({"read": "succeeded"})
    for tool, arguments in (("workflow_update_step", {"step_id": "s1", "status": "failed"}),
                            ("workflow_delete", {})):
        answer = await client.call_tool(tool, {"workflow_id": workflow_id, **arguments})
        answers.append(answer.structured_content if answer.is_error else {tool: "succeeded"})
    return json.loads(json.dumps(answers).replace(workflow_id, "<id>"))


@pytest.mark.anyio
async def test_a_workflow_is_its_creators_alone_through_the_oidc_front(
        oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    async with connected(url, tokens["alice"]) as alice:
        created = await alice.call_tool("workflow_create", {"name": "Churn report", "steps": ["find the table"]})
        assert not created.is_error, created.content[0].text[:500]
        workflow_id = created.structured_content["workflow"]["id"]
        await alice.call_tool("workflow_add_step", {"workflow_id": workflow_id, "title": "run the query"})
        updated = await alice.call_tool("workflow_update_step", {"workflow_id": workflow_id, "step_id": "s1",
                                                                 "status": "completed", "note": "sales.orders"})
        assert not updated.is_error, updated.content[0].text[:500]
        status = await read(alice, f"workflow://workflows/{workflow_id}/status")
        alices_ids = (await alice.complete(STATUS, {"name": "workflow_id", "value": ""})).completion.values
    assert workflow_id in alices_ids
    assert status["status"] == "in_progress" and status["version"] == 3
    assert [(s["id"], s["status"], s["note"]) for s in status["steps"]] == [
        ("s1", "completed", "sales.orders"), ("s2", "pending", None)]

    async with connected(url, tokens["bob"]) as bob:
        theirs = await refusals(bob, workflow_id)
        made_up = await refusals(bob, str(uuid.uuid4()))
        bobs_list = await read(bob, "workflow://workflows")
        bobs_ids = (await bob.complete(STATUS, {"name": "workflow_id", "value": workflow_id[:4]})).completion.values
    assert theirs == made_up  # indistinguishable from an id that never existed
    assert [answer["error"] for answer in theirs] == ["not_found"] * 3
    assert workflow_id not in json.dumps(bobs_list) and bobs_list["store"] == "dynamodb"
    assert workflow_id not in bobs_ids  # completion offers only the caller's own ids

    async with connected(url, tokens["alice"]) as alice:
        after = await read(alice, f"workflow://workflows/{workflow_id}/status")
        listed = await read(alice, "workflow://workflows")
    assert after == status  # nothing bob tried changed it
    assert workflow_id in [entry["id"] for entry in listed["workflows"]]
