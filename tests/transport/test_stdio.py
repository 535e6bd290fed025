"""stdio: a desktop client launches the server as a process and talks over stdin/stdout."""

from __future__ import annotations

import json
import os
import sys

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_stdio_serves_resources_and_get_resource() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp", "stdio"],
                                   env={**os.environ, "AWS_ENDPOINT_URL": "http://127.0.0.1:9"})
    async with Client(params, mode="legacy") as client:
        uris = [r.uri for r in (await client.list_resources()).resources]
        config = json.loads((await client.read_resource("config://server")).contents[0].text)
        tool = await client.call_tool("get_resource", {"uri": "metadata://templates/dataset"})
    assert "auth://status" in uris
    assert config["deployment_mode"] == "local"
    assert json.loads(tool.content[0].text)["name"] == "dataset"
