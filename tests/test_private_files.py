"""Private state is never written through a symbolic link: one planted where the local server's token or the
workflow store goes, or as the state folder, is refused with the path named, and what it points at stays as it was
(unread, untruncated, its mode unchanged). A folder the user chose for the store may still be a link."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.workflows.service import Workflows
from aws_data_mcp.workflows.sqlite_store import SqliteStore
from support.logs import RecordKeeper
from support.servers import free_port

KEPT = "someone else's file\n"


def elsewhere(tmp_path: Path) -> Path:
    """A file a link points at, readable by all (as a victim's, or an attacker's own, would be)."""
    target = tmp_path / "elsewhere" / "target"
    target.parent.mkdir()
    target.write_text(KEPT)
    target.chmod(0o644)
    return target


def untouched(target: Path) -> bool:
    return target.read_text() == KEPT and stat.S_IMODE(target.stat().st_mode) == 0o644


def serve(state: Path, port: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "XDG_STATE"))}
    return subprocess.run([sys.executable, "-m", "aws_data_mcp", "serve", "--port", str(port)],
                          env={**env, "XDG_STATE_HOME": str(state)}, capture_output=True, text=True, timeout=60)


def test_serve_refuses_a_link_where_its_token_file_goes(tmp_path: Path) -> None:
    target, port = elsewhere(tmp_path), free_port()
    link = tmp_path / "state" / "aws-data-mcp" / f"serve-{port}.token"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)

    result = serve(tmp_path / "state", port)

    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"aws-data-mcp: error: {link} is a symbolic link: private state "
                                                  "is never written through one (remove the link, or point the "
                                                  "setting at the real path)"]
    assert untouched(target) and link.is_symlink()


def test_serve_refuses_a_state_folder_that_is_a_link(tmp_path: Path) -> None:
    target = elsewhere(tmp_path)
    folder = tmp_path / "state" / "aws-data-mcp"
    folder.parent.mkdir()
    folder.symlink_to(target.parent)

    result = serve(tmp_path / "state", free_port())

    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"aws-data-mcp: error: {folder} is a symbolic link" in result.stderr
    assert [path.name for path in target.parent.iterdir()] == ["target"] and untouched(target)


def test_the_store_refuses_a_link_where_its_file_goes(tmp_path: Path, log_records: RecordKeeper) -> None:
    target = elsewhere(tmp_path)
    link = tmp_path / "workflows.sqlite3"
    link.symlink_to(target)

    with pytest.raises(ResourceFailure) as refused:
        Workflows(SqliteStore(str(link)), "owner-a").create("Plan")

    assert refused.value.code.value == "internal" and not refused.value.retryable
    logged = [record.getMessage() for record in log_records.at_least(logging.WARNING)]
    assert any(f"{link} is a symbolic link" in line for line in logged), logged
    assert untouched(target) and link.is_symlink()


def test_the_default_store_refuses_a_state_folder_that_is_a_link(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = elsewhere(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "aws-data-mcp").symlink_to(target.parent)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    with pytest.raises(ResourceFailure) as refused:
        Workflows(SqliteStore(Settings().workflow_db_path), "owner-a").create("Plan")

    assert refused.value.code.value == "internal"
    assert [path.name for path in target.parent.iterdir()] == ["target"]


def test_a_folder_the_user_chose_may_be_a_link(tmp_path: Path) -> None:
    """AWS_DATA_MCP_WORKFLOW_DB names any path: a folder of the user's own through a link (another disk) works."""
    real = tmp_path / "disk"
    real.mkdir()
    (tmp_path / "linked").symlink_to(real)

    Workflows(SqliteStore(str(tmp_path / "linked" / "workflows.sqlite3")), "owner-a").create("Plan")

    assert stat.S_IMODE((real / "workflows.sqlite3").stat().st_mode) == 0o600
