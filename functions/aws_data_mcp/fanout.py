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
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Generic, TypeVar

from aws_data_mcp.aws import remaining_seconds
from aws_data_mcp.cache import mark_transient
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.observability import logger

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


def fan_out(fn: Callable[[I], T], items: Iterable[I], *, action: str, width: int) -> list[Outcome[I, T]]:
    """`fn(item)` for every item, at most `width` at a time, in the order given, within the request's deadline.

    `action` names the IAM action an item's failure is about (e.g. "athena:GetWorkGroup"). Workers run
    in a copy of the caller's context, so the request deadline reaches every AWS call they make.
    """
    todo = list(items)
    if not todo:
        return []
    pool = ThreadPoolExecutor(max_workers=min(width, len(todo)), thread_name_prefix="fan-out")
    try:
        futures = [pool.submit(contextvars.copy_context().run, fn, item) for item in todo]
        done, _ = wait(futures, timeout=remaining_seconds())
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # at the deadline: answer now, let stragglers end alone
    outcomes: list[Outcome[I, T]] = []
    for item, future in zip(todo, futures, strict=True):
        if future not in done:
            late = ResourceFailure(ErrorCode.TIMEOUT, f"{action} did not answer before the request's deadline",
                                   details=["Retry later, or narrow the request."])
            outcomes.append(Outcome(item, error=late))
            mark_transient()
            continue
        exc = future.exception()
        if exc is None:
            outcomes.append(Outcome(item, value=future.result()))
            continue
        failure = as_failure(exc, action)
        if failure.code is ErrorCode.INTERNAL:
            logger.error("fan-out item failed", exc_info=exc, extra={"action": action})
        if failure.retryable:
            mark_transient()
        outcomes.append(Outcome(item, error=failure))
    return outcomes
