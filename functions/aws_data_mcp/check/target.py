"""What `check` checks: the settings the function runs with, and what the stack says around them.

For a stack: its outputs and parameters (CloudFormation), the function's environment (Lambda: the very settings the
function reads), the JWT authorizer's issuer and audience (API Gateway). Locally: this process's own settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import boto3

from aws_data_mcp.aws import client
from aws_data_mcp.config import Settings


@dataclass(frozen=True)
class Target:
    settings: Settings
    """The function's settings (hosted), or the local server's."""
    name: str
    """The stack's name, or "local"."""
    audience: str = ""
    """oidc: the audience API Gateway's JWT authorizer accepts (the token's `aud`)."""
    issuer: str = ""
    user_pool_id: str = ""
    mcp_url: str = ""
    caller_roles: tuple[str, ...] = ()
    """iam: roles the operator names beside PrincipalRoleMap's (callers act as their own role, which no setting
    lists: `--role` names the ones to check)."""


def _outputs(stack: Mapping[str, Any]) -> dict[str, str]:
    return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}


def stack_target(session: boto3.Session, stack_name: str, settings: Settings,
                 caller_roles: tuple[str, ...] = ()) -> Target:
    """The target a deployed stack is: the function's own environment read back into `Settings`."""
    stacks = client(session, "cloudformation", settings).describe_stacks(StackName=stack_name)["Stacks"]
    outputs = _outputs(stacks[0])
    function = client(session, "lambda", settings).get_function_configuration(
        FunctionName=outputs["FunctionAliasArn"])
    environment = function.get("Environment", {}).get("Variables", {})
    function_settings = Settings.from_env(environ={**environment, "AWS_REGION": settings.region})
    audience = issuer = ""
    api_id = outputs.get("HttpApiId")
    if function_settings.auth_mode == "oidc" and api_id:
        for authorizer in client(session, "apigatewayv2", settings).get_authorizers(ApiId=api_id)["Items"]:
            jwt = authorizer.get("JwtConfiguration") or {}
            if jwt:
                audience, issuer = ",".join(jwt.get("Audience", [])), jwt.get("Issuer", "")
    return Target(function_settings, stack_name, audience, issuer, outputs.get("UserPoolId", ""),
                  outputs.get("McpUrl", ""), caller_roles)
