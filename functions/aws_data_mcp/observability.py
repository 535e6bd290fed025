"""Logging and metrics: Powertools Logger and EMF Metrics, configured once per process.

On Lambda: JSON lines carrying the API Gateway request id as correlation id, and
EMF metrics flushed by the handler. Locally: human-readable lines on stderr
(stdout belongs to the stdio transport) and no metrics.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

SERVICE = "aws-data-mcp"
NAMESPACE = "AwsDataMcp"

logger = Logger(service=SERVICE, logger_handler=logging.StreamHandler(sys.stderr))
_json_line = logger.registered_formatter.json_serializer
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

_QUIET_LOGGERS = ("mcp", "httpx", "httpx2", "botocore", "boto3", "urllib3", "uvicorn.access", "mangum", "sse_starlette")
_LOCAL_CONTEXT_KEYS = ("mcp_method", "mcp_uri", "correlation_id")
_in_invocation: ContextVar[bool] = ContextVar("in_lambda_invocation", default=False)


def _human_line(record: dict[str, Any]) -> str:
    """Render Powertools' structured record as one readable line for local terminals."""
    context = " ".join(f"{key}={record[key]}" for key in _LOCAL_CONTEXT_KEYS if record.get(key))
    line = f"{record.get('timestamp', '')} {record.get('level', '')} {record.get('message', '')}"
    if context:
        line += f" [{context}]"
    if record.get("exception"):
        line += "\n" + str(record["exception"])
    return line


def configure(hosted: bool, level: str = "INFO") -> None:
    """Set the log style for this process and quiet the SDK's per-request INFO noise."""
    logger.registered_formatter.json_serializer = _json_line if hosted else _human_line
    logger.setLevel(level)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def bind_request(method: str | None, uri: str | None) -> None:
    """Put the MCP method and URI on every later log line of this request.

    Context-local (a ContextVar), so concurrent requests of the local server never
    label each other's lines.
    """
    logger.thread_safe_append_keys(mcp_method=method, mcp_uri=uri)


@contextmanager
def lambda_invocation(request_id: str | None, aws_request_id: str) -> Iterator[None]:
    """One Lambda invocation: its log context, and its EMF line flushed on the way out.

    The correlation id is set directly rather than with `inject_lambda_context`, whose
    per-call context model costs more than the rest of our middleware together.
    """
    logger.set_correlation_id(request_id)
    logger.append_keys(aws_request_id=aws_request_id)
    token = _in_invocation.set(True)
    try:
        yield
    finally:
        _in_invocation.reset(token)
        if metrics.metric_set:  # a GET 405 or a parse error records nothing: no empty EMF line
            metrics.flush_metrics()


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
