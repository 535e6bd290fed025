"""The one interface both stores implement; `service.py` holds every rule above it."""

from __future__ import annotations

from typing import Protocol

from aws_data_mcp.workflows.model import Workflow


class WorkflowStore(Protocol):
    """Workflows by (owner, id). `replace` writes only if the stored version is still `expected_version`."""

    location: str
    """Where the data is (a table name or a file path): shown in config://server."""

    def get(self, owner: str, workflow_id: str) -> Workflow | None: ...

    def list(self, owner: str) -> list[Workflow]: ...

    def create(self, workflow: Workflow) -> None: ...

    def replace(self, workflow: Workflow, expected_version: int) -> bool:
        """False when another writer got there first (the caller re-reads and retries)."""
        ...

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        """The workflow as it was when deleted (read and removed in one step), or None if there was none."""
        ...
