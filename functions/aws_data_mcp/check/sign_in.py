"""The Cognito user pool of a stack that is its own identity provider (IdentityProvider=cognito): its sign-in domain
answers, the resource server is this API's, and registrations have room left under the pool's app-client quota."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.check.findings import Finding
from aws_data_mcp.check.target import Target

CHECK = "sign-in (Cognito)"
APP_CLIENT_QUOTA = 1000
"""App clients per user pool (Cognito's default quota): each registration makes one."""


def cognito_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    if not target.user_pool_id:
        return
    cognito = client(session, "cognito-idp", target.settings)
    pool = target.user_pool_id
    try:
        described = cognito.describe_user_pool(UserPoolId=pool)["UserPool"]
    except ClientError as error:
        yield Finding(CHECK, pool, "fail", f"the user pool cannot be read ({error.response['Error']['Code']})",
                      "everyone signing in", "redeploy the stack, or name the pool it made")
        return
    domain = described.get("Domain") or described.get("CustomDomain")
    status = cognito.describe_user_pool_domain(Domain=domain).get("DomainDescription", {}).get("Status") \
        if domain else None
    if status != "ACTIVE":
        yield Finding(CHECK, pool, "fail", f"the sign-in domain {domain or '(none)'} is {status or 'missing'}",
                      "everyone signing in", "set CognitoDomainPrefix to a free prefix and redeploy")
    else:
        yield Finding(CHECK, pool, "ok", f"signs in at {domain}")
    clients = sum(len(page["UserPoolClients"]) for page in
                  cognito.get_paginator("list_user_pool_clients").paginate(UserPoolId=pool, MaxResults=60))
    verdict = "warn" if clients > APP_CLIENT_QUOTA * 0.9 else "ok"
    yield Finding(CHECK, pool, verdict, f"{clients} app clients of the quota's {APP_CLIENT_QUOTA} (one per "
                  "registration)", "clients registering next" if verdict == "warn" else "",
                  "delete app clients no one uses, or ask for a higher quota" if verdict == "warn" else "")
    if target.mcp_url:
        try:
            server = cognito.describe_resource_server(UserPoolId=pool, Identifier=target.mcp_url)["ResourceServer"]
            scopes = [scope["ScopeName"] for scope in server.get("Scopes", [])]
            yield Finding(CHECK, target.mcp_url, "ok" if "mcp" in scopes else "fail",
                          f"the resource server's scopes: {', '.join(scopes) or 'none'}",
                          "" if "mcp" in scopes else "everyone signing in",
                          "" if "mcp" in scopes else "redeploy: the template defines the scope `mcp`")
        except ClientError:
            yield Finding(CHECK, target.mcp_url, "fail", "the pool has no resource server for this API's URL: "
                          "tokens carry no audience the authorizer accepts", "everyone signing in",
                          "redeploy the stack (McpResourceServer)")
