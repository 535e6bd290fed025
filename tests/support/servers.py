"""The servers under test as the suite runs them: the app served as `serve` serves it in a thread, the Lambda
handler invoked as a Lambda container invokes it, and the hosted demo in a process of its own."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.transport import local_server
from aws_data_mcp.transport.lambda_context import LocalLambdaContext

START_GUARD_SECONDS = 300.0
"""How long a server or process a test starts may take to be ready before the test fails: a guard against one that
never starts, not a budget (a start's time is make bench's). Waits end at readiness, long before this on an idle
machine; generous so that a machine with both cores loaded by other work still passes."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerThread:
    """The real app served as `serve` serves it (uvicorn with its limits, on a loopback port), in a thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server = local_server.server(create_http_app(settings))
        sock = local_server.bind("127.0.0.1", settings.port)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}/mcp"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + START_GUARD_SECONDS
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)


def in_container(handler: Callable[[Any, Any], dict[str, Any]]) -> Callable[[Any], dict[str, Any]]:
    """`handler` invoked as a Lambda container invokes it: always on one thread with one event loop of its own, so
    async tests may call it too and no test's loop (or lack of one) leaks into it."""
    container = ThreadPoolExecutor(max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop()))

    def invoke(event: Any) -> dict[str, Any]:
        return container.submit(handler, event, LocalLambdaContext()).result()

    return invoke


def lambda_container(settings: Settings) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Mangum around the app built for `settings`, in a container of its own."""
    from mangum import Mangum

    return in_container(Mangum(create_http_app(settings), lifespan="off"))


def start_demo(auth: str, state: Path, access_token_lifetime: int | None = None,
               environment: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str, str]:
    """`python -m aws_data_mcp_demo --auth <auth>` in a process of its own, its state under `state`: the process,
    its URL and its banner (the callers and how each connects), once it answers.

    With `access_token_lifetime`, the demo's own `serve` with signed-in users' tokens that short (the command has
    no option for it), so a test can see a client refresh one. `environment` adds to the process's environment.
    """
    port = free_port()
    log = state / f"demo-{auth}.log"
    env = ({k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {"XDG_STATE_HOME": str(state)}
           | (environment or {}))
    command = ["-m", "aws_data_mcp_demo", "--auth", auth, "--port", str(port)]
    if access_token_lifetime is not None:
        command = ["-c", "import pathlib; from aws_data_mcp_demo.front.hosted import serve; "
                   f"serve({auth!r}, '127.0.0.1', {port}, pathlib.Path({str(state)!r}), {access_token_lifetime})"]
    process = subprocess.Popen([sys.executable, *command], env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    deadline = time.monotonic() + START_GUARD_SECONDS
    while time.monotonic() < deadline:
        banner = log.read_text(errors="replace") if log.exists() else ""
        if "Press Ctrl+C" in banner:
            try:
                httpx2.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                return process, f"http://127.0.0.1:{port}/mcp", banner
            except httpx2.TransportError:
                pass
        if process.poll() is not None:
            raise RuntimeError(banner)
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("the hosted demo did not start")


def demo_query_server(query_wait_seconds: float) -> ServerThread:
    """A server in demo mode whose query tool uses the demo's workgroups, waiting at most `query_wait_seconds` for a
    query (use it as a context manager, over a running DemoAccount)."""
    from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS

    return ServerThread(Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS,
                                 query_wait_seconds=query_wait_seconds))
