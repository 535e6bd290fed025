"""What the resource tests share: one URI read through every path a client can take, and a clean moto."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable
from typing import Any

from mcp import Client

from conftest import REVISION_2026, body_json, http_api_event, modern, rpc


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


