"""Fail closed, in both modes: every invalid request is refused with `authentication_required` and makes no AWS
call at all (STS included) unless the case is an STS failure itself; identity never comes from client-set headers;
and what a forged direct invoke can and cannot do, stated as tests.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import hosted
from aws_data_mcp.identity.hosted.exchange import exchanges
from support.faults import AwsFaults
from support.servers import lambda_container

from .hosted_support import (
    ACCOUNT,
    IAM,
    ISSUER,
    OIDC,
    error_of,
    iam_event,
    oidc_event,
    read,
    status_of,
    token,
)

Event = dict[str, Any]
VALID = {"iam": lambda: iam_event("DataAnalyst", "alice", uri="athena://workgroups"),
         "oidc": lambda: oidc_event("dana", ["analysts"], uri="athena://workgroups")}
SETTINGS = {"iam": IAM, "oidc": OIDC}
ASSUMED = f"arn:aws:sts::{ACCOUNT}:assumed-role"
STS_OPERATION = {"iam": "sts:AssumeRole", "oidc": "sts:AssumeRoleWithWebIdentity"}


def authorizer(value: Any) -> Callable[[Event], None]:
    def change(event: Event) -> None:
        event["requestContext"]["authorizer"] = value
    return change


def without_authorizer(event: Event) -> None:
    event["requestContext"].pop("authorizer", None)


def the_other_modes_caller(mode: str) -> Callable[[Event], None]:
    other = VALID["oidc" if mode == "iam" else "iam"]

    def change(event: Event) -> None:
        event["requestContext"]["authorizer"] = copy.deepcopy(other()["requestContext"]["authorizer"])
    return change


MALFORMED_CONTEXTS: dict[str, Callable[[Event], None]] = {
    "no authorizer": without_authorizer,
    "an authorizer that is a string": authorizer("a-string"),
    "an authorizer that is a list": authorizer(["iam", "jwt"]),
    "an empty authorizer": authorizer({}),
    "iam that is a list": authorizer({"iam": ["x"]}),
    "a numeric userArn": authorizer({"iam": {"userArn": 5}}),
    "an empty userArn": authorizer({"iam": {"userArn": ""}}),
    "jwt that is a string": authorizer({"jwt": "x"}),
    "claims that are a string": authorizer({"jwt": {"claims": "sub=dana"}}),
    "claims without sub": authorizer({"jwt": {"claims": {"iss": ISSUER, "aud": "aws-data-mcp"}}}),
    "claims without iss": authorizer({"jwt": {"claims": {"sub": "dana", "aud": "aws-data-mcp"}}}),
    "a sub that is a list": authorizer({"jwt": {"claims": {"sub": ["dana"], "iss": ISSUER}}}),
}


def _case_events(mode: str) -> dict[str, Callable[[Event], None]]:
    cases = dict(MALFORMED_CONTEXTS)
    cases["the other mode's caller"] = the_other_modes_caller(mode)
    if mode == "iam":
        cases["an unmapped IAM user"] = authorizer({"iam": {"userArn": f"arn:aws:iam::{ACCOUNT}:user/carol"}})
        cases["the account root"] = authorizer({"iam": {"userArn": f"arn:aws:iam::{ACCOUNT}:root"}})
    else:
        cases["no bearer"] = lambda event: event["headers"].pop("authorization")
        cases["a malformed bearer"] = lambda event: event["headers"].update(authorization="Bearer x y")
    return cases


MATRIX = [(mode, case) for mode in ("iam", "oidc") for case in sorted(_case_events(mode))]


@pytest.mark.parametrize(("mode", "case"), MATRIX)
@pytest.mark.usefixtures("roles")
def test_every_invalid_request_is_refused_with_no_aws_call(mode: str, case: str, aws_calls: Counter[str]) -> None:
    event = VALID[mode]()
    _case_events(mode)[case](event)
    error = error_of(read(lambda_container(SETTINGS[mode]), event))
    assert error["error"] == "authentication_required" and error["details"]
    assert sum(aws_calls.values()) == 0, aws_calls  # STS included


@pytest.mark.parametrize("mode", ["iam", "oidc"])
@pytest.mark.usefixtures("roles")
def test_an_unconfigured_role_is_refused_with_no_aws_call(mode: str, aws_calls: Counter[str]) -> None:
    settings = Settings(mode="lambda", auth_mode=mode)  # type: ignore[arg-type]  # no maps, no default role
    event = VALID[mode]()
    if mode == "iam":
        event["requestContext"]["authorizer"]["iam"]["userArn"] = f"arn:aws:sts::{ACCOUNT}:federated-user/dana"
    error = error_of(read(lambda_container(settings), event))
    assert error["error"] == "authentication_required"
    assert sum(aws_calls.values()) == 0


@pytest.mark.parametrize("mode", ["iam", "oidc"])
@pytest.mark.usefixtures("roles")
def test_sts_throttling_is_refused_retryably_with_no_data_call(mode: str, sts: AwsFaults,
                                                               aws_calls: Counter[str]) -> None:
    sts.throttle(STS_OPERATION[mode].replace(":", "."))
    settings = dataclasses.replace(SETTINGS[mode], max_attempts=1)
    error = error_of(read(lambda_container(settings), VALID[mode]()))
    assert (error["error"], error["retryable"]) == ("authentication_required", True)
    assert "retry" in error["message"].lower() or any("Retry" in detail for detail in error["details"])
    assert set(aws_calls) == {STS_OPERATION[mode]}, "STS only: no data call"


def _headers_no_object() -> dict[str, Any]:
    event = VALID["oidc"]()
    event["headers"] = ["authorization"]
    return event


@pytest.mark.parametrize("scope", [None, {}, {"aws.event": None}, {"aws.event": {"requestContext": "forged"}},
                                   {"aws.event": {"requestContext": ["forged"]}}, {"aws.event": "forged"},
                                   {"aws.event": _headers_no_object()}],
                         ids=["none", "empty", "no event", "a string context", "a list context", "a string event",
                              "headers that are no object"])
@pytest.mark.parametrize("settings", [IAM, OIDC], ids=["iam", "oidc"])
def test_a_scope_without_a_request_context_acts_as_nobody(scope: Any, settings: Settings,
                                                          aws_calls: Counter[str]) -> None:
    caller = hosted.resolve(scope, settings)
    assert caller.authenticated is False and caller.refusal is not None
    assert caller.refusal.code.value == "authentication_required"
    assert sum(aws_calls.values()) == 0


# --------------------------------------------------------------------------- header spoofing

SPOOFED_HEADERS = {
    "x-amzn-iam-userarn": f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAdmin/mallory",
    "x-amzn-oidc-identity": "admin",
    "x-amzn-oidc-data": token("mallory", ["admins"]),
    "x-amz-security-token": "forged",
    "x-forwarded-user": "admin",
    "x-forwarded-for": "10.0.0.1",
    "x-forwarded-host": "internal.example.com",
    "x-amzn-requestcontext": json.dumps({"authorizer": {"iam": {"userArn": "mallory"}}}),
}


@pytest.mark.usefixtures("roles")
def test_spoofed_headers_beside_a_valid_iam_caller_change_nothing(sts: AwsFaults) -> None:
    honest = status_of(read(lambda_container(IAM), iam_event("DataAnalyst", "alice")))
    exchanges.clear()
    event = iam_event("DataAnalyst", "alice")
    event["headers"].update(SPOOFED_HEADERS, authorization=f"Bearer {token('mallory', ['admins'])}")
    spoofed = status_of(read(lambda_container(IAM), event))
    assert spoofed["principal_arn"] == honest["principal_arn"] == f"{ASSUMED}/DataAnalyst/alice"
    assert spoofed["identity_digest"] == honest["identity_digest"]
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 0, "iam mode never exchanges a bearer token"


@pytest.mark.usefixtures("roles")
def test_spoofed_headers_beside_a_valid_oidc_caller_change_nothing(sts: AwsFaults) -> None:
    honest = status_of(read(lambda_container(OIDC), oidc_event("dana", ["analysts"])))
    exchanges.clear()
    event = oidc_event("dana", ["analysts"])
    event["headers"].update(SPOOFED_HEADERS)
    spoofed = status_of(read(lambda_container(OIDC), event))
    assert spoofed["principal_arn"] == honest["principal_arn"] == f"{ASSUMED}/DataAnalyst/dana"
    assert spoofed["identity_digest"] == honest["identity_digest"]
    assert sts.calls["sts.AssumeRole"] == 0


# --------------------------------------------------------------------------- forged direct invokes

@pytest.mark.usefixtures("roles")
def test_an_event_from_another_stage_of_the_api_is_refused(aws_calls: Counter[str]) -> None:
    settings = dataclasses.replace(IAM, expected_api_id="abc123", expected_api_stage="prod")
    event = iam_event("DataAdmin", "anyone", uri="athena://workgroups")  # right API id, stage $default
    error = error_of(read(lambda_container(settings), event))
    assert error["error"] == "authentication_required"
    assert "this deployment's API stage" in error["message"]
    assert sum(aws_calls.values()) == 0


@pytest.mark.usefixtures("roles")
def test_the_configured_stage_is_served() -> None:
    settings = dataclasses.replace(IAM, expected_api_id="abc123", expected_api_stage="$default")
    assert status_of(read(lambda_container(settings), iam_event("DataAnalyst", "alice")))["authenticated"] is True


@pytest.mark.usefixtures("roles")
def test_a_forged_invoke_naming_the_right_api_and_stage_cannot_be_told_apart() -> None:
    """The limit, stated: the API id and stage are public, so whoever may call lambda:InvokeFunction on the function
    acts as any caller they name. The defence is the function's resource policy (only this API may invoke it; see
    tests/deploy) and granting lambda:InvokeFunction on it to nobody else; docs/security.md says so."""
    settings = dataclasses.replace(IAM, expected_api_id="abc123", expected_api_stage="$default")
    forged = iam_event("DataAdmin", "anyone")
    forged["requestContext"]["requestId"] = "forged-by-a-direct-invoke"
    status = status_of(read(lambda_container(settings), forged))
    assert status["authenticated"] is True
    assert status["principal_arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAdmin/anyone"


def test_the_stage_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DATA_MCP_API_STAGE", "prod")
    assert Settings.from_env(default_mode="lambda").expected_api_stage == "prod"
