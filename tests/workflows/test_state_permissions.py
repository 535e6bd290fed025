"""The local workflow store is its owner's alone: the state folder 0700, the database and SQLite's -wal and -shm
files 0600, whatever the umask (under 022 they were 0755 and 0644: every local user could read the plans)."""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from aws_data_mcp.workflows.service import Workflows
from aws_data_mcp.workflows.sqlite_store import SqliteStore


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(params=[0o022, 0o002, 0o000], ids=["umask-022", "umask-002", "umask-000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """This process's umask, which the servers it starts inherit."""
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


@pytest.mark.anyio
async def test_stdio_creates_the_state_folder_and_store_for_its_owner_only(umask: int, tmp_path: Path) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp", "stdio"],
                                   env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    async with Client(server, mode="legacy") as client:
        created = await client.call_tool("workflow_create", {"name": "Quarterly plan", "steps": ["find"]})
    assert not created.is_error, created
    state = tmp_path / "aws-data-mcp"
    database = state / "workflows.sqlite3"
    with sqlite3.connect(database) as reader:  # a reader opens the -wal and -shm files SQLite keeps beside it
        reader.execute("SELECT count(*) FROM workflows").fetchone()
        assert (mode(state), mode(database)) == (0o700, 0o600)
        for companion in ("workflows.sqlite3-wal", "workflows.sqlite3-shm"):
            assert mode(state / companion) == 0o600, companion


def test_an_older_store_readable_by_others_is_made_owner_only(umask: int, tmp_path: Path) -> None:
    database = tmp_path / "workflows.sqlite3"
    sqlite3.connect(database).close()
    database.chmod(0o644)
    Workflows(SqliteStore(str(database)), "owner-a").create("Plan")
    assert mode(database) == 0o600
