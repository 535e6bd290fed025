"""config://: how this deployment is configured. Nothing secret, no ARNs of the deployment's own roles."""

from __future__ import annotations

from typing import TypedDict

from aws_data_mcp.registry import ResourceRequest, registry


class ServerConfig(TypedDict):
    name: str
    version: str
    deployment_mode: str
    auth_mode: str
    protocol_revisions: list[str]
    transport: dict[str, object]
    timeouts: dict[str, float]
    limits: dict[str, int]
    region: str
    workflows: dict[str, str]
    queries: dict[str, object]
    """What athena_query may do here: its workgroups (the first the default) and the operator's caps."""


@registry.resource(
    "config://server",
    name="server-config",
    title="Server configuration",
    description="Version, deployment mode, auth mode, protocol revisions, timeouts, limits (response budget, "
    "body size, page size), region, and the queries' workgroups and caps.",
)
def server_config(request: ResourceRequest) -> ServerConfig:
    settings = request.settings
    return ServerConfig(
        name="aws-data-mcp",
        version=settings.version,
        deployment_mode=settings.mode,
        auth_mode=settings.auth_mode,
        protocol_revisions=list(settings.protocol_revisions),
        transport={
            "endpoint": "/mcp",
            # Locally a 2025-11-25 client that initializes gets a session (live updates); Lambda keeps none.
            "stateless": settings.hosted,
            "json_response": True,
            "streaming": not settings.hosted,
        },
        timeouts={
            "request_seconds": settings.request_timeout_seconds,
            "aws_call_seconds": settings.aws_call_timeout_seconds,
            "aws_max_attempts": settings.max_attempts,
        },
        limits={
            "response_char_budget": settings.response_char_budget,
            "max_request_body_bytes": settings.max_request_body_bytes,
            "list_page_size": settings.list_page_size,
        },
        region=settings.region,
        workflows={"store": settings.workflow_store,
                   "location": settings.workflow_table if settings.workflow_store == "dynamodb"
                   else settings.workflow_db_path},
        queries={"enabled": bool(settings.query_workgroups), "workgroups": list(settings.query_workgroups),
                 "max_rows": settings.query_max_rows, "wait_seconds": settings.query_wait_seconds,
                 "price_per_tb_usd": settings.athena_price_per_tb},
    )


class SecurityConfig(TypedDict):
    auth_mode: str
    fail_closed: bool
    policy: list[str]
    identity_source: str
    redacted: list[str]
    dns_rebinding_protection: bool
    limits: dict[str, int]


@registry.resource(
    "config://security",
    name="security-config",
    title="Security posture",
    description="Auth mode, the fail-closed policy, what is redacted and the size limits. Nothing secret.",
)
def security_config(request: ResourceRequest) -> SecurityConfig:
    settings = request.settings
    return SecurityConfig(
        auth_mode=settings.auth_mode,
        fail_closed=True,
        policy=[
            "Every AWS call is made with the caller's own credentials, never the server's.",
            "A request whose caller cannot be resolved makes no AWS call and gets authentication_required.",
            "Hosted, identity comes only from API Gateway's requestContext, never from client-set headers.",
            "Nothing cached for one caller is served to another.",
        ],
        identity_source="api-gateway-request-context" if settings.hosted else "local-credential-chain",
        redacted=["authorization headers", "bearer tokens", "secret access keys", "session tokens", "cookies"],
        dns_rebinding_protection=not settings.hosted,
        limits={
            "max_request_body_bytes": settings.max_request_body_bytes,
            "response_char_budget": settings.response_char_budget,
        },
    )
