"""The oidc mode's discovery documents: how an MCP client finds who issues its tokens.

Cognito publishes no registration endpoint, so this API names itself the authorization server.
Its metadata lists this API's facade before Cognito's endpoints, and /register; tokens stay Cognito's.
Built per request from the URL it came through, and served without a token.
"""

from __future__ import annotations

from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from aws_data_mcp.config import Settings
from aws_data_mcp.transport.paths import route_path

METADATA_PATH = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server"
REGISTRATION_PATH = "/register"
_CACHED = {"Cache-Control": "public, max-age=3600"}


def _paths(settings: Settings, mcp_path: str) -> tuple[str, ...]:
    if settings.auth_mode != "oidc" or not settings.oidc_issuer:
        return ()
    resource = (METADATA_PATH, METADATA_PATH + mcp_path)
    return (*resource, AUTHORIZATION_SERVER_PATH) if settings.sign_in_domain else resource


def is_metadata_request(scope: Scope, settings: Settings, mcp_path: str) -> bool:
    """A GET of one of the discovery documents this deployment publishes (none outside the oidc mode)."""
    return scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and \
        route_path(scope).rstrip("/") in _paths(settings, mcp_path)


def api_base_url(scope: Scope) -> str:
    """This API as the client reached it (scheme, host, stage): the issuer it is told to ask for its metadata."""
    scheme = "http" if scope.get("scheme") == "http" else "https"
    return f"{scheme}://{Headers(scope=scope).get('host', 'localhost')}{scope.get('root_path', '')}"


def resource_url(scope: Scope, mcp_path: str) -> str:
    """The MCP URL as the client reached it: its scheme, API Gateway's host, the stage, /mcp.

    The scheme is the request's own (Mangum takes it from X-Forwarded-Proto, which API Gateway sets to https on
    every request: deployed, the resource is always https). Only an explicit http, as the local demo front
    sends, gives an http URL; anything else stays https, so a client is never told a weaker scheme by mistake.
    """
    return api_base_url(scope) + mcp_path


def authorization_server_metadata(scope: Scope, settings: Settings, mcp_path: str) -> OAuthMetadata:
    """RFC 8414 metadata of the Cognito pool's sign-in, through this API's facade and registration endpoint:
    public clients, PKCE (S256), the code grant and refresh, the resource server's scope (and openid), client
    metadata documents and RFC 9207's `iss`.

    The registration function's scopes are imported here, where a client first asks: with them comes its redirect
    allowlist, which no MCP request needs and every cold start would otherwise load."""
    from aws_data_mcp.sign_in.registration import client_scopes

    base = api_base_url(scope)
    return OAuthMetadata.model_validate({
        "issuer": base,
        # This API's facade in front of Cognito's: it maps documents to app clients and adds RFC 9207's `iss`.
        "authorization_endpoint": base + "/authorize",
        "token_endpoint": base + "/token",
        "revocation_endpoint": base + "/revoke",
        "registration_endpoint": base + REGISTRATION_PATH,
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
        "scopes_supported": list(client_scopes(resource_url(scope, mcp_path))),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
    })


async def serve_metadata(scope: Scope, receive: Receive, send: Send, settings: Settings, mcp_path: str) -> None:
    if route_path(scope).rstrip("/") == AUTHORIZATION_SERVER_PATH:
        metadata: OAuthMetadata | ProtectedResourceMetadata = authorization_server_metadata(scope, settings, mcp_path)
    else:
        # Validated by the model, whose URLs keep an empty path: `AnyHttpUrl(issuer)` alone made `http://host` into
        # `http://host/`, another issuer to a client comparing them as RFC 8414 says (exact strings). With the
        # Cognito pool, the authorization server is this API (its metadata above), not the pool's issuer.
        server = api_base_url(scope) if settings.sign_in_domain else settings.oidc_issuer
        metadata = ProtectedResourceMetadata.model_validate({
            "resource": resource_url(scope, mcp_path),
            "authorization_servers": [server],
            "resource_name": "aws-data-mcp",
        })
    response = PydanticJSONResponse(content=metadata, headers=_CACHED)
    await response(scope, receive, send)
