"""RFC 9728 metadata names the authorization server exactly as configured: RFC 8414 compares issuer strings
exactly, so `http://host/` for an issuer `http://host` is another issuer to a client that checks."""

from __future__ import annotations

import json

import pytest

from aws_data_mcp.config import Settings
from support.events import http_api_event
from support.servers import lambda_container


@pytest.mark.parametrize("issuer", ["http://127.0.0.1:8123", "https://idp.example.com", "https://issuer.example.com/",
                                    "https://login.example.com/realms/acme"])
def test_the_issuer_is_published_exactly_as_configured(issuer: str) -> None:
    settings = Settings(mode="lambda", auth_mode="oidc", oidc_issuer=issuer)
    event = http_api_event(None, method="GET", path="/.well-known/oauth-protected-resource")
    answer = lambda_container(settings)(event)
    assert answer["statusCode"] == 200
    assert json.loads(answer["body"])["authorization_servers"] == [issuer]
