"""A workflow and its steps, with the overall status derived from the steps."""

from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, get_args

StepStatus = Literal["pending", "in_progress", "completed", "failed", "skipped"]
STEP_STATUSES: tuple[str, ...] = get_args(StepStatus)
FINISHED = frozenset({"completed", "failed", "skipped"})
RECENT_WRITES = 32
"""Writes a workflow remembers the token of: enough to cover every write that can land between one of ours and
our look at the item (botocore's retry after a read timeout, or a read right after a lost answer: seconds, at
the few updates a second one item takes under contention)."""
TOKEN_CHARS = 8
UNKNOWN_WRITE = "." * TOKEN_CHARS
"""A slot of `Workflow.writes` with no token: a version older than the workflow, or written before tokens."""


def now() -> str:
    """Always with microseconds: every timestamp is as long as every other, so a workflow's stored size does not
    depend on the instant it was written."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass
class Step:
    id: str
    title: str
    status: StepStatus = "pending"
    note: str | None = None
    result: str | None = None
    """A reference to what the step produced, e.g. a resource URI or an S3 location."""
    updated_at: str = field(default_factory=now)


@dataclass
class Workflow:
    id: str
    owner: str
    """The caller's identity digest: who may read and change it. Never shown."""
    name: str
    description: str = ""
    steps: list[Step] = field(default_factory=list)
    version: int = 1
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    steps_issued: int = 0
    """How many step ids were ever issued: a removed step's id is never given to another step, so a note or
    an agent still holding it cannot silently point at the wrong one."""
    writes: str = ""
    """Which write made each of the latest versions: RECENT_WRITES tokens of TOKEN_CHARS, newest first (the i-th
    made version `version - i`). A writer whose answer was lost finds out from it whether its write landed. Always
    the same length (`UNKNOWN_WRITE` fills it), so it adds the same bytes to every stored workflow; never shown."""

    @classmethod
    def new(cls, owner: str, name: str, description: str, step_titles: list[str]) -> Workflow:
        workflow = cls(id=str(uuid.uuid4()), owner=owner, name=name, description=description)
        workflow.steps = [workflow.new_step(title) for title in step_titles]
        return workflow

    @property
    def status(self) -> str:
        """pending until something happens; failed if a step failed; completed when every step is done."""
        states = {step.status for step in self.steps}
        if not states or states == {"pending"}:
            return "pending"
        if "failed" in states:
            return "failed"
        if states <= FINISHED:
            return "completed"
        return "in_progress"

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")

    def step(self, step_id: str) -> Step | None:
        return next((step for step in self.steps if step.id == step_id), None)

    def written_by(self, version: int) -> str | None:
        """The token of the write that made `version`, while this workflow still records it."""
        index = self.version - version
        if not 0 <= index < len(self.writes) // TOKEN_CHARS:
            return None
        token = self.writes[index * TOKEN_CHARS:(index + 1) * TOKEN_CHARS]
        return None if token == UNKNOWN_WRITE else token

    def stamp(self, token: str, previous: Workflow | None = None) -> None:
        """Record `token` as the write that makes this version, after `previous`'s record (the version it follows)."""
        before = previous.writes if previous is not None and previous.writes else ""
        self.writes = (token + before).ljust(RECENT_WRITES * TOKEN_CHARS, ".")[:RECENT_WRITES * TOKEN_CHARS]

    def add_named_step(self, step_id: str, title: str, index: int) -> None:
        """A step whose id the caller chose (so that re-sending its addition finds it there). An id of the issued
        kind counts as issued, so the server never gives it to another step later."""
        if step_id[:1] == "s" and step_id[1:].isdigit():
            self.steps_issued = max(self.steps_issued, int(step_id[1:]))
        self.steps.insert(index, Step(id=step_id, title=title))

    def new_step(self, title: str) -> Step:
        """A pending step with an id never used in this workflow (not yet placed in `steps`)."""
        numbers = [int(step.id[1:]) for step in self.steps if step.id[1:].isdigit()]
        self.steps_issued = max([self.steps_issued, *numbers]) + 1  # stored before the count: its highest id
        return Step(id=f"s{self.steps_issued}", title=title)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Workflow:
        data: dict[str, Any] = json.loads(text)
        data["steps"] = [Step(**step) for step in data.get("steps", [])]
        return cls(**data)

    def view(self) -> dict[str, Any]:
        """What callers see: the owner digest and id bookkeeping left out, status and step counts derived."""
        counts = {status: sum(step.status == status for step in self.steps) for status in STEP_STATUSES}
        return {"id": self.id, "name": self.name, "description": self.description, "status": self.status,
                "version": self.version, "created_at": self.created_at, "updated_at": self.updated_at,
                "step_counts": counts, "steps": [asdict(step) for step in self.steps],
                "status_uri": status_uri(self.id)}

    def summary(self) -> dict[str, Any]:
        full = self.view()
        return {key: full[key] for key in ("id", "name", "status", "version", "updated_at", "step_counts",
                                            "status_uri")}


def new_token() -> str:
    """A write's own token: 48 random bits, unique among the writes one workflow remembers."""
    return secrets.token_urlsafe(TOKEN_CHARS * 3 // 4)


def status_uri(workflow_id: str) -> str:
    return f"workflow://workflows/{workflow_id}/status"
