"""RFC 9728 protected-resource metadata for the oidc mode: how an MCP client finds who issues its tokens.

Built per request with the SDK's model, because the resource is the URL this request came
through (API Gateway's host and stage), which the function learns only from the request.
Served without authorization (the routes have none in the template): a client reads it
before it has a token.
"""

from __future__ import annotations

from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from aws_data_mcp.config import Settings
from aws_data_mcp.transport.paths import route_path

METADATA_PATH = "/.well-known/oauth-protected-resource"


def is_metadata_request(scope: Scope, mcp_path: str) -> bool:
    return scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and \
        route_path(scope).rstrip("/") in (METADATA_PATH, METADATA_PATH + mcp_path)


def resource_url(scope: Scope, mcp_path: str) -> str:
    """The MCP URL as the client reached it: its scheme, API Gateway's host, the stage, /mcp.

    The scheme is the request's own (Mangum takes it from X-Forwarded-Proto, which API Gateway sets to https on
    every request: deployed, the resource is always https). Only an explicit http, as the local demo front
    sends, gives an http URL; anything else stays https, so a client is never told a weaker scheme by mistake.
    """
    scheme = "http" if scope.get("scheme") == "http" else "https"
    host = Headers(scope=scope).get("host", "localhost")
    return f"{scheme}://{host}{scope.get('root_path', '')}{mcp_path}"


async def serve_metadata(scope: Scope, receive: Receive, send: Send, settings: Settings, mcp_path: str) -> None:
    # Validated by the model, whose URLs keep an empty path: `AnyHttpUrl(issuer)` alone made `http://host` into
    # `http://host/`, another issuer to a client comparing them as RFC 8414 says (exact strings).
    metadata = ProtectedResourceMetadata.model_validate({
        "resource": resource_url(scope, mcp_path),
        "authorization_servers": [settings.oidc_issuer],
        "resource_name": "aws-data-mcp",
    })
    response = PydanticJSONResponse(content=metadata, headers={"Cache-Control": "public, max-age=3600"})
    await response(scope, receive, send)
