"""Server settings, read once from the environment.

Reading only the environment (no AWS calls, no randomness) keeps module init
snapshot-safe for Lambda SnapStart.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from aws_data_mcp import __version__

DeploymentMode = Literal["lambda", "local", "demo"]
AuthMode = Literal["local", "oidc", "iam"]

PROTOCOL_REVISIONS: tuple[str, ...] = ("2025-11-25", "2026-07-28")
"""The revisions served on /mcp: 2025-11-25 (and the older ones the SDK negotiates) stateless, 2026-07-28."""

ENV_PREFIX = "AWS_DATA_MCP_"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _env(name: str, default: str) -> str:
    return os.environ.get(ENV_PREFIX + name, default)


def _default_mode() -> DeploymentMode:
    return "lambda" if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") else "local"


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with the defaults a local user gets."""

    mode: DeploymentMode = "local"
    auth_mode: AuthMode = "local"
    region: str = "us-east-1"
    version: str = __version__
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_hosts: tuple[str, ...] = ()
    """Extra Host header values accepted by DNS-rebinding protection (local HTTP only)."""
    aws_call_timeout_seconds: float = 5.0
    request_timeout_seconds: float = 25.0
    """Whole-request budget: under API Gateway's 30 s integration timeout."""
    max_attempts: int = 3
    response_char_budget: int = 50_000
    max_request_body_bytes: int = 1_048_576
    list_page_size: int = 100
    cache_ttl_seconds: float = 30.0
    """How long a caller's AWS results are reused for the same URI; 0 turns the cache off."""
    fanout_width: int = 32
    """Concurrent AWS calls per fan-out (per bucket, workgroup, user...); also botocore's connection pool size."""
    query_history_default: int = 50
    query_history_max: int = 500
    tabulator_workgroup: str = "primary"
    """The Athena workgroup the server's table queries use."""
    tabulator_databases: tuple[str, ...] = ()
    """The Glue databases in scope for table queries; empty means all."""
    open_query_enabled: bool = False
    """Whether free-form SQL queries are enabled (off: only the server's own table queries)."""
    protocol_revisions: tuple[str, ...] = field(default=PROTOCOL_REVISIONS)

    def __post_init__(self) -> None:
        if not self.hosted and self.host not in LOOPBACK_HOSTS:
            raise ValueError(f"host {self.host!r}: the local server acts with your own AWS credentials and has no "
                             f"authentication of its own, so it binds loopback only ({', '.join(LOOPBACK_HOSTS)})")

    @property
    def hosted(self) -> bool:
        """True on Lambda, where identity must come from API Gateway and never from the local chain."""
        return self.mode == "lambda"

    @classmethod
    def from_env(cls, default_mode: DeploymentMode | None = None) -> Settings:
        mode: DeploymentMode = _env("MODE", default_mode or _default_mode())  # type: ignore[assignment]
        if mode not in ("lambda", "local", "demo"):
            raise ValueError(f"{ENV_PREFIX}MODE must be lambda, local or demo, not {mode!r}")
        auth_mode: AuthMode = _env("AUTH_MODE", "iam" if mode == "lambda" else "local")  # type: ignore[assignment]
        if auth_mode not in ("local", "oidc", "iam"):
            raise ValueError(f"{ENV_PREFIX}AUTH_MODE must be local, oidc or iam, not {auth_mode!r}")
        if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") and mode != "lambda":
            raise ValueError(f"{ENV_PREFIX}MODE={mode!r} on Lambda would serve the function's own role: refused")
        if mode == "lambda" and auth_mode == "local":
            raise ValueError("auth mode 'local' would use the function's own role: it is refused on Lambda")
        hosts = tuple(h.strip() for h in _env("ALLOWED_HOSTS", "").split(",") if h.strip())
        return cls(
            mode=mode,
            auth_mode=auth_mode,
            region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
            host=_env("HOST", "127.0.0.1"),
            port=int(_env("PORT", "8000")),
            allowed_hosts=hosts,
            aws_call_timeout_seconds=float(_env("AWS_CALL_TIMEOUT", "5")),
            request_timeout_seconds=float(_env("REQUEST_TIMEOUT", "25")),
            max_attempts=int(_env("MAX_ATTEMPTS", "3")),
            response_char_budget=int(_env("RESPONSE_CHAR_BUDGET", "50000")),
            max_request_body_bytes=int(_env("MAX_REQUEST_BODY_BYTES", "1048576")),
            list_page_size=int(_env("LIST_PAGE_SIZE", "100")),
            cache_ttl_seconds=float(_env("CACHE_TTL", "30")),
            fanout_width=int(_env("FANOUT_WIDTH", "32")),
            tabulator_workgroup=_env("TABULATOR_WORKGROUP", "primary"),
            tabulator_databases=tuple(d.strip() for d in _env("TABULATOR_DATABASES", "").split(",") if d.strip()),
            open_query_enabled=_env("OPEN_QUERY", "false").lower() in ("1", "true", "yes", "on"),
        )
