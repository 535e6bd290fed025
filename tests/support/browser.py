"""What the views' browser tests need on this machine: Node with views/node_modules, and Debian's Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from support.events import ROOT

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
