"""One bounded, deadline-aware fan-out for per-item AWS calls (per bucket, workgroup, user, database).

Width, deadline and per-item errors are decided here, once for every resolver.
An item may be a `Chain` of calls. The width bounds calls in flight, not chains.
The workers are one process-wide pool: new threads per fan-out cost more than the reads.
"""

from __future__ import annotations

import contextvars
import inspect
import itertools
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from aws_data_mcp.aws import current_deadline, deadline_scope, seconds_to_aws_deadline
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure
from aws_data_mcp.observability import logger
from aws_data_mcp.reading.cache import mark_transient

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
    simulation, a user's groups beside its keys), or one call a chain yields, named by the IAM action its failure
    is about."""

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

    An item whose `fn` is a generator function is a chain of calls (`Chain`): it holds a slot only while one of
    its calls runs, not while it waits for the next to start or for the calls it fanned out, and each fan-out of
    its own adds `width` slots while it is open (see `_Tree`).
    """
    todo = list(items)
    name = action if callable(action) else lambda _: action
    deadline, left = current_deadline(), seconds_to_aws_deadline()
    if left is not None and left <= 0:  # nothing starts after the deadline: every item is late
        return [_outcome(item, None, name(item)) for item in todo]
    if not todo:
        return []
    tree = _Tree(width, None if deadline is None else deadline - WORKER_MARGIN_SECONDS)
    items_done = tree.start([Call(name(item), partial(fn, item)) for item in todo])
    try:
        items_done.finished.wait(left)
    finally:
        tree.stop()  # answer now: nothing more starts; stragglers end by the deadline (aws.py)
    return [_outcome(item, found, name(item)) for item, found in zip(todo, items_done.snapshot(), strict=True)]


Step = Call[Any] | list[Call[Any]]
"""What a chain yields: one call, answered with its `Outcome`, or calls to run side by side (a fan-out of its
own), answered with their outcomes in the order given."""
Chain = Generator[Step, Any, T]
"""A chain of calls, each chosen from the answers before it (a listing, then the head of an object it listed):
the generator a fan-out item's function returns. It yields every AWS call it needs (`Step`) instead of making it,
and returns its value; its own code runs between its calls, on whichever worker ran the last one."""


class _Join:
    """Calls started side by side, whose outcomes are awaited together: a fan-out's items, a chain's fan-out, or the
    one call a chain waits on. A fan-out is a lane of its own (its ready calls, its slots); a chain's single call
    runs in the lane of the fan-out the chain is an item of."""

    def __init__(self, size: int, then: Callable[[list[Outcome[Call[Any], Any]]], None] | None,
                 lane: _Join | None) -> None:
        self.outcomes: list[Outcome[Call[Any], Any] | None] = [None] * size
        self.left, self.then = size, then
        self.lane = self if lane is None else lane
        self.ready: deque[tuple[int, Call[Any], _Join, int]] = deque()
        """Calls to start, each after its place in the order the tree was asked for calls."""
        self.running = 0
        self.finished = threading.Event()

    def snapshot(self) -> list[Outcome[Call[Any], Any] | None]:
        return list(self.outcomes)


class _Tree:
    """One fan-out's calls, its chains' included, started on the shared workers one call at a time as slots free.

    Slots are per call, not per item: a chain waiting for its next call, or for the calls it fanned out, holds
    none. Each fan-out (the items, and each chain's own) brings `width` slots, as a nested `fan_out` did, and never
    more calls are in flight than the open fan-outs' slots together (the connections a client's pool keeps for
    them); a slot one fan-out leaves idle serves another's calls meanwhile. Calls start in the order they were
    asked for, so the first calls of every chain (a listing, a policy simulation: what later calls wait on) start
    before the calls they lead to; but a fan-out with no call in flight has the next free slot, ahead of calls
    asked for before its own, so another fan-out's slow calls do not keep it waiting behind them.
    """

    def __init__(self, width: int, deadline: float | None) -> None:
        self._width, self._running = width, 0
        self._deadline = deadline
        self._context = contextvars.copy_context()
        self._lanes: list[_Join] = []
        self._asked = itertools.count()
        self._lock = threading.Lock()
        self._stopped = False

    def start(self, calls: list[Call[Any]]) -> _Join:
        items = _Join(len(calls), None, lane=None)
        items.ready.extend((next(self._asked), call, items, index) for index, call in enumerate(calls))
        self._lanes.append(items)
        self._pump()
        return items

    def stop(self) -> None:
        with self._lock:
            self._stopped = True

    def _pump(self) -> None:
        """A ready call for every free slot, each on a worker of its own."""
        while (entry := self._take()) is not None:
            _workers.submit(self._work, entry)

    def _take(self) -> tuple[Call[Any], _Join, int] | None:
        """The next ready call, its slot taken: a call of a fan-out that has none in flight, else the one asked for
        first; None when there is none, every open fan-out's slots are taken, or the fan-out stopped."""
        with self._lock:
            if self._stopped or self._running >= self._width * len(self._lanes):
                return None
            waiting = [lane for lane in self._lanes if lane.ready]
            if not waiting:
                return None
            lane = next((lane for lane in waiting if not lane.running), None) or min(
                waiting, key=lambda lane: lane.ready[0][0])
            lane.running += 1
            self._running += 1
            return lane.ready.popleft()[1:]

    def _work(self, entry: tuple[Call[Any], _Join, int] | None) -> None:
        """Ready calls one after another on this worker while there are any: handing each to another thread cost more,
        in wake-ups and the GIL's hand-overs, than a fast call's own work."""
        while entry is not None:
            self._context.copy().run(self._run, *entry)
            entry = self._take()
            self._pump()

    def _run(self, call: Call[Any], join: _Join, index: int) -> None:
        """One call, bound by the workers' deadline; a chain it starts is run on to its first step."""
        with deadline_scope(self._deadline) if self._deadline is not None else nullcontext():
            try:
                value, error = call.fn(), None
            except BaseException as exc:  # the call's outcome, in the shared vocabulary
                value, error = None, _failure(exc, call.action)
            with self._lock:
                join.lane.running -= 1
                self._running -= 1
            if inspect.isgenerator(value):
                self._resume(call, value, None, join, index)
            else:
                self._deliver(join, index, Outcome(call, value=value, error=error))

    def _resume(self, call: Call[Any], chain: Chain[Any], answer: Any, join: _Join, index: int) -> None:
        """The chain run on to its next step (its calls queued), or to its end (its outcome delivered)."""
        try:
            step = chain.send(answer)
        except StopIteration as end:
            self._deliver(join, index, Outcome(call, value=end.value))
            return
        except BaseException as exc:  # the chain's outcome, as a call's
            self._deliver(join, index, Outcome(call, error=_failure(exc, call.action)))
            return
        fanned = isinstance(step, list)
        calls = step if isinstance(step, list) else [step]

        def resume(outcomes: list[Outcome[Call[Any], Any]]) -> None:
            self._resume(call, chain, outcomes if fanned else outcomes[0], join, index)

        if not calls:
            resume([])
            return
        waited = _Join(len(calls), resume, lane=None if fanned else join.lane)
        with self._lock:
            if fanned:
                self._lanes.append(waited)
            waited.lane.ready.extend((next(self._asked), c, waited, i) for i, c in enumerate(calls))

    def _deliver(self, join: _Join, index: int, outcome: Outcome[Call[Any], Any]) -> None:
        with self._lock:
            join.outcomes[index] = outcome
            join.left -= 1
            complete = join.left == 0
            if complete and join.then is not None and join.lane is join:  # a chain's fan-out ends: its lane closes
                self._lanes.remove(join)
        if not complete:
            return
        if join.then is None:
            join.finished.set()
        else:
            join.then(join.snapshot())  # type: ignore[arg-type]


def _failure(exc: BaseException, action: str) -> ResourceFailure:
    """A call's exception in the shared vocabulary, logged if it is ours; a retryable one (throttled, cut off by
    the deadline) keeps the whole result out of the cache, so a retry really retries."""
    failure = as_failure(exc, action)
    if failure.code is ErrorCode.INTERNAL:
        logger.error("fan-out item failed", exc_info=exc, extra={"action": action})
    if failure.retryable:
        mark_transient()
    return failure


def _outcome(item: I, found: Outcome[Call[Any], Any] | None, action: str) -> Outcome[I, T]:
    """One item's value or error (`found` None: not finished by the deadline)."""
    if found is None:
        mark_transient()
        return Outcome(item, error=ResourceFailure(ErrorCode.TIMEOUT,
                                                   f"{action} did not answer before the request's deadline",
                                                   details=["Retry later, or narrow the request."]))
    return Outcome(item, value=found.value, error=found.error)
