"""config://security says, for the running auth mode, what it guarantees and what it relies on the deployment for,
read through the Lambda handler as a client reads it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aws_data_mcp.config import Settings
from support.events import body_json, http_api_event, rpc
from support.servers import lambda_container

HOSTS = ("abc123.execute-api.us-east-1.amazonaws.com",)


def security(settings: Settings) -> dict[str, Any]:
    answer = body_json(lambda_container(settings)(http_api_event(rpc("resources/read", {"uri": "config://security"}))))
    return json.loads(answer["result"]["contents"][0]["text"])  # type: ignore[no-any-return]


def test_iam_says_sessions_are_not_carried_over_and_what_the_stack_must_keep_narrow() -> None:
    document = security(Settings(mode="lambda", auth_mode="iam"))
    relies_on = " ".join(document["relies_on_deployment"])
    assert "scoped-down session" in relies_on and "whole role" in relies_on
    assert "CallerRoleArnPattern" in relies_on and "PINNED_SESSION_ROLES" in relies_on
    assert "lambda:InvokeFunction" in relies_on and "throttling" in relies_on
    assert any("PINNED_SESSION_ROLES" in line for line in document["guarantees"])


def test_oidc_says_each_roles_trust_must_check_the_same_tag() -> None:
    document = security(Settings(mode="lambda", auth_mode="oidc"))
    assert "trust checks" in " ".join(document["relies_on_deployment"])
    assert any("role tag" in line or "principal tag" in line for line in document["guarantees"])


@pytest.mark.parametrize("mode", ["iam", "oidc"])
def test_each_hosted_mode_names_the_invoke_boundary(mode: str) -> None:
    document = security(Settings(mode="lambda", auth_mode=mode))  # type: ignore[arg-type]
    assert document["auth_mode"] == mode and document["guarantees"] and document["relies_on_deployment"]


def test_local_relies_on_the_state_directory_alone() -> None:
    document = security(Settings(mode="local", allowed_hosts=HOSTS))
    assert document["relies_on_deployment"] == ["Nobody else can read your state directory (the token file, the "
                                                "workflow store)."]
