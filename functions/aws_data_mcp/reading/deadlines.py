"""A request's deadline and budget: the seconds the transport edge leaves it, never more than the server's timeout.

The Lambda edge puts the deadline in the ASGI scope; stdio and local HTTP set none. The server, the
reader and the tools read it here. So every path measures the same budget.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from mcp.server.context import ServerRequestContext

DEADLINE_SCOPE_KEY = "aws_data_mcp.deadline"
"""ASGI scope key: the `time.monotonic()` by which a request must be answered (set by the Lambda edge)."""


def request_scope(ctx: ServerRequestContext[Any, Any] | None) -> Mapping[str, Any] | None:
    """The ASGI scope of the HTTP request behind `ctx` (None under stdio)."""
    request = getattr(ctx, "request", None) if ctx is not None else None
    return getattr(request, "scope", None)


def seconds_to_edge_deadline(ctx: ServerRequestContext[Any, Any] | None) -> float | None:
    """Seconds until the deadline the transport edge set on the request behind `ctx`, if it set one."""
    scope = request_scope(ctx)
    deadline = scope.get(DEADLINE_SCOPE_KEY) if scope else None
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def request_budget(seconds_left: float | None, timeout_seconds: float) -> float:
    """Seconds a request may take: what is left before its edge deadline, and never longer than the server's
    own request timeout (all of it where no edge set a deadline)."""
    return timeout_seconds if seconds_left is None else min(seconds_left, timeout_seconds)
