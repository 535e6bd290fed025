"""The README's demo: `make demo` (`python -m aws_data_mcp_demo`) serves /mcp against the emulated account, as a
newcomer runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import PromptReference

from aws_data_mcp_demo.account.seed_data import DEMO_DATA_STORY as DEMO_DATA
from aws_data_mcp_demo.command import STDIO_DEMO_READY
from support.servers import START_GUARD_SECONDS, free_port

pytestmark = pytest.mark.anyio

DATABASES = {"sales", "marketing", "ml_features", "enterprise", "lakehouse"}
"""The demo's Glue databases: the lake's three, the enterprise lake's, the lakehouse (Iceberg)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def demo_server() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    process = subprocess.Popen([sys.executable, "-m", "aws_data_mcp_demo", "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + START_GUARD_SECONDS  # a guard against a demo that never starts
    while time.monotonic() < deadline:
        try:
            httpx2.post(url, content=b"{}", timeout=1)
            break
        except httpx2.TransportError:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read() if process.stderr else "demo exited") from None
            time.sleep(0.2)
    yield url, process
    process.terminate()
    process.wait(10)


async def test_demo_serves_every_resource_as_the_demo_caller(demo_server: tuple[str, subprocess.Popen[str]]) -> None:
    url, _ = demo_server
    async with Client(url, mode="legacy") as client:
        uris = [r.uri for r in (await client.list_resources()).resources]
        for uri in uris:
            json.loads((await client.read_resource(uri)).contents[0].text)
        status = json.loads((await client.read_resource("auth://status")).contents[0].text)
        config = json.loads((await client.read_resource("config://server")).contents[0].text)
        tool = await client.call_tool("get_resource", {"uri": "auth://status"})
        instructions = client.instructions or ""
        databases = await client.complete(PromptReference(name="explore_database"), {"name": "database", "value": ""})
    assert instructions.splitlines()[-1] == DEMO_DATA, "the agent is told what the demo's data is"
    assert databases.completion.values == sorted(DATABASES)
    assert status["authenticated"] is True
    assert status["principal_arn"].endswith(":user/demo-analyst")
    assert config["deployment_mode"] == "demo"
    assert json.loads(tool.content[0].text)["principal_arn"] == status["principal_arn"]


async def test_every_aws_resource_tells_the_demo_story(demo_server: tuple[str, subprocess.Popen[str]]) -> None:
    """What a newcomer sees: partial access shown honestly, every level of bucket access, queries in every state."""
    url, _ = demo_server

    async def read(client: Client, uri: str) -> Any:
        return json.loads((await client.read_resource(uri)).contents[0].text)

    async with Client(url, mode="2026-07-28") as client:
        workgroups = await read(client, "athena://workgroups")
        history = await read(client, "athena://query/history?limit=100")
        succeeded = [e["execution_id"] for e in history["executions"] if e["state"] == "SUCCEEDED"]
        answered = [await read(client, f"athena://queries/{execution_id}") for execution_id in succeeded]
        databases = await read(client, "athena://databases")
        orders = await read(client, "athena://databases/sales/tables/orders")
        discover = await read(client, "permissions://discover")
        advice = await read(client, "permissions://recommendations")
        buckets = await read(client, "tabulator://buckets")
        users, roles = await read(client, "admin://users"), await read(client, "admin://roles")
        sso, catalog = await read(client, "admin://config/sso"), await read(client, "auth://catalog/info")
        tabulator = await read(client, "admin://config/tabulator")
    assert [w["name"] for w in workgroups["workgroups"] if w["access"] == "denied"] == ["finance-restricted"]
    assert {"SUCCEEDED", "FAILED", "RUNNING"} <= {e["state"] for e in history["executions"]}
    assert any(a["results"] and a["results"]["rows"] for a in answered), "no query with readable results"
    assert {d["name"] for d in databases["databases"]} == DATABASES
    assert orders["partition_keys"] and orders["format"] == "parquet"
    assert {level for level, count in discover["levels"].items() if count} == {"none", "list", "read", "write"}
    assert {r["missing_action"] for r in advice["recommendations"]} >= {"athena:GetWorkGroup"}
    unreadable_table = [r for r in advice["recommendations"] if "marketing.shop_access_logs" in r["finding"]]
    assert [(r["severity"], r["missing_action"], r["resource_arn"]) for r in unreadable_table] \
        == [("high", "s3:GetObject", "arn:aws:s3:::acme-logs-archive/*")]
    assert buckets["buckets"] and users["count"] == 5 and roles["count"] == 6
    assert sso["identity_center_instances"] and sso["saml_providers"] and sso["oidc_providers"]
    assert catalog["query_workgroup"]["result_location"].startswith("s3://")
    assert tabulator["workgroup"]["name"] == "analytics" and tabulator["workgroup"]["result_location"].startswith("s3://")
    assert set(tabulator["databases_in_scope"]) == DATABASES
    assert tabulator["open_query_enabled"] is True and tabulator["query_workgroups"][0] == "analytics"


# Stops the demo server: keep it after the tests that read through it.
async def test_demo_banner_prints_the_url_and_client_configurations(
    demo_server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, process = demo_server
    process.terminate()
    _, stderr = process.communicate(timeout=10)
    assert url in stderr
    for client in ("Claude Desktop", "Claude Code", "Kiro", "Cursor"):
        assert client in stderr
    assert "aws_secret_access_key" not in stderr.lower()


async def test_stdio_demo_answers_as_the_demo_caller_and_says_once_on_stderr_that_it_is_ready(
        tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp_demo", "stdio"], env=env)
    with (tmp_path / "stderr").open("w+") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:  # stdout: the protocol
            status = json.loads((await client.read_resource("auth://status")).contents[0].text)
            instructions = client.instructions or ""
        errlog.seek(0)
        said = errlog.read()
    assert status["authenticated"] is True
    assert status["account"]
    assert instructions.splitlines()[-1] == DEMO_DATA
    assert [line for line in said.splitlines() if "ready" in line] == [STDIO_DEMO_READY], said

