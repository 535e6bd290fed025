"""A deployed stack read back as `check` reads it: the function's own environment becomes its settings, the JWT
authorizer gives the audience (botocore's Stubber answers as CloudFormation, Lambda and API Gateway do: moto cannot
deploy a SAM template); the Cognito pool checked against moto's Cognito."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from aws_data_mcp.aws import client
from aws_data_mcp.check.sign_in import cognito_findings
from aws_data_mcp.check.target import Target, stack_target
from aws_data_mcp.config import Settings

ALIAS = "arn:aws:lambda:eu-west-1:123456789012:function:aws-data-mcp-McpFunction:live"
MCP_URL = "https://abc123.execute-api.eu-west-1.amazonaws.com/mcp"


@pytest.fixture
def aws() -> Iterator[boto3.Session]:
    with mock_aws():
        yield boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="eu-west-1")


def test_a_stack_is_checked_with_the_settings_its_function_runs_with(aws: boto3.Session) -> None:
    settings = Settings(region="eu-west-1")
    outputs = {"FunctionAliasArn": ALIAS, "HttpApiId": "abc123", "McpUrl": MCP_URL, "UserPoolId": "eu-west-1_X"}
    answers = {
        "cloudformation": ("describe_stacks", {"Stacks": [{
            "StackName": "aws-data-mcp", "CreationTime": "2026-12-01", "StackStatus": "CREATE_COMPLETE",
            "Outputs": [{"OutputKey": key, "OutputValue": value} for key, value in outputs.items()]}]},
            {"StackName": "aws-data-mcp"}),
        "lambda": ("get_function_configuration", {"Environment": {"Variables": {
            "AWS_DATA_MCP_MODE": "lambda", "AWS_DATA_MCP_AUTH_MODE": "oidc",
            "AWS_DATA_MCP_OIDC_ROLE_ARN": "arn:aws:iam::123456789012:role/analysts",
            "AWS_DATA_MCP_QUERY_WORKGROUPS": "aws-data-mcp-queries"}}}, {"FunctionName": ALIAS}),
        "apigatewayv2": ("get_authorizers", {"Items": [{"Name": "jwt", "AuthorizerType": "JWT", "JwtConfiguration": {
            "Audience": [MCP_URL], "Issuer": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_X"}}]},
            {"ApiId": "abc123"}),
    }
    stubbers = []
    for service, (method, answer, expected) in answers.items():
        stubber = Stubber(client(aws, service, settings))
        stubber.add_response(method, answer, expected)
        stubber.activate()
        stubbers.append(stubber)
    target = stack_target(aws, "aws-data-mcp", settings)
    for stubber in stubbers:
        stubber.assert_no_pending_responses()
        stubber.deactivate()
    assert target.settings.auth_mode == "oidc" and target.settings.query_workgroups == ("aws-data-mcp-queries",)
    assert target.settings.oidc_role_arn.endswith("role/analysts") and target.settings.region == "eu-west-1"
    assert (target.audience, target.user_pool_id, target.mcp_url) == (MCP_URL, "eu-west-1_X", MCP_URL)
    assert target.issuer.endswith("/eu-west-1_X")


def test_a_cognito_pool_without_the_api_s_resource_server_or_domain_is_found(aws: boto3.Session) -> None:
    cognito = aws.client("cognito-idp")
    pool = cognito.create_user_pool(PoolName="aws-data-mcp")["UserPool"]["Id"]
    target = Target(Settings(region="eu-west-1"), "aws-data-mcp", user_pool_id=pool, mcp_url=MCP_URL)
    found = {(f.subject, f.verdict): f for f in cognito_findings(aws, target)}
    assert "missing" in found[(pool, "fail")].detail  # no sign-in domain yet
    assert "no resource server" in found[(MCP_URL, "fail")].detail
    cognito.create_user_pool_domain(Domain="acme-data", UserPoolId=pool)
    cognito.create_resource_server(UserPoolId=pool, Identifier=MCP_URL, Name="mcp",
                                   Scopes=[{"ScopeName": "mcp", "ScopeDescription": "MCP"}])
    cognito.create_user_pool_client(UserPoolId=pool, ClientName="registered")
    verdicts = {(f.subject, f.verdict) for f in cognito_findings(aws, target)}
    assert verdicts == {(pool, "ok"), (MCP_URL, "ok")}
