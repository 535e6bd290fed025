"""POST /register against moto's Cognito: a client's RFC 7591 metadata becomes exactly one public app client (no
secret, code grant, the pool's scopes, the redirect URIs asked for), or is refused as RFC 7591 says with no Cognito
call at all. Bodies are the ones the MCP SDK's OAuth client sends, and its own parser reads the answers."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

from aws_data_mcp.sign_in import lambda_entries
from aws_data_mcp.sign_in.redirect_allowlist import allowlist
from aws_data_mcp.sign_in.registration import MAX_BODY_BYTES, RegistrationPolicy, register
from support.events import ROOT, load_event

from .conftest import FACADE_CALLBACK, MCP_URL, PATTERNS, Pool, attach_recorder

CLAUDE_CODE = "http://localhost:53682/callback"
VSCODE = ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"]


def metadata(redirect_uris: list[str], **changes: Any) -> bytes:
    """What the SDK's OAuth client posts to the registration endpoint."""
    sent = OAuthClientMetadata.model_validate({
        "redirect_uris": redirect_uris, "client_name": "Claude Code (aws-data-mcp)", "token_endpoint_auth_method":
        "none", "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    return json.dumps({**sent.model_dump(by_alias=True, mode="json", exclude_none=True), **changes}).encode()


def hostile(redirect_uris: list[str]) -> bytes:
    """Metadata with redirect URIs no honest client sends (the SDK's own model would not even build them)."""
    return json.dumps({**json.loads(metadata([CLAUDE_CODE])), "redirect_uris": redirect_uris}).encode()


def clients(pool: Pool) -> list[dict[str, Any]]:
    listed = pool.client.list_user_pool_clients(UserPoolId=pool.policy.user_pool_id, MaxResults=60)
    return [pool.client.describe_user_pool_client(UserPoolId=pool.policy.user_pool_id, ClientId=c["ClientId"])
            ["UserPoolClient"] for c in listed["UserPoolClients"]]


@pytest.mark.parametrize("redirect_uris", [[CLAUDE_CODE], VSCODE, ["https://claude.ai/api/mcp/auth_callback"],
                                           ["cursor://anysphere.cursor-mcp/oauth/callback"]])
def test_a_client_gets_exactly_the_public_app_client_it_asked_for(pool: Pool, redirect_uris: list[str]) -> None:
    answer = register(metadata(redirect_uris), pool.policy, pool.client, MCP_URL)

    assert answer.status == 201
    registered = OAuthClientInformationFull.model_validate(answer.body)  # as the SDK's client reads it
    assert registered.client_secret is None and registered.token_endpoint_auth_method == "none"
    assert [str(uri) for uri in registered.redirect_uris or []] == redirect_uris
    assert registered.grant_types == ["authorization_code", "refresh_token"]
    assert registered.scope == f"openid {MCP_URL}/mcp"
    (made,) = clients(pool)
    assert made["ClientId"] == registered.client_id
    assert made["CallbackURLs"] == [*redirect_uris, FACADE_CALLBACK]
    assert made["AllowedOAuthFlows"] == ["code"] and made["AllowedOAuthFlowsUserPoolClient"] is True
    assert sorted(made["AllowedOAuthScopes"]) == sorted(["openid", f"{MCP_URL}/mcp"])
    assert "ClientSecret" not in made
    assert made["SupportedIdentityProviders"] == ["COGNITO"]
    assert made["ExplicitAuthFlows"] == ["ALLOW_REFRESH_TOKEN_AUTH"]
    assert made["PreventUserExistenceErrors"] == "ENABLED"
    assert made["ClientName"] == "mcp Claude Code aws-data-mcp"
    assert pool.brandings == [{"UserPoolId": pool.policy.user_pool_id, "ClientId": registered.client_id,
                               "UseCognitoProvidedValues": True}]
    assert pool.calls == ["CreateUserPoolClient", "CreateManagedLoginBranding", "ListUserPoolClients",
                          "DescribeUserPoolClient"]


@pytest.mark.parametrize(("body", "error"), [
    (metadata(["https://evil.example/callback"]), "invalid_redirect_uri"),
    (metadata([CLAUDE_CODE, "https://evil.example/callback"]), "invalid_redirect_uri"),  # one bad URI: none
    (hostile(["http://localhost:80@evil.example/callback"]), "invalid_redirect_uri"),  # a user name, then a host
    (hostile(["http://localhost:1.evil.example/callback"]), "invalid_redirect_uri"),
    (hostile(["http://localhost:5000/callback#fragment"]), "invalid_redirect_uri"),
    (hostile(["https://claude.ai/api/mcp/auth_callback/../../evil"]), "invalid_redirect_uri"),
    (json.dumps({"client_name": "no redirect"}).encode(), "invalid_redirect_uri"),
    (json.dumps({"redirect_uris": []}).encode(), "invalid_redirect_uri"),
    (json.dumps({"redirect_uris": CLAUDE_CODE}).encode(), "invalid_redirect_uri"),
    (metadata([f"http://localhost:{port}/" for port in range(5000, 5011)]), "invalid_redirect_uri"),
    (b"redirect_uris=http://localhost:1/", "invalid_client_metadata"),
    (b"[]", "invalid_client_metadata"),
    (b"[" * 100_000, "invalid_client_metadata"),
    (metadata([CLAUDE_CODE], padding="x" * MAX_BODY_BYTES), "invalid_client_metadata"),
    (metadata([CLAUDE_CODE], grant_types=["client_credentials"]), "invalid_client_metadata"),
    (metadata([CLAUDE_CODE], response_types=["token"]), "invalid_client_metadata"),
])
def test_metadata_the_policy_does_not_allow_is_refused_without_a_cognito_call(pool: Pool, body: bytes,
                                                                               error: str) -> None:
    answer = register(body, pool.policy, pool.client, MCP_URL)

    assert answer.status == 400
    assert answer.body["error"] == error and answer.body["error_description"]
    assert pool.calls == []
    assert clients(pool) == []


def test_a_client_cognito_refuses_leaves_nothing_behind(pool: Pool) -> None:
    """Managed login shows a client its pages only with a style: a client whose style failed is deleted again."""
    from botocore.exceptions import ClientError

    def refuse_style(model: Any, **_: Any) -> None:
        if model.name == "CreateManagedLoginBranding":
            raise ClientError({"Error": {"Code": "LimitExceededException", "Message": "styles"}}, model.name)

    pool.client.meta.events.register_first("before-call.cognito-identity-provider", refuse_style)
    answer = register(metadata([CLAUDE_CODE]), pool.policy, pool.client, MCP_URL)

    assert answer.status == 503 and answer.body["error"] == "temporarily_unavailable"
    assert "client_id" not in answer.body
    assert clients(pool) == []


def registration_event(body: bytes, *, encoded: bool = False) -> dict[str, Any]:
    """POST /register as API Gateway's HTTP API (payload 2.0) passes it to the registration function."""
    event = load_event("http-api-v2/resources-read-static.json")
    event["rawPath"] = "/register"
    event["routeKey"] = "POST /register"
    event["requestContext"]["http"].update(method="POST", path="/register")
    event["requestContext"].pop("authorizer", None)
    event["headers"] = {"content-type": "application/json", "host": "abc123.execute-api.us-east-1.amazonaws.com"}
    event["isBase64Encoded"] = encoded
    event["body"] = base64.b64encode(body).decode() if encoded else body.decode()
    return event


@pytest.fixture(name="entry")
def entry_fixture(pool: Pool, monkeypatch: pytest.MonkeyPatch) -> Pool:
    """The Lambda entry as the template configures it, on the moto pool."""
    monkeypatch.setenv("REGISTRATION_USER_POOL_ID", pool.policy.user_pool_id)
    monkeypatch.setenv("REGISTRATION_REDIRECT_PATTERNS", ",".join(PATTERNS))
    lambda_entries.policy.cache_clear()
    lambda_entries.cognito_client.cache_clear()
    attach_recorder(lambda_entries.cognito_client(), pool)
    yield pool
    lambda_entries.policy.cache_clear()
    lambda_entries.cognito_client.cache_clear()


@pytest.mark.parametrize("encoded", [False, True])
def test_the_lambda_entry_registers_from_an_api_gateway_event(entry: Pool, encoded: bool,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="aws_data_mcp.registration"):
        answer = lambda_entries.register_handler(registration_event(metadata(VSCODE), encoded=encoded), None)

    assert answer["statusCode"] == 201
    assert answer["headers"]["content-type"] == "application/json"
    assert answer["headers"]["cache-control"] == "no-store"
    registered = json.loads(answer["body"])
    assert registered["scope"] == f"openid {MCP_URL}/mcp", "the resource server's scope, from the request's domain"
    assert [c["ClientId"] for c in clients(entry)] == [registered["client_id"]]
    (logged,) = [json.loads(record.getMessage()) for record in caplog.records  # for the operator: who registered
                 if record.name == "aws_data_mcp.registration"]
    assert logged == {"registration": 201, "error": None, "client_id": registered["client_id"],
                      "redirect_uris": VSCODE}, "the outcome, never the body"


@pytest.mark.parametrize("event", [
    registration_event(b"x" * (3 * MAX_BODY_BYTES)),
    {**registration_event(b"{}"), "body": "not base64!", "isBase64Encoded": True},
    registration_event(b""),
    {},
])
def test_the_lambda_entry_refuses_what_is_no_bounded_json_body(entry: Pool, event: dict[str, Any]) -> None:
    answer = lambda_entries.register_handler(event, None)

    assert answer["statusCode"] == 400
    assert json.loads(answer["body"])["error"] == "invalid_client_metadata"
    assert entry.calls == []


def template_patterns() -> tuple[str, ...]:
    """RegistrationRedirectPatterns' default, as the template sets it."""
    from cfnlint.decode import decode

    template, _ = decode(str(ROOT / "template.yaml"))
    assert template is not None
    return tuple(template["Parameters"]["RegistrationRedirectPatterns"]["Default"].split(","))


@pytest.mark.parametrize("redirect_uris", [
    [CLAUDE_CODE],  # Claude Code: loopback, a port of its own
    ["https://claude.ai/api/mcp/auth_callback"],  # Claude.ai and Claude Desktop connectors
    ["https://claude.com/api/mcp/auth_callback"],
    VSCODE,  # VS Code: loopback, and VS Code for the Web
    ["cursor://anysphere.cursor-mcp/oauth/callback", "https://www.cursor.com/agents/mcp/oauth/callback",
     "http://localhost:8787/callback"],  # Cursor registers all three at once
    ["http://127.0.0.1:49152/"],  # Kiro: loopback, a random port
])
def test_the_templates_default_allowlist_admits_each_documented_client(pool: Pool, redirect_uris: list[str]) -> None:
    policy = RegistrationPolicy(pool.policy.user_pool_id, allowlist(template_patterns()))
    answer = register(metadata(redirect_uris), policy, pool.client, MCP_URL)
    assert answer.status == 201, answer.body
    assert clients(pool)[0]["CallbackURLs"] == [*redirect_uris, FACADE_CALLBACK]


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_a_client_asking_for_a_secret_is_registered_public_and_told_so(pool: Pool, method: str) -> None:
    """RFC 7591 lets the server replace a value: no secret is ever made, and the answer says `none`."""
    answer = register(metadata([CLAUDE_CODE], token_endpoint_auth_method=method), pool.policy, pool.client, MCP_URL)

    assert answer.status == 201 and answer.body["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in answer.body
    assert "ClientSecret" not in clients(pool)[0]


def test_a_callback_cognito_refuses_is_the_clients_metadata_error(pool: Pool) -> None:
    """The allowlist may admit a URI Cognito will not take (its rules differ): the client hears Cognito's reason."""
    from botocore.exceptions import ClientError

    def refuse_callback(model: Any, **_: Any) -> None:
        if model.name == "CreateUserPoolClient":
            raise ClientError({"Error": {"Code": "InvalidParameterException",
                                         "Message": "callbackURLs must use HTTPS"}}, model.name)

    pool.client.meta.events.register_first("before-call.cognito-identity-provider", refuse_callback)
    answer = register(metadata([CLAUDE_CODE]), pool.policy, pool.client, MCP_URL)

    assert answer.status == 400 and answer.body["error"] == "invalid_client_metadata"
    assert "callbackURLs must use HTTPS" in answer.body["error_description"]
    assert clients(pool) == [] and pool.brandings == []


def test_a_named_stage_is_part_of_the_scope_the_entry_registers(entry: Pool) -> None:
    event = registration_event(metadata([CLAUDE_CODE]))
    event["requestContext"]["stage"] = "prod"

    answer = lambda_entries.register_handler(event, None)

    assert json.loads(answer["body"])["scope"] == f"openid {MCP_URL.removesuffix('/mcp')}/prod/mcp/mcp"


def test_a_client_left_without_its_style_is_deleted_or_named_for_the_operator(
        pool: Pool, caplog: pytest.LogCaptureFixture) -> None:
    """Managed login shows a client nothing without its style: a client whose style failed is deleted again, and
    one Cognito will not delete is named in the log; the registering client hears the first failure either way."""
    from botocore.exceptions import ClientError

    refused = {"CreateManagedLoginBranding"}

    def refuse(model: Any, **_: Any) -> None:
        if model.name in refused:
            raise ClientError({"Error": {"Code": "TooManyRequestsException", "Message": "slow down"}}, model.name)

    pool.client.meta.events.register_first("before-call.cognito-identity-provider", refuse)
    answer = register(metadata([CLAUDE_CODE]), pool.policy, pool.client, MCP_URL)
    assert answer.status == 429 and clients(pool) == []

    refused.add("DeleteUserPoolClient")
    with caplog.at_level("WARNING", logger="aws_data_mcp.registration"):
        answer = register(metadata([CLAUDE_CODE]), pool.policy, pool.client, MCP_URL)
    assert answer.status == 429
    [left] = clients(pool)
    assert f"app client {left['ClientId']} was left in the pool" in caplog.text
