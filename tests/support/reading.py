"""What the resource tests share: one URI read through every path a client can take, one read through a fresh
reader (timed against its calls made one after another), and a clean moto."""

from __future__ import annotations

import difflib
import json
import os
import urllib.request
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import Caller, local_chain, resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from support.events import REVISION_2026, body_json, http_api_event, modern, rpc
from support.faults import AwsFaults
from support.servers import ServerThread, free_port


def iam_users(iam: Any, users: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, str]]:
    """Each user created with its statements as its one inline policy; its access key, as boto3 takes it."""
    keys = {}
    for user, statements in users.items():
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="access", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": statements}))
        created = iam.create_access_key(UserName=user)["AccessKey"]
        keys[user] = {"aws_access_key_id": created["AccessKeyId"], "aws_secret_access_key": created["SecretAccessKey"]}
    return keys


async def read_as(keys: dict[str, str], monkeypatch: Any, uri: str, workgroup: str) -> Any:
    """`uri` read over MCP by a server whose caller is `keys`' (iam_users') and whose query workgroup is
    `workgroup`; parsed."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", keys["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", keys["aws_secret_access_key"])
    local_chain.reset()
    settings = Settings(mode="local", port=free_port(), query_workgroups=(workgroup,), cache_ttl_seconds=0)
    with ServerThread(settings) as server:
        async with Client(server.url, mode="2026-07-28") as client:
            return json.loads((await client.read_resource(uri)).contents[0].text)


def reset_moto() -> None:
    """Empty the suite's moto server, so a module seeds exactly the account it describes."""
    request = urllib.request.Request(f"{os.environ['AWS_ENDPOINT_URL']}/moto-api/reset", method="POST")
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request).close()


async def read_everywhere(server_url: str, handler: Callable[[dict[str, Any]], dict[str, Any]], uri: str) -> Any:
    """Read `uri` as a client would, every way: the SDK client over HTTP on both protocol revisions,
    `get_resource`, and API Gateway events through the Lambda path on both revisions.

    Every path must return the same text (the per-caller cache keeps the data still between them);
    returns it parsed.
    """
    texts: list[str] = []
    for mode in ("legacy", "2026-07-28"):
        async with Client(server_url, mode=mode) as client:
            texts.append((await client.read_resource(uri)).contents[0].text)
            tool = await client.call_tool("get_resource", {"uri": uri})
            assert not tool.is_error, tool.content[0].text
            texts.append(tool.content[0].text)
    legacy = body_json(handler(http_api_event(rpc("resources/read", {"uri": uri}))))
    texts.append(legacy["result"]["contents"][0]["text"])
    current = body_json(handler(http_api_event(modern("resources/read", {"uri": uri}), revision=REVISION_2026)))
    texts.append(current["result"]["contents"][0]["text"])
    assert len(set(texts)) == 1, f"{uri}: the paths disagree:\n{disagreement(texts)}"
    return json.loads(texts[0])




def disagreement(texts: list[str]) -> str:
    """Where the first two different answers part, line by line."""
    first, other = (json.dumps(json.loads(text), indent=1).splitlines() for text in list(dict.fromkeys(texts))[:2])
    return "\n".join(list(difflib.unified_diff(first, other, lineterm="", n=2))[:40])


def direct_read(uri: str, settings: Settings | None = None, caller: Callable[[], Caller] | None = None) -> Any:
    """One read through a fresh reader (nothing cached by another test), as the local caller unless `caller`."""
    settings = settings or Settings(mode="local")
    reader = ResourceReader(registry, settings)
    reading = anyio.run(reader.read, uri, caller or (lambda: resolve_caller(None, settings)))
    return json.loads(reading.text)


def parallel_read(uri: str, aws_faults: AwsFaults, meetings: dict[str, int], settings: Settings | None = None) -> Any:
    """One read whose calls of each operation in `meetings` ("athena.GetWorkGroup", or a bare service) must be
    that many in flight together (held until they meet, see `AwsFaults.overlap`), its clients and caller already
    warm. Returns the read's answer."""
    direct_read(uri, settings)  # builds the clients and resolves the caller
    aws_faults.calls.clear()
    met = {operation: aws_faults.overlap(operation, at_once=at_once) for operation, at_once in meetings.items()}
    answer = direct_read(uri, settings)
    assert {operation: meeting.peak >= meeting.at_once for operation, meeting in met.items()} == \
        dict.fromkeys(meetings, True), (uri, {operation: meeting.peak for operation, meeting in met.items()})
    return answer
