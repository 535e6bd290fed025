"""A Cognito user pool as the template makes it (moto), with the one API moto lacks stood in for, and a record of
every Cognito call, so a test can say both what was created and that a refusal called nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from moto import mock_aws

from aws_data_mcp.sign_in.redirect_allowlist import allowlist
from aws_data_mcp.sign_in.registration import RegistrationPolicy

API_URL = "https://abc123.execute-api.us-east-1.amazonaws.com"
MCP_URL = f"{API_URL}/mcp"
FACADE_CALLBACK = f"{API_URL}/callback"
"""Every app client also lists it: Cognito redirects there, and the facade on to the client with `iss`."""
PATTERNS = ("http://localhost:*", "http://127.0.0.1:*", "https://claude.ai/api/mcp/auth_callback",
            "https://vscode.dev/redirect", "cursor://anysphere.cursor-mcp/oauth/callback")


@dataclass
class Pool:
    client: Any
    policy: RegistrationPolicy
    calls: list[str] = field(default_factory=list)
    """Every Cognito operation called through `client` after the pool was made."""
    brandings: list[dict[str, Any]] = field(default_factory=list)


class _Ok:
    status_code = 200


def attach_recorder(client: Any, pool: Pool) -> None:
    """Record each call; answer CreateManagedLoginBranding (newer than moto) as Cognito documents it."""

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        pool.calls.append(model.name)
        if model.name == "CreateManagedLoginBranding":
            pool.brandings.append(dict(params))

    def stand_in(model: Any, **_: Any) -> tuple[_Ok, dict[str, Any]] | None:
        if model.name != "CreateManagedLoginBranding":
            return None
        return _Ok(), {"ManagedLoginBranding": {"ManagedLoginBrandingId": f"style-{len(pool.brandings)}",
                                                "UseCognitoProvidedValues": True}}

    client.meta.events.register("before-parameter-build.cognito-identity-provider", record)
    client.meta.events.register("before-call.cognito-identity-provider", stand_in)


@pytest.fixture(scope="session")
def cognito_session() -> boto3.Session:
    """The session of every test's Cognito client: it reads Cognito's API model once, not once a test (a tenth of
    a second each)."""
    return boto3.Session(region_name="us-east-1")


@pytest.fixture(name="pool")
def pool_fixture(monkeypatch: pytest.MonkeyPatch, cognito_session: boto3.Session) -> Iterator[Pool]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        client = cognito_session.client("cognito-idp")
        pool_id = client.create_user_pool(PoolName="aws-data-mcp", UserPoolTier="ESSENTIALS")["UserPool"]["Id"]
        client.create_resource_server(UserPoolId=pool_id, Identifier=MCP_URL, Name="aws-data-mcp",
                                      Scopes=[{"ScopeName": "mcp", "ScopeDescription": "Use the MCP server"}])
        made = Pool(client, RegistrationPolicy(pool_id, allowlist(PATTERNS)))
        attach_recorder(client, made)
        yield made
