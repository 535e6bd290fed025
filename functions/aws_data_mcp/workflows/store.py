"""The one interface both stores implement; `service.py` holds every rule above it.

A write answers what the store holds after it, not a yes or no. A write whose answer was lost may
have landed. Only the item's recorded write tokens (`Workflow.writes`) tell the writer whether it
did.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from aws_data_mcp.workflows.model import Workflow


class Written(NamedTuple):
    """What a conditional write found."""

    stored: Workflow | None
    """The workflow under the key afterwards: the written one itself when this attempt landed, else the one there
    (None: none)."""
    answer_lost: bool = False
    """True when the store did not hear this write's own answer (botocore sent it again, or the item was read back
    after a lost answer): only the tokens in `stored` can tell whether it landed. False: it landed, or its
    condition refused it."""


class Unsettled(Exception):
    """A write that may have landed, whose outcome the store could not learn: its answer was lost (a timeout, a
    dropped connection, a 5xx after sending) and the item could not be read back in time."""

    def __init__(self, workflow: Workflow, expected_version: int) -> None:
        super().__init__(f"the write of workflow version {expected_version + 1} may have landed")
        self.workflow = workflow
        self.expected_version = expected_version


class WorkflowStore(Protocol):
    """Workflows by (owner, id). `replace` writes only if the stored version is still `expected_version`."""

    location: str
    """Where the data is (a table name or a file path): shown in config://server."""

    def get(self, owner: str, workflow_id: str) -> Workflow | None: ...

    def list(self, owner: str) -> list[Workflow]: ...

    def create(self, workflow: Workflow) -> Written:
        """Write `workflow` unless its key is taken. Answers what is stored under its key afterwards: `workflow`
        when this attempt wrote it, else the item found there (an earlier attempt of the same write, whose answer
        was lost, shows by its token), or None when there is none; raises `Unsettled` when it cannot tell."""
        ...

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        """Write `workflow` if the stored version is still `expected_version`. Answers `workflow` when this attempt
        wrote it; else the workflow as stored (the item a failed condition returns, or read back after a lost
        answer), whose tokens say whether an earlier attempt of the caller's landed; None when it is gone. Raises
        `Unsettled` when a write may have landed and the item could not be read."""
        ...

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        """The workflow as it was when deleted (read and removed in one step), or None if there was none."""
        ...
