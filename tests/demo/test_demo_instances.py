"""Two demos side by side (two real processes, two ports, one state folder): each writes its callers' profiles in
a folder of its own, so each banner's "check any answer" command reaches its own emulated account, not the other's
(nor a dead one's)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client

from support.servers import START_GUARD_SECONDS, free_port

pytestmark = pytest.mark.anyio
CHECK = "Check any answer as the demo caller against the same account: "


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _start(state: Path, name: str) -> tuple[subprocess.Popen[bytes], str, Path]:
    """`python -m aws_data_mcp_demo --port <free>` with `state` as its XDG_STATE_HOME: the process, its URL and
    its banner's log, once it answers."""
    port = free_port()
    log = state / f"{name}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {"XDG_STATE_HOME": str(state)}
    process = subprocess.Popen([sys.executable, "-m", "aws_data_mcp_demo", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + START_GUARD_SECONDS  # a guard against a demo that never starts
    while time.monotonic() < deadline:
        if CHECK in log.read_text(errors="replace"):
            try:
                httpx2.post(url, content=b"{}", timeout=1)
                return process, url, log
            except httpx2.TransportError:
                pass
        if process.poll() is not None:
            raise RuntimeError(log.read_text(errors="replace"))
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("the demo did not start")


@pytest.fixture
def two_demos(tmp_path: Path) -> Iterator[list[tuple[str, str]]]:
    """Two demos sharing one state folder: each one's URL and its banner's check command."""
    started = [_start(tmp_path, name) for name in ("first", "second")]
    try:
        yield [(url, next(line.split(CHECK, 1)[1] for line in log.read_text().splitlines() if CHECK in line))
               for _, url, log in started]
    finally:
        for process, _, _ in started:
            process.terminate()
            process.wait(10)


def _run(check: str, *aws: str) -> subprocess.CompletedProcess[str]:
    """The banner's command with its variables, its `aws --profile ...` replaced by `aws --profile ... <aws>`
    where given; run as a user runs it (AWS_* of the test's own shell left out)."""
    words = shlex.split(check)
    variables = dict(word.split("=", 1) for word in words if "=" in word and not word.startswith("-"))
    command = [word for word in words if word not in {f"{k}={v}" for k, v in variables.items()}]
    if aws:
        command = [*command[:command.index("--profile") + 2], *aws]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | variables
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(shutil.which("aws") is None, reason="the banner's check command is the AWS CLI's")
async def test_each_banner_check_command_reaches_its_own_demo(two_demos: list[tuple[str, str]]) -> None:
    (first_url, first_check), (second_url, second_check) = two_demos
    assert first_check != second_check  # each names its own profile folder
    ran = {}
    for url in (first_url, second_url):
        async with Client(url, mode="2026-07-28") as client:
            result = await client.call_tool("athena_query", {"sql": "SELECT 1", "database": "sales"})
            answer = json.loads(result.content[0].text)
            assert not result.is_error, answer
            ran[url] = answer["execution_id"]
    for url, check in two_demos:
        printed = _run(check)  # the command exactly as printed: it reaches a live emulated account
        assert printed.returncode == 0 and '"orders"' in printed.stdout, printed.stderr
        for other, execution_id in ran.items():
            found = _run(check, "athena", "get-query-execution", "--query-execution-id", execution_id)
            # its own demo's query is there; the other demo's is not (another emulator, another account)
            assert (found.returncode == 0) == (other == url), (url, other, found.stderr)
            if other == url:
                assert re.search(rf'"QueryExecutionId":\s*"{execution_id}"', found.stdout), found.stdout
