"""The audit record of one MCP call: who asked what, how it ended, its AWS calls and its query.

It sits this low because several layers fill it while the call runs: identity, each AWS client, the
query tool. So it lives in a ContextVar they reach without importing the server.
`server/audit_trail.py` writes it; docs/security.md says what it holds and how CloudTrail finds it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aws_data_mcp.observability import SERVICE

if TYPE_CHECKING:  # types only: the identity layer imports the AWS clients, which import this module
    from aws_data_mcp.identity.caller import Caller

MESSAGE = "mcp call"
USER_AGENT_MARK = "md/mcp-call#"
"""What every AWS request of a call adds to its User-Agent, before the call id: the AWS SDKs' metadata form
(`md/<name>#<value>`), kept whole in CloudTrail's `userAgent`."""
ANSWERED, REFUSED, FAILED = "answered", "refused", "failed"
FAILURE_CODES = frozenset({"internal", "throttled", "upstream_unavailable", "timeout", "cancelled"})
"""Error codes that say the server or AWS could not answer (`failed`); every other code is a refusal of what was
asked (`refused`: no caller, access denied, a bad argument, not found, a query the guard or the cutoff stopped)."""

_current: ContextVar[CallRecord | None] = ContextVar("aws_data_mcp_audit", default=None)
_stdlib_logger = logging.getLogger(SERVICE)
"""The standard library logger Powertools' `logger` writes through (the same object)."""


@dataclass
class CallRecord:
    """What one MCP call did, filled while it runs; AWS requests are counted from fan-out threads too (a lock)."""

    method: str
    request_id: str | int | None
    target: dict[str, str]
    """`uri`, or `tool` and the tool's `uri` argument where it reads one (get_resource)."""
    transport: str
    sql_mode: str
    call_id: str = field(default_factory=lambda: os.urandom(16).hex())  # 128 random bits, as a UUID4 holds
    started: float = field(default_factory=time.monotonic)
    caller: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    outcome: str = ANSWERED
    error: str | None = None
    aws_operations: Counter[str] = field(default_factory=Counter)
    token: Token[CallRecord | None] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, operation: str) -> None:
        with self._lock:
            self.aws_operations[operation] += 1

    def ended(self, error: str | None) -> None:
        """The call ended with `error` (a code), or answered (None)."""
        self.error = error
        self.outcome = ANSWERED if error is None else FAILED if error in FAILURE_CODES else REFUSED

    def line(self) -> dict[str, Any]:
        """The record as the audit line carries it: only what is set, so a list call's line stays short."""
        with self._lock:
            operations = dict(sorted(self.aws_operations.items()))
        record: dict[str, Any] = {
            "call_id": self.call_id, "request_id": self.request_id, "method": self.method, **self.target,
            "transport": self.transport, **self.caller, "outcome": self.outcome,
            "aws_calls": sum(operations.values()), "duration_ms": round((time.monotonic() - self.started) * 1000, 1),
        }
        if self.error is not None:
            record["error"] = self.error
        if operations:
            record["aws_operations"] = operations
        if self.query:
            record["query"] = dict(self.query)
        return record


def opened(method: str, request_id: str | int | None, target: dict[str, str], transport: str,
           sql_mode: str, edge_caller: str | None = None, client: str | None = None) -> CallRecord:
    """A new record for the call now starting, current in this context (and the threads it starts) until `close`.

    `edge_caller`: who API Gateway vouched for, kept even where the call never resolves its caller (a refusal
    before any AWS call, a list method); `client`: the MCP client's name and version, as it gave them."""
    record = CallRecord(method, request_id, target, transport, sql_mode)
    if client is not None:
        record.target = {**target, "client": client}
    if edge_caller is not None:
        record.caller["edge_caller"] = edge_caller
    record.token = _current.set(record)
    return record


def close(record: CallRecord) -> None:
    """Write the record's line, and stop counting this context's AWS requests on it.

    The line is a record handed to the Powertools logger's own logger (its handler, formatter, filters and level),
    built here rather than by `logger.info`: the standard library's search of the caller's frame and Powertools'
    argument handling took two thirds of the line's cost, on every call, for a location that is always this one."""
    if record.token is not None:
        _current.reset(record.token)
    if not _stdlib_logger.isEnabledFor(logging.INFO):
        return
    _stdlib_logger.handle(_stdlib_logger.makeRecord(_stdlib_logger.name, logging.INFO, __file__, _CLOSE_LINE,
                                                    MESSAGE, None, None, "close", {"audit": record.line()}))


_CLOSE_LINE = close.__code__.co_firstlineno
"""Where the line is written, as its `location` says (`close:<line>`)."""


def current() -> CallRecord | None:
    return _current.get()


def mark_aws_request(request: Any, event_name: str = "", **_: Any) -> None:
    """botocore's `before-send`, on every client made for a caller (`aws.client`): the request counts for the
    current call, and carries its call id in its User-Agent. Added after botocore built the header (its own
    `request-created` handler rebuilds it last) and after signing: SigV4 never signs the User-Agent."""
    record = _current.get()
    if record is None:
        return
    # before-send.<service>.<Operation>
    _, _, operation = event_name.partition(".")
    record.count(operation.replace(".", ":", 1) or "unknown")
    agent = request.headers.get("User-Agent") or b""
    mark = f"{USER_AGENT_MARK}{record.call_id}".encode()
    if isinstance(agent, str):
        agent = agent.encode()
    if mark not in agent:  # a retry sends the same prepared request again
        # A prepared request's headers: bytes, in a case-insensitive dict (assigning replaces the header).
        request.headers["User-Agent"] = b" ".join(part for part in (agent, mark) if part)


def note_caller(caller: Caller) -> None:
    """Who the call acts as, once it resolved its caller: the principal AWS sees, the person where the trust pins
    one, and the account (a caller who is nobody adds only its auth mode: the refusal's code says why)."""
    record = _current.get()
    if record is None:
        return
    found: dict[str, Any] = {"auth_mode": caller.auth_mode, "principal_arn": caller.principal_arn,
                             "person": caller.person, "account": caller.account}
    if caller.account_name is not None:
        found["account_name"] = caller.account_name
    record.caller.update((name, value) for name, value in found.items() if value is not None)


def note_statement(sql: str, kind: str, relations: Iterable[str], database: str, catalog: str) -> None:
    """The statement a query runs, as the guard read it: its hash (its text only where the operator allows it),
    its kind and the tables it reads (names, never literals)."""
    record = _current.get()
    if record is None:
        return
    text = {"sql": sql} if record.sql_mode == "full" else {}
    record.query.update(sql_sha256=hashlib.sha256(sql.encode()).hexdigest(), **text, statement=kind,
                        tables=sorted(set(relations)), database=database, catalog=catalog)


def note_query(answer: Mapping[str, Any]) -> None:
    """A query's answer as the tool gives it (athena_query, athena_stop_query): its execution, workgroup, state,
    what it scanned and cost."""
    record = _current.get()
    if record is None or not answer.get("execution_id"):
        return
    statistics = answer.get("statistics") or {}
    error = answer.get("error")
    found = {"execution_id": answer.get("execution_id"), "workgroup": answer.get("workgroup"),
             "state": answer.get("state"), "data_scanned_bytes": statistics.get("data_scanned_bytes"),
             "cost_usd": statistics.get("cost_usd"),
             "error": error.get("error") if isinstance(error, Mapping) else error}
    record.query.update({name: value for name, value in found.items() if value is not None})
