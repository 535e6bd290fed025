"""Workflows in an embedded SQLite file (local serve and stdio): WAL mode, created on first use.

A connection per operation: SQLite connections are not shared between threads. Opening one is cheap
next to the write it guards. Every replace is a conditional UPDATE on the version it read. So two
processes sharing the file never lose a write. Waiting for another writer's lock ends at the
request's deadline (`aws.deadline_scope`), as a DynamoDB call does.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aws_data_mcp.aws import seconds_to_aws_deadline
from aws_data_mcp.private_files import open_private
from aws_data_mcp.workflows.model import Workflow
from aws_data_mcp.workflows.store import Written

_SCHEMA = """CREATE TABLE IF NOT EXISTS workflows (
    owner TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, updated_at TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (owner, id))"""
BUSY_TIMEOUT_SECONDS = 30
"""How long to wait for another writer outside a request (tests, other processes); a request waits no
longer than its deadline."""


def _busy_timeout() -> float:
    left = seconds_to_aws_deadline()
    if left is not None and left <= 0:
        raise TimeoutError("the request's deadline passed before the workflow store was reached")
    return BUSY_TIMEOUT_SECONDS if left is None else min(left, BUSY_TIMEOUT_SECONDS)


class SqliteStore:
    def __init__(self, path: str) -> None:
        self.location = path
        self._ready = False
        self._lock = threading.Lock()

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if not self._ready:
                # Owner-only before SQLite opens it: SQLite gives its -wal and -shm files the database's mode.
                os.close(open_private(Path(self.location)))
                with sqlite3.connect(self.location, timeout=_busy_timeout()) as setup:
                    setup.execute("PRAGMA journal_mode=WAL")
                    setup.execute(_SCHEMA)
                self._ready = True
        connection = sqlite3.connect(self.location, timeout=_busy_timeout())
        try:
            with connection:  # one transaction: committed on success, rolled back on error
                yield connection
        finally:
            connection.close()

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        with self._connection() as db:
            row = db.execute("SELECT body FROM workflows WHERE owner = ? AND id = ?", (owner, workflow_id)).fetchone()
        return Workflow.from_json(row[0]) if row else None

    def list(self, owner: str) -> list[Workflow]:
        with self._connection() as db:
            rows = db.execute("SELECT body FROM workflows WHERE owner = ? ORDER BY updated_at DESC", (owner,))
            return [Workflow.from_json(body) for (body,) in rows.fetchall()]

    def create(self, workflow: Workflow) -> Written:
        with self._connection() as db:
            db.execute("INSERT INTO workflows (owner, id, version, updated_at, body) VALUES (?, ?, ?, ?, ?)",
                       (workflow.owner, workflow.id, workflow.version, workflow.updated_at, workflow.to_json()))
        return Written(workflow)

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        """One transaction: the conditional UPDATE, and when another writer got there first, the row as it is.
        A local file has no lost answers: an error here is a rolled-back transaction, nothing written."""
        with self._connection() as db:
            changed = db.execute(
                "UPDATE workflows SET version = ?, updated_at = ?, body = ? WHERE owner = ? AND id = ? AND version = ?",
                (workflow.version, workflow.updated_at, workflow.to_json(), workflow.owner, workflow.id,
                 expected_version)).rowcount
            if changed == 1:
                return Written(workflow)
            row = db.execute("SELECT body FROM workflows WHERE owner = ? AND id = ?",
                             (workflow.owner, workflow.id)).fetchone()
        return Written(Workflow.from_json(row[0]) if row else None)

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        with self._connection() as db:
            row = db.execute("DELETE FROM workflows WHERE owner = ? AND id = ? RETURNING body",
                             (owner, workflow_id)).fetchone()
        return Workflow.from_json(row[0]) if row else None
