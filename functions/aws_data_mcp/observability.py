"""Logging and metrics: Powertools Logger and EMF Metrics, configured once per process.

On Lambda: JSON lines with the API Gateway request id as correlation id, and EMF metrics the handler
flushes. Locally: readable lines on stderr, as stdout is the stdio transport's, and no metrics.
Either way one event is one record, printed once, the libraries' records included. No client input
can start a line of its own.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from types import TracebackType
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.filters import SuppressFilter
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from pydantic_core import to_json

SERVICE = "aws-data-mcp"
NAMESPACE = "AwsDataMcp"

_JSON_STARTS = frozenset('{["-0123456789tfnNI')
"""The first characters of any text `json.loads` decodes (NaN and Infinity included)."""


def _json_line(log: dict[str, Any]) -> str:
    """A hosted line by pydantic's encoder, in a third of the standard library's time.

    Dates are ISO text; anything else JSON cannot hold is its `str`, as in Powertools' default."""
    return to_json(log, fallback=str).decode()


def _decoded_message(message: Any) -> Any:
    """Powertools' decoding of a message that is JSON text, skipped where the text cannot be JSON.

    Most messages are plain words: Powertools' own attempt raised and caught an error for each."""
    if isinstance(message, str) and message.lstrip()[:1] not in _JSON_STARTS:
        return message
    return json.loads(message)


# No line of ours shows the thread, process or task a record came from: the standard library's documented switches
# spare every record (an audit line per call) finding them out.
logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
logging.logAsyncioTasks = False  # Python 3.12+ (Lambda's runtime)

logger = Logger(service=SERVICE, logger_handler=logging.StreamHandler(sys.stderr),
                json_serializer=_json_line, json_deserializer=_decoded_message)
_formatter = logger.registered_formatter
"""Our one handler's formatter, which holds the log keys: `logger.registered_formatter` walks the logger's handlers
on every call, a third of what appending and removing a request's keys costs."""
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

# Libraries that log on their own: their loggers write through our handler (same formatter, so the same
# JSON or human style and the request's correlation id) at WARNING and up, and stop propagating, so a root
# handler someone else installed (the Lambda runtime's) never prints a second, plain copy of their lines.
# (uvicorn's `log_config`, unless None, re-installs uvicorn's own handlers when its server is configured.)
LIBRARY_LOGGERS = ("mcp", "mangum", "uvicorn", "starlette", "sse_starlette", "httpx", "httpx2", "httpcore",
                   "botocore", "boto3", "urllib3")
_LOCAL_CONTEXT_KEYS = ("mcp_method", "mcp_uri", "correlation_id")
_TRACEBACK_INDENT = "    "
_INVOCATION_KEYS = ("correlation_id", "aws_request_id")
_in_invocation: ContextVar[bool] = ContextVar("in_lambda_invocation", default=False)
_metrics_disabled = is_metrics_disabled()
"""Powertools' own switch (POWERTOOLS_METRICS_DISABLED, POWERTOOLS_DEV), read once: Lambda's environment is set
before init and never changes in a container."""
_root_handler: logging.Handler | None = None


def _escaped(value: object) -> str:
    """`value` as text with every non-printable character (newline, CR, ANSI escape, NUL, U+2028...) written
    as its Python escape (`\\n`, `\\x1b`, `\\u2028`), so it can neither end the line nor repaint the terminal."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _human_line(record: dict[str, Any]) -> str:
    """Render Powertools' structured record as one readable line for local terminals.

    The message and every context value may carry client input (a URI, a Host header) and are escaped.
    A traceback stays readable on lines of its own, each escaped and indented: a record starts at column 0
    with its timestamp, every continuation line starts with spaces, so no exception text can pass for a
    record of its own (escaping the traceback's newlines too would make it unreadable in a terminal).
    """
    keys = _LOCAL_CONTEXT_KEYS if record.get("name", SERVICE) == SERVICE else ("name", *_LOCAL_CONTEXT_KEYS)
    context = " ".join(f"{key}={_escaped(record[key])}" for key in keys if record.get(key))
    line = f"{record.get('timestamp', '')} {record.get('level', '')} {_escaped(record.get('message', ''))}"
    audit = record.get("audit")
    if isinstance(audit, dict):  # the audit line's fields, readable in a terminal too
        line += "".join(f" {key}={_escaped(value if isinstance(value, str) else to_json(value).decode())}"
                        for key, value in audit.items())
    if context:
        line += f" [{context}]"
    if record.get("exception"):
        lines = str(record["exception"]).split("\n")  # other line breaks (CR, U+2028...) are escaped below
        line += "".join(f"\n{_TRACEBACK_INDENT}{_escaped(text)}" for text in lines)
    return line


def configure(hosted: bool, level: str = "INFO") -> None:
    """Set the log style for this process and route every library's log lines through our handler.

    Idempotent: every app built in a process (tests build several) may call it; the last call's style wins.
    One event, one line: our records print only through our handler, library records only through it too,
    and the root handler the MCP SDK's `logging.basicConfig` would install (plain text, no correlation id,
    a second copy of each of our lines) is never installed: `basicConfig` does nothing once the root logger
    has a handler, and `configure` runs before the SDK's server is built (`app.create_server`).
    """
    global _root_handler
    _formatter.json_serializer = _json_line if hosted else _human_line
    logger.setLevel(level)
    # What Powertools' `copy_config_to_registered_loggers` does, with our one Powertools handler only: that
    # function copies whatever handlers our logger holds at the time, so a handler attached for a moment
    # (a test's capture) would stay on every library logger for good. Libraries not imported yet are covered
    # too: their `getLogger` will return the logger configured here.
    logger.append_keys(name="%(name)s")  # whose line it is: ours, or which library's
    for name in LIBRARY_LOGGERS:
        library = logging.getLogger(name)
        library.setLevel(logging.WARNING)  # quiet their per-request INFO noise
        if logger.registered_handler not in library.handlers:
            library.addHandler(logger.registered_handler)
        library.propagate = False
    root = logging.getLogger()
    if not root.handlers:
        # Nobody configured logging (local server, stdio, `invoke`): the root logger, which catches every other
        # library's warnings, writes our format too. It skips our own records, which our handler already wrote
        # (Powertools adds the same filter to root handlers that exist when its Logger is created, as the
        # Lambda runtime's does; handlers added later, like basicConfig's, never got it).
        if _root_handler is None:
            _root_handler = logging.StreamHandler(sys.stderr)
            _root_handler.setFormatter(logger.registered_formatter)
            _root_handler.addFilter(SuppressFilter(SERVICE))
        root.addHandler(_root_handler)


def bind_request(method: str | None, uri: str | None) -> None:
    """Put the MCP method and URI on every later log line of this request.

    Context-local (a ContextVar), so concurrent requests of the local server never
    label each other's lines.
    """
    _formatter.thread_safe_append_keys(mcp_method=method, mcp_uri=uri)


class LambdaInvocation:
    """One Lambda invocation: its log context, and its EMF line flushed on the way out, before the handler
    returns (nothing is left to print when Lambda freezes or reclaims the container).

    The correlation id is set directly rather than with `inject_lambda_context`, whose per-call context model
    costs more than the rest of our middleware together. The flush is Powertools' `flush_metrics` without its
    per-call environment lookups, and with pydantic's JSON encoder writing Powertools' metric set: the same
    compact JSON document (a number may be spelt differently, 0.00001 for 1e-05) in a third of the time of the
    standard library's. A class, not a generator-based context manager: half the cost, on every invocation.
    """

    __slots__ = ("_aws_request_id", "_request_id", "_token")

    def __init__(self, request_id: str | None, aws_request_id: str) -> None:
        self._request_id = request_id
        self._aws_request_id = aws_request_id

    def __enter__(self) -> None:
        _formatter.append_keys(correlation_id=self._request_id, aws_request_id=self._aws_request_id)
        self._token = _in_invocation.set(True)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        _in_invocation.reset(self._token)
        # Lines logged between invocations (or by a local server in the same process) carry no stale id.
        _formatter.remove_keys(_INVOCATION_KEYS)
        if metrics.metric_set:  # a GET 405 or a parse error records nothing: no empty EMF line
            if not _metrics_disabled:
                sys.stdout.write(to_json(metrics.serialize_metric_set()).decode() + "\n")
            metrics.clear_metrics()


def record_read(uri_key: str, seconds: float, error_code: str | None) -> None:
    """Latency per URI (its template, not concrete values) and errors by code, as EMF.

    Requests per URI are the Latency metric's SampleCount; invocations, duration and
    function errors are Lambda's own metrics, so none of them is emitted twice.
    """
    if not _in_invocation.get():
        return
    metrics.add_dimension(name="uri", value=uri_key)
    metrics.add_metric(name="Latency", unit=MetricUnit.Milliseconds, value=round(seconds * 1000, 3))
    if error_code is not None:
        metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        metrics.add_metric(name=f"Errors_{error_code}", unit=MetricUnit.Count, value=1)
