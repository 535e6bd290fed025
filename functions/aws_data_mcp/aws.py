"""boto3 clients for a caller's session: standard retries, bounded timeouts, the request's deadline.

No attempt starts after the deadline, and each read timeout shrinks to it. Every request is counted
for, and marked with, the MCP call it serves (`audit`). All sessions share one botocore loader:
hosted, each caller has a session, and a model parsed per session would cost every one. `warm_up`
parses them in init. Endpoints are kept for more buckets than botocore's cache
(`ENDPOINT_CACHE_SIZE`). AWS timestamps skip dateutil's general parser (`parse_aws_timestamp`).
"""

from __future__ import annotations

import datetime
import email.utils
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import boto3
from botocore import UNSIGNED
from botocore.config import Config
from botocore.endpoint_provider import EndpointProvider
from botocore.loaders import Loader
from botocore.utils import lru_cache_weakref, parse_timestamp
from dateutil.tz import tzutc

from aws_data_mcp.audit import mark_aws_request
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import DeadlineExceeded
from aws_data_mcp.reading.call_memo import ClientMemo

_clients: weakref.WeakKeyDictionary[boto3.Session, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_loader: Loader | None = None
WORKER_THREADS = 40
"""anyio's default worker-thread limit: reads and the SDK's synchronous tools call AWS from up to this many threads
at once, beside the fan-outs' own."""
SERVICES = ("sts", "s3", "iam", "athena", "glue", "sso-admin")
"""The services the identity seam, the resolvers and the tools call."""
_deadline: ContextVar[float | None] = ContextVar("aws_data_mcp_deadline", default=None)
ENDPOINT_CACHE_SIZE = 4096
"""Resolved endpoints kept process-wide. botocore keeps 100 for all clients together, and an S3 endpoint is resolved
per bucket (the bucket is one of its rules' inputs; a bucket's control calls are another): over more than about
50 buckets (permissions://discover) every call resolved its endpoint anew, a third of an S3 call's CPU."""


def _keep_more_endpoints() -> None:
    """botocore's endpoint resolution, cached for `ENDPOINT_CACHE_SIZE` parameter sets instead of its 100: the same
    function and the same weakly-held provider key, a larger bound. A botocore whose resolver is shaped otherwise
    keeps its own cache."""
    cached = getattr(EndpointProvider, "_resolve_endpoint", None)
    resolve = getattr(cached, "__wrapped__", None)
    if resolve is not None:
        EndpointProvider._resolve_endpoint = lru_cache_weakref(maxsize=ENDPOINT_CACHE_SIZE)(resolve)  # type: ignore[method-assign]


_keep_more_endpoints()


@contextmanager
def deadline_scope(deadline: float) -> Iterator[None]:
    """Every AWS call made in this context (and in fan-out workers it spawns) ends by `deadline`
    (a `time.monotonic()` value)."""
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def current_deadline() -> float | None:
    """The current request's deadline (a `time.monotonic()` value); None outside a request."""
    return _deadline.get()


def seconds_to_aws_deadline() -> float | None:
    """Seconds left before the deadline of AWS calls in this context (`deadline_scope`); None outside one."""
    deadline = _deadline.get()
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def _bound_by_deadline(request: Any, **_: Any) -> None:
    """`before-send`, before every attempt (retries included): none starts once the deadline has passed, and
    the attempt's read timeout is cut to the time left, so a slow endpoint answers `timeout` at the deadline
    instead of holding a worker and a pooled connection for the full per-call timeout.

    botocore (1.44 on) reads a per-request `read_timeout` from the request context and passes it to urllib3 for
    that request only; an older botocore ignores it and an attempt keeps the configured timeout (the fan-out
    still answers at the deadline). The connect timeout stays the client's: botocore sets it per pool.
    """
    left = seconds_to_aws_deadline()
    if left is None:
        return
    if left <= 0:
        raise DeadlineExceeded()
    configured = request.context.get("client_config")
    ceiling = getattr(configured, "read_timeout", None) or left
    request.context["read_timeout"] = min(ceiling, left)


def _no_retry_after_deadline(**_: Any) -> bool | None:
    """`needs-retry`, ahead of the standard retry handler: once the deadline has passed (a read timed out at
    it), the call ends now with what it got, instead of sleeping a backoff only to be refused. `False` is
    botocore's "do not retry"; None leaves the decision to the standard mode."""
    left = seconds_to_aws_deadline()
    return False if left is not None and left <= 0 else None


def client_config(settings: Settings) -> Config:
    """Standard retry mode (backoff with jitter on throttling), timeouts well inside the request budget,
    and a connection pool as wide as a fan-out, so parallel calls never queue for a connection."""
    return Config(
        retries={"mode": "standard", "total_max_attempts": settings.max_attempts},  # the first attempt included
        connect_timeout=settings.aws_call_timeout_seconds,
        read_timeout=settings.aws_call_timeout_seconds,
        max_pool_connections=pool_size(settings),
    )


def pool_size(settings: Settings) -> int:
    """Connections kept per client: a full fan-out beside every worker thread's own call, so no connection that a
    burst opened is discarded (urllib3's "Connection pool is full") only to be opened again."""
    return settings.fanout_width + WORKER_THREADS


def parse_aws_timestamp(value: Any) -> datetime.datetime:
    """botocore's timestamp parser, with a fast path for the two forms AWS sends in UTC: ISO 8601 ending in Z (XML
    bodies: an S3 listing's LastModified, IAM's dates) and RFC 1123 in GMT (headers: HeadObject's Last-Modified).
    dateutil's general parser took about a tenth of an S3 call's CPU for one such timestamp; the instant and its
    rendering (`+00:00`) are the same. Any other form goes to botocore's parser as before."""
    if isinstance(value, str) and value.endswith(("Z", " GMT")):
        try:
            parsed = (datetime.datetime.fromisoformat(value) if value.endswith("Z")
                      else email.utils.parsedate_to_datetime(value))
        except (TypeError, ValueError):
            parsed = None
        if parsed is not None and parsed.utcoffset() == datetime.timedelta(0):
            return parsed.replace(tzinfo=tzutc())
    return parse_timestamp(value)  # type: ignore[no-any-return]


def _prepare_session(session: boto3.Session) -> None:
    """Before a session's first client: the process's loader, and AWS timestamps parsed on the fast path."""
    _share_loader(session)
    session._session.get_component("response_parser_factory").set_parser_defaults(
        timestamp_parser=parse_aws_timestamp)


def _share_loader(session: boto3.Session) -> None:
    """Give `session` the process's loader (the first session's own), so it parses no model another already did."""
    global _loader
    if _loader is None:
        _loader = session._session.get_component("data_loader")
    else:
        session._session.register_component("data_loader", _loader)


def warm_up(settings: Settings) -> None:
    """Parse every service's model and endpoint rules now (an init phase: SnapStart's, provisioned concurrency's),
    so that no first read pays for it. Unsigned clients: no credential is looked up or created."""
    session = boto3.Session(region_name=settings.region)
    with _lock:
        _share_loader(session)
    for service in SERVICES:
        session.client(service, config=Config(signature_version=UNSIGNED))


def client(session: boto3.Session, service: str, settings: Settings, region: str | None = None) -> Any:
    """A client for `service` under `session`, reused per session and region: clients are thread-safe and
    slow to build (the models they are built from are parsed once per process, see `_share_loader`).

    The region is `region` when given (a bucket's own), else the session's (profile or environment),
    else the server's default.
    """
    region = region or session.region_name or settings.region
    with _lock:
        per_session = _clients.get(session)
        if per_session is None:
            _prepare_session(session)
            per_session = _clients[session] = {}
        found = per_session.get((service, region))
        if found is None:
            found = session.client(service, region_name=region, config=client_config(settings))
            found.meta.events.register("before-send", _bound_by_deadline)
            # First of all: every attempt is counted and marked, even one a later handler answers or refuses.
            found.meta.events.register_first("before-send", mark_aws_request)
            service_id = found.meta.service_model.service_id.hyphenize()
            ClientMemo(seconds_to_aws_deadline).register(found.meta.events, service_id)  # a read asks each once
            # The standard handler is registered on `needs-retry.<service>`: first there is first of all.
            found.meta.events.register_first(f"needs-retry.{service_id}", _no_retry_after_deadline)
            per_session[(service, region)] = found
        return found
