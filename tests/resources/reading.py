"""What the resource tests share: one URI read through every path a client can take, one read through a fresh
reader (timed against its calls made one after another), and a clean moto."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import Caller, resolve_caller
from aws_data_mcp.reader import ResourceReader
from aws_data_mcp.resources import registry
from support.events import REVISION_2026, body_json, http_api_event, modern, rpc
from support.faults import AwsFaults


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
    assert len(set(texts)) == 1, f"{uri}: the paths disagree"
    return json.loads(texts[0])




def direct_read(uri: str, settings: Settings | None = None, caller: Callable[[], Caller] | None = None) -> Any:
    """One read through a fresh reader (nothing cached by another test), as the local caller unless `caller`."""
    settings = settings or Settings(mode="local")
    reader = ResourceReader(registry, settings)
    reading = anyio.run(reader.read, uri, caller or (lambda: resolve_caller(None, settings)))
    return json.loads(reading.text)


def timed_read(uri: str, aws_faults: AwsFaults, delay: float, service: str = "athena",
               settings: Settings | None = None) -> float:
    """Seconds one read takes with `delay` added to every call of `service` ("glue", or one operation such as
    "iam.GetAccessKeyLastUsed"), its clients and caller already warm; asserts it is well under the same calls
    made one after another."""
    aws_faults.delay(service, delay)
    direct_read(uri, settings)  # builds the clients and resolves the caller
    aws_faults.calls.clear()
    started = time.monotonic()
    direct_read(uri, settings)
    elapsed = time.monotonic() - started
    sequential = aws_faults.total(service) * delay
    assert elapsed < sequential / 2, (uri, elapsed, dict(aws_faults.calls))
    return elapsed
