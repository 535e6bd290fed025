"""The Makefile as a newcomer uses it: what `make demo` runs, and what its first run says it is doing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.events import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def dry_run(*arguments: str) -> list[str]:
    """The commands `make -n` would run from the repository root, as a newcomer's own shell runs it.

    Under `make test` the outer make's variables (MAKEFLAGS, MAKELEVEL) would make this one a sub-make, which
    prints "Entering/Leaving directory" lines around the commands.
    """
    environment = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    return subprocess.run(["make", "-n", *arguments], cwd=ROOT, capture_output=True, text=True, check=True,
                          env=environment).stdout.splitlines()


@pytest.mark.parametrize(("target", "command"), [("demo", "aws_data_mcp_demo"),
                                                 ("demo-iam", "aws_data_mcp_demo --auth iam"),
                                                 ("demo-oidc", "aws_data_mcp_demo --auth oidc"),
                                                 ("serve", "aws_data_mcp serve")])
def test_port_picks_the_port_of_every_target_that_serves(target: str, command: str) -> None:
    assert dry_run(target, "PORT=8123")[-1].split() == [".venv/bin/python", "-m", *command.split(), "--port", "8123"]
    assert dry_run(target)[-1].split() == [".venv/bin/python", "-m", *command.split()]


def test_the_first_install_says_what_it_installs_and_that_it_happens_once(tmp_path: Path) -> None:
    said = " ".join(line for line in dry_run("install", f"VENV={tmp_path / 'venv'}") if line.startswith("echo"))
    assert "MCP SDK" in said and "once" in said and str(tmp_path / "venv") in said
