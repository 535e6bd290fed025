"""Hosted callers through the real Lambda path: each acts as itself, never as the function, and fails closed.

moto's STS neither checks trust policies nor verifies web identity tokens: these tests check what is sent
to STS, inject STS's refusals where a case needs them, and count every AWS call a request makes.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections import Counter

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import hosted
from aws_data_mcp.identity.hosted.claim import sts_name
from aws_data_mcp.identity.hosted.exchange import exchanges
from support.events import load_event
from support.faults import AwsFaults
from support.logs import RecordKeeper
from support.servers import lambda_container

from .hosted_support import (
    ACCOUNT,
    FUNCTION_ROLE,
    IAM,
    OIDC,
    as_caller,
    everything_written,
    iam_event,
    oidc_event,
    read,
    sent,
    status_of,
)

ROLE = f"arn:aws:iam::{ACCOUNT}:role"
STS_NAME = re.compile(r"[A-Za-z0-9_+=,.@-]{2,64}")
"""RoleSessionName and SourceIdentity as STS accepts them."""

# --------------------------------------------------------------------------- iam


@pytest.mark.usefixtures("roles")
def test_iam_caller_acts_as_its_own_role_with_its_session_as_source_identity(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRole")
    invoke = lambda_container(dataclasses.replace(IAM, pinned_session_roles=("DataAnalyst",)))  # its trust pins names
    status = status_of(read(invoke, load_event("http-api-v2/iam-auth-status.json")))
    assert status["authenticated"] is True and status["auth_mode"] == "iam"
    assert status["principal_arn"].startswith("arn:aws:sts::123456789012:assumed-role/DataAnalyst/")
    assert status["credential_expiry"]
    (request,) = requests
    assert request["RoleArn"] == "arn:aws:iam::123456789012:role/DataAnalyst"
    assert request["SourceIdentity"] == request["RoleSessionName"] == "alice@example.com"
    rest = status_of(read(invoke, load_event("rest-v1/iam-auth-status.json")))
    assert rest["principal_arn"] == status["principal_arn"]
    assert sts.calls["sts.AssumeRole"] == 1  # the exchange is cached for the second request


@pytest.mark.usefixtures("roles")
def test_a_second_caller_reads_aws_data_as_itself() -> None:
    answer = read(lambda_container(IAM), load_event("http-api-v2/iam-second-caller-workgroups.json"))
    workgroups = json.loads(answer["result"]["contents"][0]["text"])
    assert workgroups["count"] >= 1


@pytest.mark.usefixtures("roles")
def test_a_mapped_iam_user_acts_through_its_configured_role() -> None:
    event = as_caller("http-api-v2/iam-unmapped-user.json", arn="arn:aws:iam::123456789012:user/ops")
    status = status_of(read(lambda_container(IAM), event))
    assert status["principal_arn"].startswith("arn:aws:sts::123456789012:assumed-role/DataAdmin/ops")


SSO_ROLE = "AWSReservedSSO_DataAnalyst_0123456789abcdef"


@pytest.mark.parametrize("key", [
    f"{ROLE}/aws-reserved/sso.amazonaws.com/eu-west-1/{SSO_ROLE}",  # as the IAM console shows the role
    f"{ROLE}/{SSO_ROLE}",  # as its sessions name it: no path
    f"arn:aws:sts::{ACCOUNT}:assumed-role/{SSO_ROLE}/alice@example.com",  # this one session only
])
@pytest.mark.usefixtures("roles")
def test_an_identity_center_caller_acts_through_the_role_principal_role_map_names(key: str, sts: AwsFaults) -> None:
    """Identity Center's roles have trust policies no one may edit: the operator maps them to a role that trusts the
    function. The session ARN API Gateway reports leaves out the role's path; the key may keep it."""
    settings = dataclasses.replace(IAM, principal_role_map=((key, f"{ROLE}/DataAnalyst"),))
    requests = sent(sts, "sts.AssumeRole")
    status = status_of(read(lambda_container(settings), iam_event(SSO_ROLE, "alice@example.com")))
    assert status["principal_arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/alice@example.com"
    (request,) = requests
    assert request["RoleArn"] == f"{ROLE}/DataAnalyst" and request["SourceIdentity"] == "alice@example.com"
    other = status_of(read(lambda_container(settings), iam_event("DataAdmin", "bob")))
    assert other["principal_arn"].endswith(":assumed-role/DataAdmin/bob"), "an unmapped role still acts as itself"


IAM_REFUSALS = {
    "no authorizer, spoofed identity headers": ("http-api-v2/iam-no-authorizer-spoofed-headers.json", {}),
    "an unmapped IAM user": ("http-api-v2/iam-unmapped-user.json", {}),
    "a malformed ARN": ("http-api-v2/iam-auth-status.json", {"arn": "alice"}),
    "the account root": ("http-api-v2/iam-auth-status.json", {"arn": "arn:aws:iam::123456789012:root"}),
    "a federated user": ("http-api-v2/iam-auth-status.json", {"arn": "arn:aws:sts::123456789012:federated-user/x"}),
}


@pytest.mark.parametrize("case", sorted(IAM_REFUSALS))
def test_iam_fails_closed_with_no_aws_call_at_all(case: str, aws_calls: Counter[str]) -> None:
    relative, changes = IAM_REFUSALS[case]
    event = as_caller(relative, uri="athena://workgroups", **changes)
    error = read(lambda_container(IAM), event)["error"]
    assert error["data"]["error"] == "authentication_required"
    assert sum(aws_calls.values()) == 0, aws_calls


@pytest.mark.usefixtures("roles")
def test_a_role_whose_trust_refuses_the_function_gets_the_statement_to_add(sts: AwsFaults,
                                                                            aws_calls: Counter[str]) -> None:
    sts.fail("sts.AssumeRole", "AccessDenied", status=403, message=f"User: {FUNCTION_ROLE}/x is not authorized")
    event = as_caller("http-api-v2/iam-auth-status.json", uri="athena://workgroups")
    error = read(lambda_container(IAM), event)["error"]["data"]
    assert error["error"] == "access_denied" and error["action"] == "sts:AssumeRole"
    assert FUNCTION_ROLE in error["details"][0] and "sts:SetSourceIdentity" in error["details"][0]
    assert FUNCTION_ROLE not in error["message"]
    assert set(aws_calls) == {"sts:AssumeRole"}  # no data call


@pytest.mark.usefixtures("roles")
def test_a_forged_direct_invoke_from_outside_the_api_is_refused(aws_calls: Counter[str]) -> None:
    settings = Settings(mode="lambda", auth_mode="iam", expected_api_id="the-real-api")
    error = read(lambda_container(settings), load_event("http-api-v2/iam-auth-status.json"))
    assert status_of(error)["authenticated"] is False
    assert "did not come through this deployment's API" in status_of(error)["reason"]
    assert sum(aws_calls.values()) == 0


@pytest.mark.usefixtures("roles")
def test_three_callers_interleaved_through_one_warm_handler_each_see_only_themselves(sts: AwsFaults) -> None:
    invoke = lambda_container(IAM)
    callers = {f"{role}/{name}": as_caller("http-api-v2/iam-auth-status.json",
                                           arn=f"arn:aws:sts::123456789012:assumed-role/{role}/{name}")
               for role, name in (("DataAnalyst", "alice"), ("DataAdmin", "bob"), ("Contractor", "carol"))}
    for index in range(1000):
        who = list(callers)[index % 3]
        status = status_of(read(invoke, callers[who]))
        assert status["principal_arn"].endswith(f":assumed-role/{who}"), (index, who, status["principal_arn"])
    assert sts.calls["sts.AssumeRole"] == 3


@pytest.mark.usefixtures("roles")
def test_concurrent_resolution_never_crosses_callers() -> None:
    arns = [f"arn:aws:sts::123456789012:assumed-role/{role}/user{index}"
            for index, role in enumerate(("DataAnalyst", "DataAdmin", "Contractor") * 4)]
    wrong: list[str] = []

    def resolve(arn: str) -> None:
        scope = {"aws.event": as_caller("http-api-v2/iam-auth-status.json", arn=arn)}
        for _ in range(50):
            caller = hosted.resolve(scope, IAM)
            role, session = arn.rsplit("/", 2)[-2:]
            if not (caller.principal_arn or "").endswith(f"{role}/{session}"):
                wrong.append(f"{arn} -> {caller.principal_arn}")

    threads = [threading.Thread(target=resolve, args=(arn,)) for arn in arns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


# --------------------------------------------------------------------------- oidc


@pytest.mark.usefixtures("roles")
def test_oidc_exchanges_the_validated_token_for_the_role_its_claims_map_to(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRoleWithWebIdentity")
    invoke = lambda_container(OIDC)
    analyst = status_of(read(invoke, load_event("http-api-v2/oidc-auth-status.json")))
    admin = json.loads(read(invoke, load_event("http-api-v2/oidc-second-caller-workgroups.json"))
                       ["result"]["contents"][0]["text"])
    assert analyst["principal_arn"] == "arn:aws:sts::123456789012:assumed-role/DataAnalyst/dana"
    assert admin["count"] >= 1
    bearer = load_event("http-api-v2/oidc-auth-status.json")["headers"]["authorization"].split()[1]
    assert requests[0]["WebIdentityToken"] == bearer
    assert (requests[0]["RoleArn"], requests[0]["RoleSessionName"]) == (f"{ROLE}/DataAnalyst", "dana")
    assert (requests[1]["RoleArn"], requests[1]["RoleSessionName"]) == (f"{ROLE}/DataAdmin", "erin")  # first held wins


OIDC_REFUSALS = {
    "no bearer token": ("http-api-v2/oidc-no-bearer.json", "authentication_required", None),
    "no claims": ("http-api-v2/iam-auth-status.json", "authentication_required", None),
    "a token STS rejects": ("http-api-v2/oidc-auth-status.json", "authentication_required", "InvalidIdentityToken"),
    "an expired token": ("http-api-v2/oidc-auth-status.json", "authentication_required", "ExpiredTokenException"),
    "a role that does not trust the provider": ("http-api-v2/oidc-auth-status.json", "access_denied", "AccessDenied"),
}


@pytest.mark.parametrize("case", sorted(OIDC_REFUSALS))
@pytest.mark.usefixtures("roles")
def test_oidc_fails_closed_with_no_aws_data_call(case: str, sts: AwsFaults, aws_calls: Counter[str]) -> None:
    relative, code, sts_error = OIDC_REFUSALS[case]
    if sts_error:
        sts.fail("sts.AssumeRoleWithWebIdentity", sts_error, status=400)
    event = as_caller(relative, uri="athena://workgroups")
    error = read(lambda_container(OIDC), event)["error"]["data"]
    assert error["error"] == code
    assert set(aws_calls) <= {"sts:AssumeRoleWithWebIdentity"}


def test_oidc_without_any_configured_role_is_refused_clearly(aws_calls: Counter[str]) -> None:
    settings = Settings(mode="lambda", auth_mode="oidc")
    status = status_of(read(lambda_container(settings), load_event("http-api-v2/oidc-auth-status.json")))
    assert status["authenticated"] is False and "AWS_DATA_MCP_OIDC_ROLE_ARN" not in status["reason"]
    assert sum(aws_calls.values()) == 0


def test_session_names_follow_sts_rules() -> None:
    assert sts_name("auth0|5f7c8ec7c33c6c004bbafe82") == "auth0-5f7c8ec7c33c6c004bbafe82-41aa4878"
    assert sts_name("x") == "x-2d711642" and len(sts_name("a" * 100)) == 64  # distinct people, distinct names
    # STS's \w is ASCII: Unicode letters and digits would pass Python's \w and be refused by STS.
    assert sts_name("josé.müller@example.com") == "jos-.m-ller@example.com-a0a6a838"
    for name in ("张伟", "Ωmega", "\uff11\uff12\uff13", "ǅ", "x\u200by", "é" * 100):
        assert STS_NAME.fullmatch(sts_name(name)), name


@pytest.mark.usefixtures("roles")
def test_a_non_ascii_subject_reaches_sts_as_a_name_it_accepts(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRoleWithWebIdentity")
    status = status_of(read(lambda_container(OIDC), oidc_event("renée", ["analysts"])))
    assert status["authenticated"] is True
    assert requests[0]["RoleSessionName"].startswith("ren-e-") and STS_NAME.fullmatch(requests[0]["RoleSessionName"])


@pytest.mark.parametrize(("mode", "duration"), [("iam", 3600), ("oidc", 43200)])
@pytest.mark.usefixtures("roles")
def test_iam_asks_for_at_most_the_hour_role_chaining_allows(mode: str, duration: int, sts: AwsFaults) -> None:
    """AssumeRole with the function's own (assumed-role) credentials is role chaining: AWS refuses more than an hour.
    AssumeRoleWithWebIdentity is not chained: it gets the whole configured duration."""
    settings = dataclasses.replace(IAM if mode == "iam" else OIDC, session_duration_seconds=43200)
    operation = "sts.AssumeRole" if mode == "iam" else "sts.AssumeRoleWithWebIdentity"
    requests = sent(sts, operation)
    event = iam_event("DataAnalyst", "alice") if mode == "iam" else oidc_event("dana", ["analysts"])
    assert status_of(read(lambda_container(settings), event))["authenticated"] is True
    assert [request["DurationSeconds"] for request in requests] == [str(duration)]


# --------------------------------------------------------------------------- secrets


SECRET_HYGIENE_RUN = {
    "oidc": ["oidc-auth-status", "oidc-second-caller-workgroups", "oidc-group-named-not-admins",
             "oidc-token-of-another-subject", "oidc-no-bearer", "oidc-malformed-bearer"],
    "iam": ["iam-auth-status", "iam-second-caller-workgroups", "iam-unmapped-user"],
}
"""Each mode's callers and refusals, interleaved in the run."""


@pytest.mark.usefixtures("roles")
def test_no_token_key_or_secret_reaches_a_log_line_or_a_response(log_records: RecordKeeper,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    """Every line the server writes at the levels it runs with (its own at DEBUG here; libraries at the WARNING
    `observability.configure` pins them to: botocore's DEBUG lines print request headers and STS response bodies,
    credentials included, which is why the server never lets them through), over interleaved requests of
    every caller and refusal of both modes, each warm handler answering callers in turn."""
    handlers = {"oidc": lambda_container(OIDC), "iam": lambda_container(IAM)}
    events = [(mode, load_event(f"http-api-v2/{name}.json")) for mode, names in SECRET_HYGIENE_RUN.items()
              for name in names]
    logging.getLogger("aws-data-mcp").setLevel(logging.DEBUG)
    try:
        assert all(logging.getLogger(name).level == logging.WARNING for name in ("botocore", "mcp", "mangum"))
        answers = [json.dumps(read(handlers[mode], event)) for _ in range(10) for mode, event in events]
    finally:
        logging.getLogger("aws-data-mcp").setLevel(logging.INFO)
    tokens = {event["headers"]["authorization"].split()[1] for _, event in events
              if event["headers"].get("authorization", "").startswith("Bearer eyJ")}
    credentials = set()
    for _until, caller in exchanges._entries.values():
        frozen = caller.session.get_credentials().get_frozen_credentials()
        credentials |= {frozen.access_key, frozen.secret_key, frozen.token}
    assert len(tokens) == 4 and len(credentials) == 3 * 5, "every token, and the credentials of five callers"
    audit_lines = [record for record in log_records.records if record.getMessage() == "mcp call"]
    assert len(audit_lines) == len(answers), "one audit line per request, each searched below"
    captured = everything_written(log_records, capfd, *answers)
    leaked = [secret[:6] for secret in tokens | credentials if secret in captured]
    assert leaked == []


AUTH_EVENT_OUTCOMES = {
    "http-api-v2/iam-auth-status.json": (IAM, "DataAnalyst/alice@example.com"),
    "http-api-v2/iam-second-caller-workgroups.json": (IAM, None),
    "http-api-v2/iam-unmapped-user.json": (IAM, "authentication_required"),
    "http-api-v2/iam-no-authorizer-spoofed-headers.json": (IAM, "authentication_required"),
    "rest-v1/iam-auth-status.json": (IAM, "DataAnalyst/alice@example.com"),
    "http-api-v2/oidc-auth-status.json": (OIDC, "DataAnalyst/dana"),
    "http-api-v2/oidc-second-caller-workgroups.json": (OIDC, None),
    "http-api-v2/oidc-no-bearer.json": (OIDC, "authentication_required"),
    "http-api-v2/oidc-group-named-not-admins.json": (OIDC, "DataAnalyst/frank"),  # not DataAdmin: one group
    "http-api-v2/oidc-token-of-another-subject.json": (OIDC, "authentication_required"),
    "http-api-v2/oidc-malformed-bearer.json": (OIDC, "authentication_required"),
    "rest-v1/iam-second-caller-workgroups.json": (IAM, None),
    "rest-v1/iam-no-identity-spoofed-headers.json": (IAM, "authentication_required"),
}


def test_every_auth_event_is_replayed_with_its_mode() -> None:
    from support.events import EVENTS

    names = {str(p.relative_to(EVENTS)) for p in EVENTS.rglob("*.json") if p.name.startswith(("iam-", "oidc-"))}
    assert names == set(AUTH_EVENT_OUTCOMES)


@pytest.mark.parametrize("relative", sorted(AUTH_EVENT_OUTCOMES))
@pytest.mark.usefixtures("roles")
def test_auth_event_replays_with_its_outcome(relative: str, aws_calls: Counter[str]) -> None:
    settings, expected = AUTH_EVENT_OUTCOMES[relative]
    answer = read(lambda_container(settings), load_event(relative))
    if expected == "authentication_required":  # auth://status answers everyone: it says so instead
        if "error" in answer:
            assert answer["error"]["data"]["error"] == expected
        else:
            assert status_of(answer)["authenticated"] is False
        assert sum(aws_calls.values()) == 0, aws_calls
        return
    document = json.loads(answer["result"]["contents"][0]["text"])
    if expected is None:  # a second caller reading AWS data as itself
        assert document["count"] >= 1
    else:
        assert document["principal_arn"].endswith(f"assumed-role/{expected}")
        assert document["identity_digest"]


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])
@pytest.mark.parametrize(("stage", "resource"), [
    ("$default", "https://abc123.execute-api.us-east-1.amazonaws.com/mcp"),  # at the host root, where clients look
    ("prod", "https://abc123.execute-api.us-east-1.amazonaws.com/prod/mcp"),
])
def test_oidc_publishes_protected_resource_metadata_without_a_token(path: str, stage: str, resource: str,
                                                                    aws_calls: Counter[str]) -> None:
    from support.events import http_api_event

    settings = Settings(mode="lambda", auth_mode="oidc", oidc_issuer="https://issuer.example.com/")
    event = http_api_event(None, method="GET", stage=stage, path=path)
    response = lambda_container(settings)(event)
    assert response["statusCode"] == 200
    metadata = json.loads(response["body"])
    assert metadata["resource"] == resource
    assert metadata["authorization_servers"] == ["https://issuer.example.com/"]
    assert metadata["bearer_methods_supported"] == ["header"]
    assert sum(aws_calls.values()) == 0
    iam = lambda_container(IAM)(event)
    assert iam["statusCode"] == 404  # the iam mode publishes no OAuth metadata
