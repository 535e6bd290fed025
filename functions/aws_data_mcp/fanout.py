"""One bounded, deadline-aware fan-out for per-item AWS calls (per bucket, workgroup, user, database).

Every resolver that calls AWS once per item goes through `fan_out`, so the width
(which botocore's connection pool covers, see `aws.pool_size`), the deadline
and the per-item error vocabulary are decided in one place. An item that fails keeps
its own error beside it; an item still running at the deadline is reported as
`timeout` and the read answers with everything else.

The workers are one process-wide pool's, kept between fan-outs: starting 32 threads per fan-out cost more CPU
than a read's own work once AWS answers fast, and each start waits for the new thread to be scheduled.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from aws_data_mcp.aws import current_deadline, deadline_scope, seconds_to_aws_deadline
from aws_data_mcp.cache import mark_transient
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.observability import logger

WORKER_MARGIN_SECONDS = 0.1
"""A worker's own deadline comes this much before the wait for it ends: a worker that answers with a partial
result of its own (a nested fan-out, a chain of checks cut short) is then heard, not reported late."""

POOL_THREADS = 512
"""Workers of all fan-outs at once, at most (each fan-out is held to its width): room for concurrent reads' fan-outs
and their nesting (recommendations reading discover, whose write checks fan out beside its reads), whose outer items
wait on inner ones."""

I = TypeVar("I")  # noqa: E741  (item)
T = TypeVar("T")

_workers = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="fan-out")


@dataclass(frozen=True)
class Outcome(Generic[I, T]):
    """One item's result, or its error in the shared vocabulary."""

    item: I
    value: T | None = None
    error: ResourceFailure | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One item of a fan-out whose items call different operations (a bucket's location beside a policy
    simulation, a user's groups beside its keys), named by the IAM action its failure is about."""

    action: str
    fn: Callable[[], T]

    def run(self) -> T:
        return self.fn()

    @staticmethod
    def action_of(call: Call[Any]) -> str:
        return call.action


def fan_out(fn: Callable[[I], T], items: Iterable[I], *, action: str | Callable[[I], str],
            width: int) -> list[Outcome[I, T]]:
    """`fn(item)` for every item, at most `width` at a time, in the order given, within the request's deadline.

    `action` names the IAM action an item's failure is about (e.g. "athena:GetWorkGroup"), or gives it per
    item (`Call.action_of` for `Call` items, run with `Call.run`). Workers run in a copy of the caller's
    context, so the request deadline reaches every AWS call they make.
    """
    todo = list(items)
    name = action if callable(action) else lambda _: action
    deadline, left = current_deadline(), seconds_to_aws_deadline()
    if left is not None and left <= 0:  # nothing starts after the deadline: every item is late
        return [_outcome(item, None, name(item)) for item in todo]
    if not todo:
        return []
    worker_deadline = None if deadline is None else deadline - WORKER_MARGIN_SECONDS
    feed = _Feed(fn, todo, worker_deadline)
    for _ in range(min(width, len(todo))):
        feed.start_next()
    try:
        done, _ = wait(feed.futures, timeout=left)
    finally:
        feed.stop()  # answer now: nothing more starts; stragglers end by the deadline (aws.py)
    return [_outcome(item, future if future in done else None, name(item))
            for item, future in zip(todo, feed.futures, strict=True)]


class _Feed(Generic[I, T]):
    """One fan-out's items, started on the shared workers as earlier ones finish, so at most `width` run at once.

    Each item runs in a copy of the caller's context taken here (the request's deadline and log keys reach it),
    and answers through its own future, which stays pending if the fan-out stops before the item starts.
    """

    def __init__(self, fn: Callable[[I], T], items: list[I], deadline: float | None) -> None:
        self.futures: list[Future[T]] = [Future() for _ in items]
        self._fn, self._deadline = fn, deadline
        self._queue = iter([(item, future, contextvars.copy_context())
                            for item, future in zip(items, self.futures, strict=True)])
        self._lock = threading.Lock()
        self._stopped = False

    def start_next(self) -> None:
        with self._lock:
            queued = None if self._stopped else next(self._queue, None)
        if queued is not None:
            item, future, context = queued
            _workers.submit(context.run, self._run, item, future)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True

    def _run(self, item: I, future: Future[T]) -> None:
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(_by(self._deadline, self._fn, item))
            except BaseException as exc:  # the item's outcome, reported by `_outcome`
                future.set_exception(exc)
        self.start_next()


def _by(deadline: float | None, fn: Callable[[I], T], item: I) -> T:
    """`fn(item)` in a worker, its AWS calls (and any fan-out of its own) bound by the worker's `deadline`."""
    if deadline is None:
        return fn(item)
    with deadline_scope(deadline):
        return fn(item)


def _outcome(item: I, future: Future[T] | None, action: str) -> Outcome[I, T]:
    """One item's value or error (`future` None: not finished by the deadline); a retryable error (throttled,
    cut off by the deadline) keeps the whole result out of the cache, so a retry really retries."""
    if future is None:
        mark_transient()
        return Outcome(item, error=ResourceFailure(ErrorCode.TIMEOUT,
                                                   f"{action} did not answer before the request's deadline",
                                                   details=["Retry later, or narrow the request."]))
    exc = future.exception()
    if exc is None:
        return Outcome(item, value=future.result())
    failure = as_failure(exc, action)
    if failure.code is ErrorCode.INTERNAL:
        logger.error("fan-out item failed", exc_info=exc, extra={"action": action})
    if failure.retryable:
        mark_transient()
    return Outcome(item, error=failure)
