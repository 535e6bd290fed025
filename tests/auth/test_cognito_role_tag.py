"""The user pool's pre-token-generation trigger writes the role tag the function's role map and each role's trust
read: a Cognito user's group selects the role, through the real exchange (the token it shapes, read over MCP)."""

from __future__ import annotations

from typing import Any

import pytest

from aws_data_mcp.sign_in.role_tag import TAGS_CLAIM, SeveralGroups, lambda_handler
from support.servers import lambda_container

from .hosted_support import ACCOUNT, OIDC, ROLE_TAG, oidc_event, read, status_of


def pre_token_event(groups: list[str]) -> dict[str, Any]:
    """Cognito's V2_0 pre-token-generation event for a user signing in through managed login."""
    return {"version": "2", "triggerSource": "TokenGeneration_HostedAuth", "region": "us-east-1",
            "userPoolId": "us-east-1_EXAMPLE", "userName": "alice",
            "callerContext": {"awsSdkVersion": "aws-sdk-unknown-unknown", "clientId": "example-client"},
            "request": {"userAttributes": {"sub": "alice-sub", "email": "alice@example.com"},
                        "groupConfiguration": {"groupsToOverride": groups, "iamRolesToOverride": [],
                                               "preferredRole": None},
                        "scopes": ["openid", "https://abc123.execute-api.us-east-1.amazonaws.com/mcp/mcp"]},
            "response": {"claimsAndScopeOverrideDetails": None}}


def added_claims(groups: list[str]) -> dict[str, Any]:
    details = lambda_handler(pre_token_event(groups), None)["response"]["claimsAndScopeOverrideDetails"]
    return details["accessTokenGeneration"]["claimsToAddOrOverride"] if details else {}


@pytest.fixture(autouse=True)
def _role_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DATA_MCP_OIDC_ROLE_TAG", ROLE_TAG)


@pytest.mark.usefixtures("roles")
@pytest.mark.parametrize(("groups", "role"), [(["admins"], "DataAdmin"), (["contractors"], "Contractor"),
                                              ([], "DataAnalyst"), (["not-mapped"], "DataAnalyst")])
def test_the_users_group_selects_the_role_the_map_gives_it(groups: list[str], role: str) -> None:
    claims = added_claims(groups)
    event = oidc_event("alice-sub", None, **claims)

    status = status_of(read(lambda_container(OIDC), event))

    assert status["principal_arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/{role}/alice-sub"


def test_the_claim_is_the_shape_sts_reads_session_tags_from() -> None:
    assert added_claims(["admins"]) == {TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["admins"]}}}


def test_a_user_in_two_groups_gets_no_token() -> None:
    """A session tag holds one value: Cognito fails the sign-in rather than pick one of the user's roles."""
    with pytest.raises(SeveralGroups, match="one group at most"):
        lambda_handler(pre_token_event(["admins", "contractors"]), None)
