"""First paint of 1,000 rows by the query results view in headless Chromium (views/test/bench.mjs), against the demo
in a process of its own, beside the same host painting a plain HTML table of the same rows (no view code) in the
same sandboxed frame, in alternating rounds. Needs Node and npm with views/node_modules (`make views-install`) and
Chromium (Debian's `chromium`); without them, `missing` says which."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import harness

SOURCES = harness.ROOT / "views"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
NODE_TIMEOUT_SECONDS = 300


def missing() -> str | None:
    """Why the measurement cannot be made here, in a few words, or None."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "no Node or npm (install Node 20+, then `make views-install`)"
    if not (SOURCES / "node_modules" / "playwright-core").is_dir():
        return "no views/node_modules (`make views-install`)"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def _node(*arguments: str) -> str:
    done = subprocess.run(["node", *arguments], cwd=SOURCES, capture_output=True, text=True,
                          timeout=NODE_TIMEOUT_SECONDS)
    if done.returncode != 0:
        raise RuntimeError(f"node {arguments[0]} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


def measure(rounds: int) -> dict[str, Any]:
    """Per round: ms from the host handing the result over to the view's first contentful paint, from the view's
    frame being created to it, and from the plain table's frame being created to its own."""
    with tempfile.TemporaryDirectory() as built:
        _node("build.mjs", "--out", built, "--host")  # the host page; the views are served from the package
    env = harness.child_environment()
    env.pop("AWS_DATA_MCP_MODE")  # `demo` sets its own mode
    server, port = harness.start_server([sys.executable, "-m", "aws_data_mcp_demo", "--port"], "the demo", env)
    try:
        figures: dict[str, Any] = json.loads(_node("test/bench.mjs", f"http://127.0.0.1:{port}/mcp", str(rounds)))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return figures
