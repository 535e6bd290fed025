"""IdentityProvider=cognito, as a reviewer reads it: the pool's tokens are issued for McpUrl and validated as such
(JWT authorizer, STS), users are admin-created, and the sign-in functions hold exactly what they call: app
clients of this pool for registration and the facade, nothing for the token trigger. The external provider stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import decode
from template_rules import deploy_refusals

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
ROLE = "arn:aws:iam::111122223333:role/DataAnalyst"
COGNITO = {"AuthMode": "oidc", "IdentityProvider": "cognito", "CognitoDomainPrefix": "acme-data", "OidcRoleArn": ROLE}
POOL_ISSUER = {"Fn::Sub": "https://cognito-idp.${AWS::Region}.${AWS::URLSuffix}/${UserPool}"}
LAMBDA_TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service":
                                                                                       "lambda.amazonaws.com"},
                                                        "Action": "sts:AssumeRole"}]}


@pytest.fixture(scope="module", name="template")
def template_fixture() -> dict[str, Any]:
    template, matches = decode(str(TEMPLATE))
    assert not matches and template is not None
    return template


@pytest.fixture(scope="module", name="resources")
def resources_fixture(template: dict[str, Any]) -> dict[str, Any]:
    return template["Resources"]


def when_cognito(value: dict[str, Any]) -> Any:
    """The cognito branch of `!If [IsCognito, <cognito>, <external>]`."""
    condition, cognito, _ = value["Fn::If"]
    assert condition == "IsCognito"
    return cognito


@pytest.mark.parametrize(("given", "refused"), [
    ({}, []),
    ({"CognitoDomainPrefix": ""}, ["needs CognitoDomainPrefix"]),
    ({"OidcIssuer": "https://login.example.com"}, ["needs OidcIssuer and OidcAudience empty"]),
    ({"OidcAudience": "aws-data-mcp"}, ["needs OidcIssuer and OidcAudience empty"]),
    ({"OidcRoleArn": ""}, ["needs OidcRoleArn or OidcRoleMap"]),
    ({"AuthMode": "iam", "CallerRoleArnPattern": "arn:aws:iam::111122223333:role/data-*"}, ["needs AuthMode=oidc"]),
])
def test_a_cognito_stack_asks_for_its_domain_and_derives_issuer_and_audience(
    template: dict[str, Any], given: dict[str, str], refused: list[str]
) -> None:
    refusals = deploy_refusals(template, **(COGNITO | given))
    assert len(refusals) == len(refused), refusals
    for refusal, reason in zip(refusals, refused, strict=True):
        assert reason in refusal


def test_the_external_provider_is_the_default_and_asks_what_it_did(template: dict[str, Any]) -> None:
    assert template["Parameters"]["IdentityProvider"] == {**template["Parameters"]["IdentityProvider"],
                                                          "Default": "external",
                                                          "AllowedValues": ["external", "cognito"]}
    assert template["Conditions"]["IsCognito"] == {"Fn::And": [{"Condition": "IsOidc"},
                                                               {"Fn::Equals": [{"Ref": "IdentityProvider"},
                                                                               "cognito"]}]}
    refusals = deploy_refusals(template, AuthMode="oidc", OidcRoleArn=ROLE)
    assert [r.split(" (")[0] for r in refusals] == ["AuthMode=oidc needs OidcIssuer",
                                                    "AuthMode=oidc needs OidcAudience"]


def test_the_tokens_are_the_pools_issued_for_mcp_url_everywhere_they_are_checked(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    """One audience, McpUrl (what a client names with resource=, RFC 8707): the resource server's identifier, the
    JWT authorizer's audience and the audience STS accepts; one issuer, the pool, for the authorizer, STS and the
    function (which names it in refusals and checks the token's iss against it)."""
    mcp_url = template["Outputs"]["McpUrl"]["Value"]
    jwt = resources["OidcAuthorizer"]["Properties"]["JwtConfiguration"]
    assert [when_cognito(audience) for audience in jwt["Audience"]] == [mcp_url]
    assert resources["McpResourceServer"]["Properties"]["Identifier"] == mcp_url
    provider = resources["CognitoOidcProvider"]
    assert provider["Condition"] == "IsCognito" and provider["Type"] == "AWS::IAM::OIDCProvider"
    assert provider["Properties"] == {"Url": POOL_ISSUER, "ClientIdList": [mcp_url]}
    assert when_cognito(jwt["Issuer"]) == POOL_ISSUER
    environment = resources["McpFunction"]["Properties"]["Environment"]["Variables"]
    assert when_cognito(environment["AWS_DATA_MCP_OIDC_ISSUER"]) == POOL_ISSUER
    assert when_cognito(environment["AWS_DATA_MCP_SIGN_IN_DOMAIN"]) == template["Outputs"]["SignInUrl"]["Value"]
    assert environment["AWS_DATA_MCP_SIGN_IN_DOMAIN"]["Fn::If"][2] == "", "external: no metadata of this API's own"
    (scope,) = resources["McpResourceServer"]["Properties"]["Scopes"]
    assert scope["ScopeName"] == "mcp"


def test_the_pool_signs_in_only_the_users_an_administrator_made(resources: dict[str, Any]) -> None:
    pool = resources["UserPool"]
    assert pool["Condition"] == "IsCognito" and pool["DeletionPolicy"] == "Retain"
    props = pool["Properties"]
    assert props["UserPoolTier"] == "ESSENTIALS", "resource indicators and access-token customization need it"
    assert props["AdminCreateUserConfig"] == {"AllowAdminCreateUserOnly": True}
    password = props["Policies"]["PasswordPolicy"]
    assert password["MinimumLength"] >= 12
    assert all(password[rule] for rule in ("RequireLowercase", "RequireUppercase", "RequireNumbers", "RequireSymbols"))
    assert props["MfaConfiguration"] in ("OPTIONAL", "ON")
    condition, trigger, none = props["LambdaConfig"]["Fn::If"]  # OidcRoleClaim=sub needs no role tag
    assert (condition, none) == ("MapsRoleTags", {"Ref": "AWS::NoValue"})
    assert trigger == {"PreTokenGenerationConfig": {"LambdaArn": {"Fn::GetAtt": ["RoleTagFunction", "Arn"]},
                                                    "LambdaVersion": "V2_0"}}
    domain = resources["UserPoolDomain"]["Properties"]
    assert domain["ManagedLoginVersion"] == 2 and domain["UserPoolId"] == {"Ref": "UserPool"}


def _inline_statements(role: dict[str, Any]) -> list[dict[str, Any]]:
    assert role["Type"] == "AWS::IAM::Role" and role["Condition"] == "IsCognito"
    props = role["Properties"]
    assert props["AssumeRolePolicyDocument"] == LAMBDA_TRUST
    assert set(props) == {"AssumeRolePolicyDocument", "Policies"}, "no managed policy, no boundary-free extras"
    return [statement for policy in props["Policies"] for statement in policy["PolicyDocument"]["Statement"]]


def _own_log_group(statement: dict[str, Any], log_group: str) -> None:
    assert statement == {"Sid": "OwnLogGroup", "Effect": "Allow", "Action": ["logs:CreateLogStream",
                                                                             "logs:PutLogEvents"],
                         "Resource": {"Fn::GetAtt": [log_group, "Arn"]}}


def test_registration_may_create_clients_of_this_pool_and_nothing_else(resources: dict[str, Any]) -> None:
    function = resources["RegistrationFunction"]["Properties"]
    assert function["Role"] == {"Fn::GetAtt": ["RegistrationFunctionRole", "Arn"]}
    assert "Policies" not in function
    register, logs = _inline_statements(resources["RegistrationFunctionRole"])
    assert register["Effect"] == "Allow" and register["Resource"] == {"Fn::GetAtt": ["UserPool", "Arn"]}
    assert sorted(register["Action"]) == ["cognito-idp:CreateManagedLoginBranding",
                                          "cognito-idp:CreateUserPoolClient", "cognito-idp:DeleteUserPoolClient"]
    _own_log_group(logs, "RegistrationLogGroup")
    assert function["LoggingConfig"] == {"LogGroup": {"Ref": "RegistrationLogGroup"}}


def test_the_token_trigger_holds_no_aws_permission_and_only_the_pool_invokes_it(resources: dict[str, Any]) -> None:
    function = resources["RoleTagFunction"]["Properties"]
    assert function["Role"] == {"Fn::GetAtt": ["RoleTagFunctionRole", "Arn"]}
    (logs,) = _inline_statements(resources["RoleTagFunctionRole"])
    _own_log_group(logs, "RoleTagLogGroup")
    permission = resources["PoolInvokesRoleTagFunction"]
    assert permission["Condition"] == "IsCognito"
    assert permission["Properties"] == {"Action": "lambda:InvokeFunction",
                                        "FunctionName": {"Fn::GetAtt": ["RoleTagFunction", "Arn"]},
                                        "Principal": "cognito-idp.amazonaws.com",
                                        "SourceArn": {"Fn::GetAtt": ["UserPool", "Arn"]}}
    assert function["Environment"]["Variables"] == {"AWS_DATA_MCP_OIDC_ROLE_TAG": {"Ref": "OidcRoleTag"}}


def test_registration_is_public_but_throttled_on_its_route_and_capped_in_concurrency(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    function = resources["RegistrationFunction"]["Properties"]
    ((name, event),) = function["Events"].items()
    assert event["Type"] == "HttpApi"
    props = event["Properties"]
    assert (props["ApiId"], props["Method"], props["Path"]) == ({"Ref": "HttpApi"}, "POST", "/register")
    assert "Auth" not in props and "Auth" not in resources["HttpApi"]["Properties"], "a client registers unsigned"
    assert props["RouteSettings"] == {"ThrottlingRateLimit": {"Ref": "RegistrationThrottlingRateLimit"},
                                      "ThrottlingBurstLimit": {"Ref": "RegistrationThrottlingBurstLimit"}}
    rate = template["Parameters"]["RegistrationThrottlingRateLimit"]
    assert rate["Default"] < template["Parameters"]["ThrottlingRateLimit"]["Default"]
    condition, reserved, none = function["ReservedConcurrentExecutions"]["Fn::If"]
    assert condition == "ReservesConcurrency" and 1 <= reserved <= 5 and none == {"Ref": "AWS::NoValue"}
    assert name == "Register"


def test_the_default_allowlist_names_the_documented_callbacks_and_loopback(template: dict[str, Any]) -> None:
    patterns = template["Parameters"]["RegistrationRedirectPatterns"]["Default"].split(",")
    assert {"http://localhost:*", "http://127.0.0.1:*", "https://claude.ai/api/mcp/auth_callback",
            "https://claude.com/api/mcp/auth_callback", "https://vscode.dev/redirect"} <= set(patterns)
    assert all(p.startswith(("http://localhost:", "http://127.0.0.1:")) or "*" not in p for p in patterns), \
        "wildcards only in loopback ports: a hosted callback is named exactly"


def test_the_sign_in_facade_may_find_and_make_clients_of_this_pool_and_nothing_else(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    """What the facade calls: list and describe to find a client, create (and style, or delete) one for a document."""
    function = resources["SignInFunction"]["Properties"]
    assert function["Handler"] == "aws_data_mcp.sign_in.lambda_entries.facade_handler"
    assert function["Role"] == {"Fn::GetAtt": ["SignInFunctionRole", "Arn"]} and "Policies" not in function
    clients, logs = _inline_statements(resources["SignInFunctionRole"])
    assert clients["Effect"] == "Allow" and clients["Resource"] == {"Fn::GetAtt": ["UserPool", "Arn"]}
    assert sorted(clients["Action"]) == ["cognito-idp:CreateManagedLoginBranding", "cognito-idp:CreateUserPoolClient",
                                         "cognito-idp:DeleteUserPoolClient", "cognito-idp:DescribeUserPoolClient",
                                         "cognito-idp:ListUserPoolClients"]
    _own_log_group(logs, "SignInLogGroup")
    routes = {(event["Properties"]["Method"], event["Properties"]["Path"]) for event in function["Events"].values()}
    assert routes == {("GET", "/authorize"), ("GET", "/callback"), ("POST", "/token"), ("POST", "/revoke")}
    assert all("Auth" not in event["Properties"] for event in function["Events"].values()), "before any token"
    environment = function["Environment"]["Variables"]
    assert environment["SIGN_IN_DOMAIN"] == template["Outputs"]["SignInUrl"]["Value"]
    assert environment["SIGN_IN_MAX_DOCUMENT_CLIENTS"] == {"Ref": "SignInDocumentClientLimit"}
    assert template["Parameters"]["SignInDocumentClientLimit"]["Default"] == 100
