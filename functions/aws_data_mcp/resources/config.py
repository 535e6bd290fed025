"""config://: how this deployment is configured. Nothing secret, no ARNs of the deployment's own roles."""

from __future__ import annotations

from typing import TypedDict

from aws_data_mcp.identity.accounts import ORG_WIDE_URIS
from aws_data_mcp.registry import ResourceRequest, registry

QUERY_CHECK = ("usable is not known here (this document reads no AWS): athena://workgroups says, for you, whether "
               "queries can run in it and why not (it must be enabled, with a per-query bytes-scanned cutoff its "
               "configuration enforces, and yours to use); every query checks it again before it starts")


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
    """What athena_query may do here: its workgroups (the first the default), how they are checked, the catalogs it
    may read, and the operator's caps."""
    accounts: dict[str, object]
    """The accounts a caller may name (`?account=`, a tool's `account`) and the role they act as there."""


@registry.resource(
    "config://server",
    name="server-config",
    title="Server configuration",
    description="Version, deployment mode, auth mode, protocol revisions, timeouts, limits (response budget, "
    "body size, page size), region, the queries' workgroups (the default first; athena://workgroups says which "
    "are usable for you), catalogs and caps, and the accounts callers may name.",
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
        queries={"enabled": bool(settings.query_workgroups),
                 "default_workgroup": settings.query_workgroups[0] if settings.query_workgroups else None,
                 "workgroups": [{"name": name, "default": index == 0, "usable": None, "checked": QUERY_CHECK}
                                for index, name in enumerate(settings.query_workgroups)],
                 "catalogs": list(settings.query_catalogs),
                 "max_rows": settings.query_max_rows, "wait_seconds": settings.query_wait_seconds,
                 "price_per_tb_usd": settings.athena_price_per_tb},
        accounts={"listed": [{"name": name, "id": number} for name, number in settings.accounts],
                  "role": settings.account_role, "org_wide": sorted(ORG_WIDE_URIS),
                  "default": "the caller's home account"},
    )


class SecurityConfig(TypedDict):
    auth_mode: str
    fail_closed: bool
    policy: list[str]
    guarantees: list[str]
    """What this auth mode guarantees by itself."""
    relies_on_deployment: list[str]
    """What holds only if the deployment does its part: without it, the guarantees above do not hold."""
    identity_source: str
    redacted: list[str]
    dns_rebinding_protection: bool
    limits: dict[str, int]


_HOSTED_RELIES_ON = (
    "Only this API may invoke the function (its resource policy; no identity policy grants lambda:InvokeFunction): "
    "a direct invoke can name any caller in its requestContext.",
    "API Gateway route throttling and the function's reserved concurrency bound what any caller, or the public "
    "well-known routes, can cost.",
)
_GUARANTEES: dict[str, tuple[str, ...]] = {
    "iam": (
        "A request acts as the role API Gateway's SigV4 check named (or the role PrincipalRoleMap gives an IAM user), "
        "assumed again with STS: exactly that role's permissions.",
        "A role session's name counts as a person only for the roles in PINNED_SESSION_ROLES: only their callers get "
        "workflows of their own, SourceIdentity and session-keyed PrincipalRoleMap entries. Any other session's "
        "caller is their role: its workflows are shared by every caller of the role.",
    ),
    "oidc": (
        "A token is exchanged (AssumeRoleWithWebIdentity) for the role the role map gives its principal tag (or "
        "subject); a token whose tag STS would read otherwise is refused before any AWS call.",
    ),
    "local": ("Every AWS call is made with your own credential chain; the HTTP server binds loopback and asks for "
              "a bearer token.",),
}
_RELIES_ON: dict[str, tuple[str, ...]] = {
    "iam": (
        *_HOSTED_RELIES_ON,
        "CallerRoleArnPattern names only the roles callers use: the function may assume any role in it whose trust "
        "admits the function's role.",
        "PINNED_SESSION_ROLES names only roles whose trust really pins sts:RoleSessionName to the person.",
        "A caller's scoped-down session (a session policy, session tags) is not carried over: the function assumes "
        "the whole role again. Scope the role itself, not the session.",
    ),
    "oidc": (
        *_HOSTED_RELIES_ON,
        "Each role's trust checks the token's audience and the same principal tag (or subject) the role map reads "
        "(README, oidc; a refusal prints the statements): otherwise any token holder can call STS directly for it.",
        "Only the identity provider sets the role tag (users cannot edit the attribute it comes from).",
    ),
    "local": ("Nobody else can read your state directory (the token file, the workflow store).",),
}


@registry.resource(
    "config://security",
    name="security-config",
    title="Security posture",
    description="Auth mode, the fail-closed policy, what the auth mode guarantees and what it relies on the "
    "deployment for, what is redacted and the size limits. Nothing secret.",
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
        guarantees=list(_GUARANTEES[settings.auth_mode]),
        relies_on_deployment=list(_RELIES_ON[settings.auth_mode]),
        identity_source="api-gateway-request-context" if settings.hosted else "local-credential-chain",
        redacted=["authorization headers", "bearer tokens", "secret access keys", "session tokens", "cookies"],
        dns_rebinding_protection=not settings.hosted,
        limits={
            "max_request_body_bytes": settings.max_request_body_bytes,
            "response_char_budget": settings.response_char_budget,
        },
    )
