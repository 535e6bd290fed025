"""boto3 clients for a caller's session, with botocore's own retry mode and bounded timeouts."""

from __future__ import annotations

import threading
import weakref
from typing import Any

import boto3
from botocore.config import Config

from aws_data_mcp.config import Settings

_clients: weakref.WeakKeyDictionary[boto3.Session, dict[str, Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def client_config(settings: Settings) -> Config:
    """Standard retry mode (backoff with jitter on throttling) and timeouts well inside the request budget."""
    return Config(
        retries={"mode": "standard", "max_attempts": settings.max_attempts},
        connect_timeout=settings.aws_call_timeout_seconds,
        read_timeout=settings.aws_call_timeout_seconds,
        max_pool_connections=32,
    )


def client(session: boto3.Session, service: str, settings: Settings) -> Any:
    """A client for `service` under `session`, reused per session: clients are thread-safe and slow to build.

    The region is the session's own (profile or environment), else the server's default.
    """
    with _lock:
        per_session = _clients.setdefault(session, {})
        found = per_session.get(service)
        if found is None:
            region = session.region_name or settings.region
            found = session.client(service, region_name=region, config=client_config(settings))
            per_session[service] = found
        return found
