"""What the views' browser tests need on this machine: Node with views/node_modules, and Debian's Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.events import ROOT
from support.servers import ServerThread, free_port

SOURCES = ROOT / "views"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def missing() -> str | None:
    """Why the browser tests cannot run here, in one line, or None."""
    if shutil.which("node") is None or not (SOURCES / "node_modules" / "esbuild").is_dir():
        return "browser tests skipped: no Node or views/node_modules (run `make views-install`)"
    if not Path(CHROMIUM).exists():
        return "browser tests skipped: Chromium not found (apt-get install chromium)"
    return None


def node(*arguments: str, timeout: float = 120) -> str:
    """Runs a views/ script with Node; its stdout, asserting it succeeded (its stderr says what the browser saw)."""
    done = subprocess.run(["node", *arguments], cwd=SOURCES, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


@contextmanager
def demo_server(demo: DemoAccount, built: Path) -> Iterator[str]:
    """Builds the views and both test hosts into `built`, and serves the demo as its analyst: the server's MCP URL."""
    node("build.mjs", "--out", str(built), "--host")
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in demo.caller_environment().items():
            patch.setenv(name, value)
        with ServerThread(settings) as server:
            yield server.url
