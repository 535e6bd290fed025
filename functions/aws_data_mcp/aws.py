"""boto3 clients for a caller's session: botocore's standard retry mode, bounded timeouts, and the
request's deadline enforced on every attempt."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import boto3
from botocore.config import Config

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import DeadlineExceeded

_clients: weakref.WeakKeyDictionary[boto3.Session, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_deadline: ContextVar[float | None] = ContextVar("aws_data_mcp_deadline", default=None)


@contextmanager
def deadline_scope(deadline: float) -> Iterator[None]:
    """Every AWS call made in this context (and in fan-out workers it spawns) ends by `deadline`
    (a `time.monotonic()` value)."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining_seconds() -> float | None:
    """Seconds left before the current request's deadline; None outside a request."""
    deadline = _deadline.get()
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def _refuse_after_deadline(**_: Any) -> None:
    """`before-send` runs before every attempt, retries included: none starts once the deadline has passed."""
    left = remaining_seconds()
    if left is not None and left <= 0:
        raise DeadlineExceeded()


def client_config(settings: Settings) -> Config:
    """Standard retry mode (backoff with jitter on throttling), timeouts well inside the request budget,
    and a connection pool as wide as a fan-out, so parallel calls never queue for a connection."""
    return Config(
        retries={"mode": "standard", "max_attempts": settings.max_attempts},
        connect_timeout=settings.aws_call_timeout_seconds,
        read_timeout=settings.aws_call_timeout_seconds,
        max_pool_connections=settings.fanout_width,
    )


def client(session: boto3.Session, service: str, settings: Settings, region: str | None = None) -> Any:
    """A client for `service` under `session`, reused per session and region: clients are thread-safe and
    slow to build.

    The region is `region` when given (a bucket's own), else the session's (profile or environment),
    else the server's default.
    """
    region = region or session.region_name or settings.region
    with _lock:
        per_session = _clients.setdefault(session, {})
        found = per_session.get((service, region))
        if found is None:
            found = session.client(service, region_name=region, config=client_config(settings))
            found.meta.events.register("before-send", _refuse_after_deadline)
            per_session[(service, region)] = found
        return found
