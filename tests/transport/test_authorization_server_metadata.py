"""With the template's Cognito user pool, an MCP client's discovery ends at this API: the protected-resource
metadata names it as the authorization server, and its RFC 8414 metadata lists its own facade in front of Cognito
(authorize, token, revoke), its /register, Client ID Metadata Documents and RFC 9207's `iss`.
Followed here as the MCP SDK's OAuth client follows it: its own URL
derivation, its own models, its own issuer check (RFC 8414 section 3.3)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    validate_metadata_issuer,
)
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

from aws_data_mcp.config import Settings
from support.events import http_api_event
from support.servers import lambda_container

HOST = "https://abc123.execute-api.us-east-1.amazonaws.com"
DOMAIN = "https://aws-data-mcp-example.auth.us-east-1.amazoncognito.com"
POOL_ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_EXAMPLE"
COGNITO = Settings(mode="lambda", auth_mode="oidc", oidc_issuer=POOL_ISSUER, sign_in_domain=DOMAIN,
                   oidc_role_arn="arn:aws:iam::123456789012:role/DataAnalyst", expected_api_stage="$default")


def get(invoke: Any, url: str, stage: str = "$default") -> dict[str, Any]:
    """GET `url` of this API, as API Gateway passes it to the function (the stage is in the path)."""
    assert url.startswith(HOST), url
    path = url.removeprefix(HOST)
    if stage != "$default":
        path = path.removeprefix(f"/{stage}")
    return invoke(http_api_event(None, method="GET", path=path, stage=stage))


def discover(stage: str = "$default") -> tuple[ProtectedResourceMetadata, OAuthMetadata]:
    """The SDK client's discovery, from the MCP URL to the authorization server's metadata."""
    invoke = lambda_container(COGNITO)
    server_url = f"{HOST}/mcp" if stage == "$default" else f"{HOST}/{stage}/mcp"
    resource_answer = get(invoke, build_protected_resource_metadata_discovery_urls(None, server_url)[0], stage)
    assert resource_answer["statusCode"] == 200
    resource = ProtectedResourceMetadata.model_validate_json(resource_answer["body"])
    issuer = str(resource.authorization_servers[0])
    server_answer = get(invoke, build_oauth_authorization_server_metadata_discovery_urls(issuer, server_url)[0],
                        stage)
    assert server_answer["statusCode"] == 200, server_answer
    assert server_answer["headers"]["content-type"] == "application/json"
    metadata = OAuthMetadata.model_validate_json(server_answer["body"])
    validate_metadata_issuer(metadata, issuer)  # the SDK refuses metadata of another issuer
    return resource, metadata


def test_the_sdk_client_finds_this_apis_facade_registration_and_documents() -> None:
    resource, metadata = discover()

    assert str(resource.resource) == f"{HOST}/mcp"
    assert [str(server) for server in resource.authorization_servers] == [HOST]
    assert str(metadata.issuer) == HOST
    assert str(metadata.authorization_endpoint) == f"{HOST}/authorize"
    assert str(metadata.token_endpoint) == f"{HOST}/token"
    assert str(metadata.revocation_endpoint) == f"{HOST}/revoke"
    assert str(metadata.registration_endpoint) == f"{HOST}/register"  # DCR stays, for clients without a document
    assert metadata.client_id_metadata_document_supported is True
    assert metadata.authorization_response_iss_parameter_supported is True
    assert metadata.code_challenge_methods_supported == ["S256"]
    assert metadata.response_types_supported == ["code"]
    assert metadata.grant_types_supported == ["authorization_code", "refresh_token"]
    assert metadata.token_endpoint_auth_methods_supported == ["none"]
    assert metadata.scopes_supported == ["openid", f"{HOST}/mcp/mcp"]


def test_a_named_stage_is_part_of_the_issuer_and_every_url_of_this_api() -> None:
    """Served under /<Stage>; a client derives the host-root address, which only $default serves (docs/auth.md)."""
    invoke = lambda_container(COGNITO)
    answer = invoke(http_api_event(None, method="GET", path="/.well-known/oauth-authorization-server", stage="prod"))

    metadata = OAuthMetadata.model_validate_json(answer["body"])
    assert str(metadata.issuer) == f"{HOST}/prod"
    assert str(metadata.registration_endpoint) == f"{HOST}/prod/register"
    assert str(metadata.authorization_endpoint) == f"{HOST}/prod/authorize"
    assert metadata.scopes_supported == ["openid", f"{HOST}/prod/mcp/mcp"]


@pytest.mark.parametrize("settings", [
    Settings(mode="lambda", auth_mode="oidc", oidc_issuer="https://login.example.com",
             oidc_role_arn="arn:aws:iam::123456789012:role/DataAnalyst"),
    Settings(mode="lambda", auth_mode="iam"),
])
def test_without_the_pool_this_api_is_no_authorization_server(settings: Settings) -> None:
    """An external issuer publishes its own metadata: this API names it and serves none of its own."""
    invoke = lambda_container(settings)
    answer = invoke(http_api_event(None, method="GET", path="/.well-known/oauth-authorization-server"))

    assert answer["statusCode"] != 200
    if settings.auth_mode == "oidc":
        resource = invoke(http_api_event(None, method="GET", path="/.well-known/oauth-protected-resource/mcp"))
        assert json.loads(resource["body"])["authorization_servers"] == ["https://login.example.com"]
