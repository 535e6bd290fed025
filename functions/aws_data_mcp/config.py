"""Server settings, read once from the environment.

Reading only the environment (no AWS calls, no randomness) keeps module init
snapshot-safe for Lambda SnapStart.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Literal

from aws_data_mcp import __version__

DeploymentMode = Literal["lambda", "local", "demo"]
AuthMode = Literal["local", "oidc", "iam"]
WorkflowStoreKind = Literal["dynamodb", "sqlite"]

PROTOCOL_REVISIONS: tuple[str, ...] = ("2025-11-25", "2026-07-28")
"""The revisions served on /mcp: 2025-11-25 (and the older ones the SDK negotiates) stateless, 2026-07-28."""

ENV_PREFIX = "AWS_DATA_MCP_"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _env(name: str, default: str) -> str:
    return os.environ.get(ENV_PREFIX + name, default)


def _pairs(name: str) -> tuple[tuple[str, str], ...]:
    """A JSON object of strings from the environment, its order kept (first match wins where it is used)."""
    raw = _env(name, "").strip()
    if not raw:
        return ()
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{ENV_PREFIX}{name} must be a JSON object of strings: {exc.msg}") from None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{ENV_PREFIX}{name} must be a JSON object of strings, e.g. {{\"admins\": \"arn:...\"}}")
    return tuple(value.items())


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
    function_role_arn: str = ""
    """The function's own role, named only in the trust statement a refused caller is told to add."""
    expected_api_id: str = ""
    """When set, a hosted request whose requestContext names another API is refused (a forged direct invoke)."""
    session_duration_seconds: int = 3600
    """How long exchanged caller credentials last (STS DurationSeconds)."""
    principal_role_map: tuple[tuple[str, str], ...] = ()
    """iam mode: caller ARN (IAM user, federated user, or a role's ARN) -> the role to act as, in order."""
    oidc_role_arn: str = ""
    """oidc mode: the role a token is exchanged for when no claim maps to another."""
    oidc_role_claim: str = "groups"
    oidc_role_map: tuple[tuple[str, str], ...] = ()
    """oidc mode: a value of `oidc_role_claim` -> role ARN; the first entry the token's claim holds wins."""
    oidc_issuer: str = ""
    """oidc mode: the issuer API Gateway's JWT authorizer trusts, published in the protected-resource metadata."""
    workflow_store: WorkflowStoreKind = "sqlite"
    """Where workflows live: "dynamodb" (Lambda and demo: any container reads them) or "sqlite" (local)."""
    workflow_table: str = "aws-data-mcp-workflows"
    workflow_db: str = ""
    """The SQLite file; empty means `workflows.sqlite3` under the user's state directory."""
    workflow_retention_days: int = 30
    """Finished workflows expire (DynamoDB TTL) this long after their last change."""
    protocol_revisions: tuple[str, ...] = field(default=PROTOCOL_REVISIONS)

    @property
    def workflow_db_path(self) -> str:
        if self.workflow_db:
            return self.workflow_db
        state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
        return os.path.join(state, "aws-data-mcp", "workflows.sqlite3")

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
        if mode != "lambda" and auth_mode != "local":
            raise ValueError(f"{ENV_PREFIX}AUTH_MODE={auth_mode!r} needs API Gateway in front (a deployed stack, or "
                             f"`aws-data-mcp demo --auth {auth_mode}`); the local server uses your own credentials")
        hosts = tuple(h.strip() for h in _env("ALLOWED_HOSTS", "").split(",") if h.strip())
        store = _env("WORKFLOW_STORE", "sqlite" if mode == "local" else "dynamodb")
        if store not in ("dynamodb", "sqlite"):
            raise ValueError(f"{ENV_PREFIX}WORKFLOW_STORE must be dynamodb or sqlite, not {store!r}")
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
            function_role_arn=_env("FUNCTION_ROLE_ARN", ""),
            expected_api_id=_env("API_ID", ""),
            session_duration_seconds=int(_env("SESSION_DURATION", "3600")),
            principal_role_map=_pairs("PRINCIPAL_ROLE_MAP"),
            oidc_role_arn=_env("OIDC_ROLE_ARN", ""),
            oidc_role_claim=_env("OIDC_ROLE_CLAIM", "groups"),
            oidc_role_map=_pairs("OIDC_ROLE_MAP"),
            oidc_issuer=_env("OIDC_ISSUER", ""),
            workflow_store=store,  # type: ignore[arg-type]
            workflow_table=_env("WORKFLOW_TABLE", "aws-data-mcp-workflows"),
            workflow_db=_env("WORKFLOW_DB", ""),
            workflow_retention_days=int(_env("WORKFLOW_RETENTION_DAYS", "30")),
            open_query_enabled=_env("OPEN_QUERY", "false").lower() in ("1", "true", "yes", "on"),
        )
