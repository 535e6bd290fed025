"""One bounded, deadline-aware fan-out for per-item AWS calls (per bucket, workgroup, user, database).

Every resolver that calls AWS once per item goes through `fan_out`, so the width
(which matches botocore's connection pool, see `aws.client_config`), the deadline
and the per-item error vocabulary are decided in one place. An item that fails keeps
its own error beside it; an item still running at the deadline is reported as
`timeout` and the read answers with everything else.
"""

from __future__ import annotations

import contextvars
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

I = TypeVar("I")  # noqa: E741  (item)
T = TypeVar("T")


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
    pool = ThreadPoolExecutor(max_workers=min(width, len(todo)), thread_name_prefix="fan-out")
    try:
        futures = [pool.submit(contextvars.copy_context().run, _by, worker_deadline, fn, item) for item in todo]
        done, _ = wait(futures, timeout=left)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # answer now; stragglers end by the deadline (aws.py)
    return [_outcome(item, future if future in done else None, name(item))
            for item, future in zip(todo, futures, strict=True)]


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
