"""Workflow operations for one caller: ownership, limits, and versioned writes that never lose an update.

Plain functions over a `WorkflowStore`, called by the tools, the resources and the tests.
Another caller's workflow is `not_found`, exactly like one that never existed.
Each write carries a token, so an update whose answer was lost is applied once.
"""

from __future__ import annotations

import copy
import random
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from aws_data_mcp.aws import seconds_to_aws_deadline
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required
from aws_data_mcp.observability import logger
from aws_data_mcp.workflows.failures import GuardedStore, OutcomeUnknown
from aws_data_mcp.workflows.model import STEP_STATUSES, Step, Workflow, new_token, now
from aws_data_mcp.workflows.store import WorkflowStore

if TYPE_CHECKING:  # a Caller holds a boto3 session: importing boto3 here would slow the local server's start
    from aws_data_mcp.identity.caller import Caller

MAX_NAME = 200
MAX_DESCRIPTION = 2_000
MAX_NOTE = 2_000
MAX_RESULT = 1_000
MAX_STEPS = 100
MAX_WORKFLOW_BYTES = 350_000
"""A workflow as stored: its JSON in UTF-8 bytes, as DynamoDB counts an item (at most 400 KB, keys and attribute
names included; those add under 150 bytes, the rest is margin). Plain text at every other limit at once fits
(about 334,000 bytes); escaped and non-ASCII characters take 2 to 12 bytes each, so only they can reach it."""
MAX_WORKFLOWS = 500
MAX_WORKFLOW_ID = 100
"""Characters of a workflow id (a UUID, 36): at most 400 bytes in UTF-8, well inside DynamoDB's 1,024-byte key
limit, so a longer id is refused alike by both stores instead of reaching GetItem (a ValidationException there
reads as a misconfigured store)."""
CONFLICT_RETRIES = 40
"""Attempts of one update under contention, at most: the request's deadline usually ends them first."""
CONFLICT_BACKOFF_SECONDS = 0.005
"""The first backoff's ceiling; each later one's doubles (full jitter: a random wait up to it), to the cap."""
CONFLICT_BACKOFF_CAP_SECONDS = 0.25
WRITE_START_SECONDS = 2.0
"""No write is started with less than this much of the request's time left (nor with less than
`WRITE_START_SHARE` of what the update began with): the write, and reading back what it did should its answer be
lost, must fit, or the caller would be told the outcome is unknown where "retry" was still true."""
WRITE_START_SHARE = 0.5
STEP_ID_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
MAX_STEP_ID = 20


def _invalid(message: str, *details: str) -> ResourceFailure:
    return ResourceFailure(ErrorCode.INVALID_ARGUMENT, message, details=list(details))


def _text(value: object, field: str, limit: int, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise _invalid(f"{field} must be text")
    text = value.strip()
    if required and not text:
        raise _invalid(f"{field} must not be empty")
    if len(text) > limit:
        raise _invalid(f"{field} is {len(text)} characters; at most {limit}")
    return text


def _fits(workflow: Workflow) -> None:
    """The same bound for both stores, so SQLite never keeps a workflow DynamoDB would refuse."""
    size = len(workflow.to_json().encode())
    if size > MAX_WORKFLOW_BYTES:
        raise _invalid(f"the workflow would be {size:,} bytes stored; at most {MAX_WORKFLOW_BYTES:,} (workflow size: "
                       "names, description, steps, notes and results together, as UTF-8 JSON)",
                       "Shorten notes or results, or remove steps; a non-ASCII character counts 6 to 12 bytes.",
                       "Nothing was changed.")


def _step(workflow: Workflow, step_id: str) -> Step:
    step = workflow.step(step_id)
    if step is None:
        raise _invalid(f"step_id {str(step_id)[:40]!r} is not a step of this workflow",
                       f"Steps: {', '.join(s.id for s in workflow.steps) or 'none'}.")
    return step


def _chosen_step_id(step_id: object) -> str:
    if not isinstance(step_id, str) or not 0 < len(step_id) <= MAX_STEP_ID or set(step_id) - STEP_ID_CHARACTERS:
        raise _invalid(f"step_id must be 1 to {MAX_STEP_ID} letters, digits, '-', '_' or '.'",
                       "Omit it to have the server choose the next id (s1, s2, ...).")
    return step_id


def checked_id(workflow_id: str) -> str:
    """`workflow_id` if a workflow could have it; otherwise `invalid_argument`, before the store is called."""
    if len(workflow_id) > MAX_WORKFLOW_ID:
        raise _invalid(f"workflow_id is {len(workflow_id):,} characters; a workflow id has at most {MAX_WORKFLOW_ID}",
                       "workflow://workflows lists your workflows.")
    return workflow_id


def _not_found(workflow_id: str) -> ResourceFailure:
    return ResourceFailure(ErrorCode.NOT_FOUND, f"No workflow {workflow_id[:80]!r}",
                           details=["workflow://workflows lists your workflows."])


def owner_of(caller: Caller) -> str:
    """Whom a caller's workflows belong to: who AWS vouches they are. An iam caller whose role lets them choose
    their session name shares their role's workflows (a session named "alice" must not reach alice's)."""
    caller.require_session()
    if caller.owner_digest is None:
        raise authentication_required("the caller's identity is unknown, so its workflows cannot be found")
    return caller.owner_digest


class Workflows:
    """One caller's view of the store."""

    def __init__(self, store: WorkflowStore, owner: str) -> None:
        self.store = GuardedStore(store)
        self.owner = owner
        self.open_write: OutcomeUnknown | None = None
        """While one of this caller's writes may land without its outcome known: what to answer if the request
        ends now (the tool reads it when its deadline cuts the call)."""

    def list(self) -> list[Workflow]:
        return self.store.list(self.owner)

    def get(self, workflow_id: str) -> Workflow:
        found = self.store.get(self.owner, checked_id(workflow_id)) if isinstance(workflow_id, str) else None
        if found is None:
            raise _not_found(str(workflow_id))
        return found

    def create(self, name: str, description: str = "", steps: list[str] | None = None) -> Workflow:
        titles = [_text(title, "step title", MAX_NAME, required=True) for title in (steps or [])]
        if len(titles) > MAX_STEPS:
            raise _invalid(f"{len(titles)} steps; at most {MAX_STEPS}")
        if len(self.store.list(self.owner)) >= MAX_WORKFLOWS:
            raise _invalid(f"at most {MAX_WORKFLOWS} workflows per caller", "Delete finished workflows first.")
        workflow = Workflow.new(self.owner, _text(name, "name", MAX_NAME, required=True),
                                _text(description, "description", MAX_DESCRIPTION), titles)
        workflow.stamp(new_token())
        _fits(workflow)
        self.open_write = OutcomeUnknown(workflow.id, 0)
        try:
            stored = self.store.create(workflow).stored
        except OutcomeUnknown:
            raise
        except ResourceFailure:
            self.open_write = None  # refused, or never sent: nothing can land
            raise
        if stored is None or stored.written_by(1) != workflow.written_by(1):
            raise self.open_write  # a lost answer, and the item not there (yet): the write may still land
        self.open_write = None
        return workflow

    def change(self, workflow_id: str, apply: Callable[[Workflow], bool | None]) -> Workflow:
        """Read, apply, write back only if nobody wrote in between; re-read and retry, backing off with full
        jitter (so many writers spread out instead of colliding again in step), while the request's deadline
        leaves time for the wait and CONFLICT_RETRIES is not spent. `apply` returning False means the change is
        there already: nothing is written. A give-up is logged: it is retryable (no write of this call can land
        any more), but a workflow that keeps losing is a hot spot worth seeing."""
        started, attempts = time.monotonic(), 0
        budget = seconds_to_aws_deadline()
        last_start = None if budget is None else min(WRITE_START_SECONDS, budget * WRITE_START_SHARE)
        current = self.get(workflow_id)
        sent: dict[str, Workflow] = {}
        """This call's writes that may still land, by token: all made from `current`, so at most one lands."""
        for attempt in range(CONFLICT_RETRIES):
            # After a write that did not land, step aside for a random moment, then re-read.
            wait = attempt and random.uniform(0, min(CONFLICT_BACKOFF_CAP_SECONDS,
                                                     CONFLICT_BACKOFF_SECONDS * 2 ** attempt))
            left = seconds_to_aws_deadline()
            if left is not None and last_start is not None and wait + last_start >= left:
                break
            if attempt:
                time.sleep(wait)
                fresh = self._read(workflow_id, sent)
                mine = self._landed(fresh, current, sent)
                if mine is not None:
                    return mine
                current = fresh
            attempts += 1
            changed = copy.deepcopy(current)
            if apply(changed) is False:  # raises invalid_argument before anything is written
                return current
            changed.version, changed.updated_at = current.version + 1, now()
            changed.stamp(new_token(), current)
            _fits(changed)
            mine = self._landed(self._write(changed, current.version, sent), current, sent)
            if mine is not None:
                return mine
        if sent:
            raise OutcomeUnknown(workflow_id, current.version)
        logger.warning("workflow update gave up: other writers kept winning", extra={
            "attempts": attempts, "seconds": round(time.monotonic() - started, 3)})
        raise ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, "The workflow changed too often to apply this update",
                              details=["Retry: the update was not applied."])

    def _landed(self, stored: Workflow | None, base: Workflow, sent: dict[str, Workflow]) -> Workflow | None:
        """The write of this call that made the version after `base`'s, as `stored` (the store's latest word)
        shows it; else None, with `sent` emptied once none of them can land any more (another writer made that
        version). Too many writes since to tell: the outcome is unknown."""
        if stored is None:
            raise _not_found(base.id)
        writer = stored.written_by(base.version + 1)
        if writer in sent:
            self.open_write = None
            return sent[writer]
        if stored.version != base.version:  # the next version is made: by another writer, if by anyone we know
            if writer is None and sent:
                raise OutcomeUnknown(base.id, base.version)
            sent.clear()
            self.open_write = None
        return None

    def _read(self, workflow_id: str, sent: dict[str, Workflow]) -> Workflow | None:
        """The workflow now; a failed read while a write of this call may land leaves its outcome unknown."""
        try:
            return self.store.get(self.owner, workflow_id)
        except ResourceFailure as failure:
            if sent and self.open_write is not None:
                raise self.open_write from failure
            raise

    def _write(self, changed: Workflow, expected: int, sent: dict[str, Workflow]) -> Workflow | None:
        """One conditional write of this call, `sent` kept to the writes that may still land. A failure of this
        one write that says it was not written is answered as it is only when no earlier write may land."""
        token = changed.writes[:len(new_token())]
        sent[token] = changed
        self.open_write = OutcomeUnknown(changed.id, expected)
        try:
            written = self.store.replace(changed, expected)
            if written.stored is not changed and not written.answer_lost:
                del sent[token]  # refused by its condition: this one can never land
            return written.stored
        except OutcomeUnknown:
            raise
        except ResourceFailure as failure:
            del sent[token]
            if sent:
                raise self.open_write from failure
            self.open_write = None
            raise

    def add_step(self, workflow_id: str, title: str, position: int | None = None,
                 step_id: str | None = None) -> Workflow:
        """With `step_id` (the caller's own), adding it again is a no-op: a step with that id and title already
        there is the answer, and nothing is written, so a re-sent call can never add the step twice."""
        text = _text(title, "title", MAX_NAME, required=True)
        chosen = None if step_id is None else _chosen_step_id(step_id)

        def add(workflow: Workflow) -> bool:
            there = None if chosen is None else workflow.step(chosen)
            if there is not None:
                if there.title != text:
                    raise _invalid(f"step_id {chosen!r} is already a step of this workflow, titled differently",
                                   "Choose another id for another step.")
                return False
            if len(workflow.steps) >= MAX_STEPS:
                raise _invalid(f"at most {MAX_STEPS} steps per workflow")
            index = len(workflow.steps) if position is None else position - 1
            if not 0 <= index <= len(workflow.steps):
                raise _invalid(f"position must be from 1 to {len(workflow.steps) + 1}")
            if chosen is None:
                workflow.steps.insert(index, workflow.new_step(text))
            else:
                workflow.add_named_step(chosen, text, index)
            return True

        return self.change(workflow_id, add)

    def update(self, workflow_id: str, name: str | None = None, description: str | None = None) -> Workflow:
        """Rename and/or re-describe; the steps stay as they are."""
        if name is None and description is None:
            raise _invalid("give a name, a description or both to change", "Steps change with the step tools.")
        new_name = None if name is None else _text(name, "name", MAX_NAME, required=True)
        new_description = None if description is None else _text(description, "description", MAX_DESCRIPTION)

        def update(workflow: Workflow) -> None:
            workflow.name = workflow.name if new_name is None else new_name
            workflow.description = workflow.description if new_description is None else new_description

        return self.change(workflow_id, update)

    def remove_step(self, workflow_id: str, step_id: str) -> Workflow:
        """The other steps keep their ids and order; the removed id is never issued again."""
        def remove(workflow: Workflow) -> None:
            workflow.steps.remove(_step(workflow, step_id))

        return self.change(workflow_id, remove)

    def update_step(self, workflow_id: str, step_id: str, status: str | None = None, note: str | None = None,
                    result: str | None = None, title: str | None = None) -> Workflow:
        if status is not None and status not in STEP_STATUSES:
            raise _invalid(f"status {str(status)[:40]!r} is not one of {', '.join(STEP_STATUSES)}")
        fields = {"note": None if note is None else _text(note, "note", MAX_NOTE),
                  "result": None if result is None else _text(result, "result", MAX_RESULT),
                  "title": None if title is None else _text(title, "title", MAX_NAME, required=True)}

        def update(workflow: Workflow) -> None:
            step = _step(workflow, step_id)
            if status is not None:
                step.status = status  # type: ignore[assignment]
            for name, value in fields.items():
                if value is not None:
                    setattr(step, name, value)
            step.updated_at = now()

        return self.change(workflow_id, update)

    def reorder(self, workflow_id: str, step_ids: list[str]) -> Workflow:
        def reorder(workflow: Workflow) -> None:
            if sorted(step_ids) != sorted(s.id for s in workflow.steps):
                raise _invalid("step_ids must list every step of the workflow exactly once",
                               f"Steps: {', '.join(s.id for s in workflow.steps)}.")
            by_id = {s.id: s for s in workflow.steps}
            workflow.steps = [by_id[step_id] for step_id in step_ids]

        return self.change(workflow_id, reorder)

    def delete(self, workflow_id: str) -> Workflow:
        """The workflow as it was when deleted, so the caller can be told what is gone."""
        deleted = self.store.delete(self.owner, checked_id(workflow_id))
        if deleted is None:
            raise _not_found(workflow_id)
        return deleted


_stores: dict[tuple[str, str], WorkflowStore] = {}
_lock = threading.Lock()


def store_for(settings: Settings) -> WorkflowStore:
    """The configured store, one per process (it holds a table handle or a file path)."""
    key = (settings.workflow_store, settings.workflow_table if settings.workflow_store == "dynamodb"
           else settings.workflow_db_path)
    with _lock:
        if key not in _stores:
            if settings.workflow_store == "dynamodb":
                from aws_data_mcp.workflows.dynamodb_store import DynamoDbStore

                _stores[key] = DynamoDbStore(settings)
            else:
                from aws_data_mcp.workflows.sqlite_store import SqliteStore

                _stores[key] = SqliteStore(settings.workflow_db_path)
        return _stores[key]
