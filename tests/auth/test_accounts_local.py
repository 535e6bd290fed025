"""Several accounts through the local paths: HTTP (both revisions, resources, get_resource and tools) and stdio.

Locally the caller is your own credential chain: a listed account is reached through its profile, or by your
credentials assuming ACCOUNT_ROLE there (here the suite's moto user, carried into each account's Seeder role).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from aws_data_mcp.config import Settings
from support.servers import ServerThread, free_port

from .hosted_support import ACCOUNT
from .test_accounts import ACCOUNTS, DATABASES, LAKE, estate_fixture

__all__ = ["estate_fixture"]
MODES = ("legacy", "2026-07-28")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module", name="server")
def server_fixture(estate: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    store = tmp_path_factory.mktemp("workflows") / "workflows.sqlite3"
    settings = Settings(mode="local", port=free_port(), accounts=ACCOUNTS, account_role="Seeder",
                        workflow_db=str(store))
    with ServerThread(settings) as server:
        yield server


def _text(result: Any) -> Any:
    return json.loads(result.content[0].text)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_local_http_reads_each_account(server: ServerThread, mode: str) -> None:
    async with Client(server.url, mode=mode) as client:
        for name, account in ACCOUNTS:
            read = json.loads((await client.read_resource(f"athena://databases?account={name}")).contents[0].text)
            assert {d["name"] for d in read["databases"]} >= {DATABASES[account]}
            assert not {d["name"] for d in read["databases"]} & (set(DATABASES.values()) - {DATABASES[account]})
            tool = _text(await client.call_tool("get_resource", {"uri": "auth://status", "account": name}))
            assert tool["account"] == account and tool["from_account"]["name"] == name
        every = json.loads((await client.read_resource("athena://databases?account=*")).contents[0].text)
        assert {(d["account"], d["name"]) for d in every["databases"]} >= \
            {("home", "home_sales"), ("lake", "lake_events"), ("sandbox", "sandbox_scratch")}
        refused = await client.call_tool("get_resource", {"uri": "auth://status", "account": "arn:aws:iam::1:role/x"})
        assert refused.is_error and _text(refused)["error"] == "invalid_argument"


@pytest.mark.anyio
async def test_tools_take_an_account_and_workflows_stay_in_theirs(server: ServerThread) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert all("account" in tool.input_schema["properties"] for tool in tools.values())
        made = await client.call_tool("workflow_create", {"name": "lake audit", "account": "lake"})
        assert not made.is_error, made.content[0].text
        lake = json.loads((await client.read_resource("workflow://workflows?account=lake")).contents[0].text)
        home = json.loads((await client.read_resource("workflow://workflows")).contents[0].text)
        assert [w["name"] for w in lake["workflows"]] == ["lake audit"]
        assert "lake audit" not in [w["name"] for w in home["workflows"]]
        unlisted = await client.call_tool("workflow_create", {"name": "x", "account": "prod"})
        assert unlisted.is_error and _text(unlisted)["error"] == "invalid_argument"
        completion = await client.complete(
            {"type": "ref/resource", "uri": "athena://databases/{database}/tables"}, {"name": "account", "value": ""})
        assert completion.completion.values == ["home", "lake", "sandbox", "*"]


@pytest.mark.anyio
async def test_stdio_reads_a_listed_account(estate: None, tmp_path: Path) -> None:
    env = {**os.environ, "AWS_DATA_MCP_ACCOUNTS": json.dumps(dict(ACCOUNTS)), "AWS_DATA_MCP_ACCOUNT_ROLE": "Seeder",
           "XDG_STATE_HOME": str(tmp_path)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp", "stdio"], env=env)
    async with Client(params, mode="legacy") as client:
        status = json.loads((await client.read_resource("auth://status?account=lake")).contents[0].text)
        config = json.loads((await client.read_resource("config://server")).contents[0].text)
    assert status["principal_arn"].startswith(f"arn:aws:sts::{LAKE}:assumed-role/Seeder/")
    assert [a["name"] for a in config["accounts"]["listed"]] == ["home", "lake", "sandbox"]
    assert ACCOUNT in {a["id"] for a in config["accounts"]["listed"]}
