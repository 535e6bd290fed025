"""Each tool's `outputSchema` and annotations say what it answers and does (docs/protocol.md, "Tools").

Every tool answering structured content declares a valid JSON Schema (2020-12, as MCP 2026-07-28 has it) on both
revisions, and real answers of every kind validate against it: every workflow tool, a query that succeeded, one
left running, an estimate, a stopped one; through the SDK client (which validates each answer itself) and the
Lambda handler. The annotations agree with docs/workflows.md's "Sending a change again".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp_types import CallToolResult, Tool

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, modern, rpc
from support.servers import ServerThread, free_port, lambda_container

MODES = ("legacy", "2026-07-28")
UNSTRUCTURED = {"get_resource"}
"""Answers resources/read's text as it is (structured content only for its discovery answer): no outputSchema."""
SQL = "SELECT order_date, count(*) AS orders FROM orders WHERE order_date = '2026-01-01' GROUP BY order_date"
IDEMPOTENT = {"workflow_update": True, "workflow_update_step": True, "workflow_reorder_steps": True,
              "workflow_remove_step": True, "workflow_delete": True, "workflow_create": False,
              "workflow_add_step": False, "athena_stop_query": True}
"""docs/workflows.md: a value set again sets the same; a removal or deletion sent again removes nothing more;
create makes a new id each time; add_step adds again unless it carries its own step_id."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def workflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    database = str(tmp_path_factory.mktemp("wf") / "workflows.sqlite3")
    with ServerThread(Settings(mode="local", port=free_port(), workflow_db=database)) as server:
        yield server


def checked(tool: Tool, result: CallToolResult) -> dict[str, Any]:
    """The answer's structured content, validated against the tool's schema as a client would."""
    assert not result.is_error, result.content[0]
    assert tool.output_schema is not None and result.structured_content is not None
    jsonschema.Draft202012Validator(tool.output_schema).validate(result.structured_content)
    return result.structured_content


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_every_tool_answering_structured_content_declares_a_valid_schema(
        workflow_server: ServerThread, mode: str) -> None:
    async with Client(workflow_server.url, mode=mode) as client:
        tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} > UNSTRUCTURED
    for tool in tools:
        if tool.name in UNSTRUCTURED:
            assert tool.output_schema is None
            continue
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        annotations = tool.annotations
        assert annotations is not None
        assert annotations.idempotent_hint is (True if annotations.read_only_hint else IDEMPOTENT[tool.name]), tool.name
        assert annotations.open_world_hint is (not tool.name.startswith("workflow_")), tool.name


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_every_workflow_tools_real_answer_validates(workflow_server: ServerThread, mode: str) -> None:
    async with Client(workflow_server.url, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            return checked(tools[tool], await client.call_tool(tool, arguments))  # the SDK validated it first

        workflow_id = (await call("workflow_create", name="Plan", steps=["a", "b"]))["workflow"]["id"]
        await call("workflow_update", workflow_id=workflow_id, description="why")
        await call("workflow_add_step", workflow_id=workflow_id, title="c", step_id="mine")
        done = await call("workflow_update_step", workflow_id=workflow_id, step_id="s1", status="completed",
                          note="n", result="athena://databases")
        assert done["workflow"]["status"] == "in_progress"
        await call("workflow_reorder_steps", workflow_id=workflow_id, step_ids=["mine", "s2", "s1"])
        await call("workflow_remove_step", workflow_id=workflow_id, step_id="s2")
        deleted = await call("workflow_delete", workflow_id=workflow_id)
    assert deleted["deleted"]["id"] == workflow_id


@pytest.mark.anyio
@pytest.mark.usefixtures("quick_queries")
@pytest.mark.parametrize("mode", MODES)
async def test_every_kind_of_query_answer_validates(demo_query_http: ServerThread, demo_caller: DemoAccount,
                                                    mode: str) -> None:
    async with Client(demo_query_http.url, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        ran = checked(tools["athena_query"], await client.call_tool("athena_query", {"database": "sales", "sql": SQL}))
        estimated = checked(tools["athena_query"], await client.call_tool(
            "athena_query", {"database": "sales", "sql": SQL, "estimate_only": True}))
        running = checked(tools["athena_query"], await client.call_tool(
            "athena_query", {"database": "sales", "sql": f"/* demo:running_seconds=30 */ {SQL}", "wait_seconds": 0}))
        stopped = checked(tools["athena_stop_query"], await client.call_tool(
            "athena_stop_query", {"execution_id": running["execution_id"]}))
    assert ran["state"] == "SUCCEEDED" and ran["results"]["rows"] == [["2026-01-01", ran["results"]["rows"][0][1]]]
    assert "estimate" in estimated and running["state"] in ("QUEUED", "RUNNING") and running["results"] is None
    assert stopped["state"] == "CANCELLED"


@pytest.mark.usefixtures("quick_queries")
def test_the_lambda_handlers_answers_validate(demo_caller: DemoAccount, tmp_path: Path) -> None:
    host = http_api_event(rpc("ping"))["headers"]["host"]
    handler = lambda_container(Settings(mode="local", query_workgroups=QUERY_WORKGROUPS, allowed_hosts=(host,),
                                        workflow_db=str(tmp_path / "workflows.sqlite3")))
    for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
        listed = body_json(handler(http_api_event(build("tools/list"), revision=revision)))["result"]["tools"]
        schemas = {tool["name"]: tool.get("outputSchema") for tool in listed}
        for name, arguments in (("athena_query", {"database": "sales", "sql": SQL}),
                                ("workflow_create", {"name": "On Lambda", "steps": ["one"]})):
            result = body_json(handler(http_api_event(build("tools/call", {"name": name, "arguments": arguments}),
                                                      revision=revision)))["result"]
            assert result["isError"] is False, result["content"][0]["text"]
            jsonschema.Draft202012Validator(schemas[name]).validate(result["structuredContent"])
