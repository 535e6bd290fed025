"""IAM's request budget: within one read, each AWS question is asked once.

A composed read would ask the same question again and again, and IAM throttles per account. So
within `read_scope` an identical read-only call shares the first one's answer, a refusal included.
The caller's own policy documents are kept across reads (`across_reads`, `KEPT_SECONDS`), never for
another caller. It hooks botocore's events, so standard-mode retries and response handlers run as
before (docs/access.md).
"""

from __future__ import annotations

import copy
import itertools
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

KEPT_SECONDS = 60.0
"""How long the caller's own policy documents are kept across reads in a warm container: a policy changed by an
administrator is seen within a minute."""
KEPT_ENTRIES = 512
"""Answers kept across reads at most (least recently used out first)."""
ACROSS_READS = frozenset({
    "GetUser", "GetRole", "ListUserPolicies", "ListRolePolicies", "ListGroupPolicies", "ListAttachedUserPolicies",
    "ListAttachedRolePolicies", "ListAttachedGroupPolicies", "ListGroupsForUser", "GetUserPolicy", "GetRolePolicy",
    "GetGroupPolicy", "GetPolicy", "GetPolicyVersion"})
"""IAM's reads of a principal's policies: the only answers kept beyond one read, and only where asked for."""
READ_ONLY = ("Get", "List", "Describe", "Head", "Simulate", "BatchGet", "Search", "Lookup")
"""Operation names that read and change nothing: the only ones shared within a read."""
ASKED_AGAIN = frozenset({"GetQueryExecution", "GetQueryResults", "BatchGetQueryExecution", "GetCallerIdentity",
                         "GetSessionToken", "GetFederationToken", "GetDataAccess", "GetTemporaryGlueTableCredentials",
                         "GetTemporaryGluePartitionCredentials"})
"""Named as reads, yet asked again on purpose: a query's state moves on, the caller is resolved per request, and
credentials are vended afresh (never an answer to share)."""
WAIT_SECONDS = 60.0
"""The longest a call waits for the same one in flight, outside a request's deadline."""
_KEY = "aws_data_mcp_memo_key"
_OWNER = "aws_data_mcp_memo_owner"


class _Answer:
    """One question's answer within a read: set once by the call that asked it, awaited by the others."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.response: tuple[Any, dict[str, Any]] | None = None
        """(botocore's HTTP response, the parsed answer before botocore's own after-call handlers); None: failed."""
        self.outcome: tuple[bool, Any] | None = None
        """For `once_per_read`: (True, the value) or (False, the exception raised)."""


class ReadMemo:
    """The answers of one read, by (client, operation, parameters)."""

    def __init__(self, caller: str | None) -> None:
        self.caller = caller
        self._lock = threading.Lock()
        self._answers: dict[Hashable, _Answer] = {}
        self.asked = 0
        """Questions sent to AWS in this read (each distinct one once)."""
        self.shared = 0
        """Questions answered from the memo: the calls this read did not make."""

    def claim(self, key: Hashable) -> tuple[_Answer, bool]:
        """The answer slot for `key`, and whether this call owns it (must ask AWS)."""
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self.shared += 1
                return found, False
            found = self._answers[key] = _Answer()
            self.asked += 1
            return found, True

    def answered_elsewhere(self) -> None:
        """A question answered from the answers kept across reads."""
        with self._lock:
            self.shared += 1

    def forget(self, key: Hashable) -> None:
        """A question whose call failed without an answer (a connection error, the deadline): asked again if met."""
        with self._lock:
            self._answers.pop(key, None)


class _KeptAnswers:
    """The caller's policy reads across reads: bounded, for `KEPT_SECONDS`, keyed by caller and client."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[float, tuple[Any, dict[str, Any]]]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[Any, dict[str, Any]] | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None or found[0] <= time.monotonic():
                self._entries.pop(key, None)
                return None
            self._entries.move_to_end(key)
            return found[1]

    def put(self, key: Hashable, response: tuple[Any, dict[str, Any]]) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic() + KEPT_SECONDS, response)
            self._entries.move_to_end(key)
            while len(self._entries) > KEPT_ENTRIES:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


KEPT = _KeptAnswers()
_memo: ContextVar[ReadMemo | None] = ContextVar("aws_data_mcp_read_memo", default=None)
_across: ContextVar[bool] = ContextVar("aws_data_mcp_across_reads", default=False)
_clients = itertools.count()


@contextmanager
def read_scope(caller: str | None) -> Iterator[ReadMemo]:
    """The memo of one read as `caller` (its identity digest): every AWS call made in this context and in the
    fan-out workers it spawns (they copy the context) shares it."""
    memo = ReadMemo(caller)
    token = _memo.set(memo)
    try:
        yield memo
    finally:
        _memo.reset(token)


def current_memo() -> ReadMemo | None:
    return _memo.get()


def across_reads(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` with its IAM policy reads kept across reads for the caller (see `ACROSS_READS`)."""
    def kept(*args: P.args, **kwargs: P.kwargs) -> T:
        token = _across.set(True)
        try:
            return fn(*args, **kwargs)
        finally:
            _across.reset(token)
    return kept


def once_per_read(key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()` once per read for `key` (which names the client it calls with): for a question botocore cannot
    replay (a streamed answer, such as a one-byte ranged GET whose body is dropped), its result or its error is
    shared instead. Outside a read, computed each time."""
    memo = _memo.get()
    if memo is None:
        return compute()
    slot, owner = memo.claim(("once", key))
    if not owner:
        slot.done.wait(WAIT_SECONDS)
        if slot.outcome is not None:
            ok, value = slot.outcome
            if ok:
                return copy.deepcopy(value)  # type: ignore[no-any-return]
            raise value
        return compute()
    try:
        value = compute()
    except Exception as exc:
        slot.outcome = (False, exc)
        raise
    else:
        slot.outcome = (True, value)
        return copy.deepcopy(value)
    finally:
        slot.done.set()


def _copied(value: Any) -> Any:
    """A parsed answer's own copy: new dicts and lists, shared leaves (text, numbers, dates, bytes).

    Botocore's parsers build nothing else that can change. `copy.deepcopy` takes six times as long,
    and every call a read makes pays it: each answer is kept before botocore's handlers edit it."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _replay(response: tuple[Any, dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    """A copy for this caller of the call: botocore's handlers and the resolvers may change what they get."""
    return response[0], _copied(response[1])


class ClientMemo:
    """The botocore event handlers of one client (one caller's session, one region)."""

    def __init__(self, seconds_left: Callable[[], float | None]) -> None:
        self.client = next(_clients)
        self._seconds_left = seconds_left
        """Seconds to the request's deadline (None outside one): a call waits for its twin no longer."""

    def register(self, events: Any, service_id: str) -> None:
        """On the client's events; `service_id` its hyphenized service id (botocore's event names)."""
        events.register("before-parameter-build", self.name_question)
        events.register("before-call", self.answer)
        # first of the service's own, so the answer is kept as botocore parsed it, before its handlers decode it
        # (IAM's policy documents, S3's listing keys): a replay then goes through each of them once
        events.register_first(f"after-call.{service_id}", self.record)
        events.register("after-call-error", self.failed)

    def name_question(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        name = model.name
        if _memo.get() is None or not name.startswith(READ_ONLY) or name in ASKED_AGAIN \
                or model.has_streaming_output:
            return
        context[_KEY] = (self.client, model.service_model.service_name, name,
                         json.dumps(params, sort_keys=True, default=str))

    def answer(self, model: Any, context: dict[str, Any], **_: Any) -> tuple[Any, dict[str, Any]] | None:
        key, memo = context.get(_KEY), _memo.get()
        if key is None or memo is None:
            return None
        if _across.get() and model.name in ACROSS_READS and memo.caller is not None:
            kept = KEPT.get((memo.caller, *key))
            if kept is not None:
                memo.answered_elsewhere()
                return _replay(kept)
        slot, owner = memo.claim(key)
        if owner:
            context[_OWNER] = (memo, slot, _across.get() and model.name in ACROSS_READS)
            return None
        left = self._seconds_left()
        slot.done.wait(WAIT_SECONDS if left is None else min(left, WAIT_SECONDS))
        if slot.response is None:  # the first call failed without an answer, or is past the deadline: ask
            return None
        return _replay(slot.response)

    def record(self, http_response: Any, parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        owned = context.pop(_OWNER, None)
        if owned is None:
            return
        memo, slot, keep = owned
        slot.response = (http_response, _copied(parsed))
        slot.done.set()
        if keep and http_response.status_code < 300 and memo.caller is not None:
            KEPT.put((memo.caller, *context[_KEY]), slot.response)

    def failed(self, context: dict[str, Any], **_: Any) -> None:
        owned = context.pop(_OWNER, None)
        if owned is None:
            return
        memo, slot, _ = owned
        memo.forget(context[_KEY])
        slot.done.set()
