"""The local HTTP path as a user's client feels it: run by `worker.py http` in a fresh process.

`aws-data-mcp serve` (with its token) and a bare SDK app on uvicorn each run in a process of their own
(`harness.start_server`). The SDK's own client reads
`config://server` from each, over streamable HTTP, one kept-alive connection per client and revision, in
alternating blocks (`harness.interleave`). The bare app serves the very text `serve` returns, with sessions for
clients that initialize and JSON responses, as `serve` answers: what is left between the two is our own
layers and how our server is set up (socket, uvicorn limits) - a response held back by the transport shows
here, not in the Lambda handler timed in-process.

The clients stay open in one task on the loop `asyncio.Runner` keeps, so each timed read is one
`runner.run`, the same small cost on both sides (`baseline.HeldManager` holds a session manager alike).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack, ExitStack
from typing import Any

import baseline
import harness
from harness import REVISION_2025, REVISION_2026

TOKEN = "benchmark-token-" + "k" * 32
MODES = {REVISION_2025: "legacy", REVISION_2026: REVISION_2026}
"""The SDK client's `mode` for each revision: 2025-11-25 is the initialize handshake's."""


def start_serve(state: str, aws: Mapping[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """`python -m aws_data_mcp serve`, as its owner runs it: a token, and `aws` (endpoint, credentials, settings)
    for what reads AWS (none: the static resource needs no AWS)."""
    env = harness.child_environment() | {"AWS_DATA_MCP_MODE": "local", "AWS_DATA_MCP_TOKEN": TOKEN,
                                          "XDG_STATE_HOME": state} | dict(aws or {})
    return harness.start_server([sys.executable, "-m", "aws_data_mcp", "serve", "--port"], "aws-data-mcp serve", env)


def serve_bare(text: str, port: int) -> None:
    """The bare app the plain SDK way: uvicorn binds the port itself; default settings, but quiet logs."""
    import uvicorn

    app = baseline.bare_server(text).streamable_http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def sdk_client(stack: AsyncExitStack, url: str, revision: str, token: str | None) -> Any:
    """An SDK client on a connection of its own; no response cache, so every read reaches the server."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=30))
    client = Client(streamable_http_client(url, http_client=http), mode=MODES[revision], cache=None)
    return await stack.enter_async_context(client)


class HeldClients:
    """One SDK client per server and revision, open in a task on `runner`'s loop until `close`."""

    def __init__(self, runner: asyncio.Runner, urls: dict[str, tuple[str, str | None]]) -> None:
        self._runner = runner
        self._stop = asyncio.Event()
        self.clients: dict[str, Any] = {}
        started = asyncio.Event()
        self._task = runner.get_loop().create_task(self._hold(urls, started))
        runner.run(started.wait())
        if self._task.done():  # a client that could not connect: its error, not a hang
            self._task.result()

    async def _hold(self, urls: dict[str, tuple[str, str | None]], started: asyncio.Event) -> None:
        try:
            async with AsyncExitStack() as stack:
                for name, (url, token) in urls.items():
                    for revision in MODES:
                        self.clients[f"{name}/{revision}"] = await sdk_client(stack, url, revision, token)
                started.set()
                await self._stop.wait()
        finally:
            started.set()

    def read(self, variant: str) -> str:
        result = self._runner.run(self.clients[variant].read_resource(baseline.URI))
        return str(result.contents[0].text)

    def close(self) -> None:
        self._stop.set()
        self._runner.get_loop().run_until_complete(self._task)


def _reader(held: HeldClients, variant: str) -> Callable[[], object]:
    return lambda: held.read(variant)


def url_of(port: int) -> str:
    return f"http://127.0.0.1:{port}/mcp"


def measure(requests: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as state, asyncio.Runner() as runner, ExitStack() as servers:
        ours, ours_port = start_serve(state)
        servers.callback(ours.kill)
        first = HeldClients(runner, {"ours": (url_of(ours_port), TOKEN)})
        text = first.read(f"ours/{REVISION_2025}")
        first.close()
        bare, bare_port = harness.start_server([sys.executable, __file__, text], "the bare SDK app")
        servers.callback(bare.kill)
        held = HeldClients(runner, {"ours": (url_of(ours_port), TOKEN), "bare": (url_of(bare_port), None)})
        try:
            variants: dict[str, Callable[[], object]] = {}
            for variant in held.clients:
                if held.read(variant) != text:
                    raise AssertionError(f"{variant} does not serve the text `serve` serves")
                variants[variant] = _reader(held, variant)
            latencies = harness.interleave(variants, iterations=requests, block=50, warmup=50)
        finally:
            held.close()
    return {"latency_ms": harness.latencies_json(latencies)}


if __name__ == "__main__":
    serve_bare(sys.argv[1], int(sys.argv[2]))
