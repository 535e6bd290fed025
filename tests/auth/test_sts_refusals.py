"""Every way STS can refuse the exchange: a clear refusal naming what to fix, no data call, and nothing leaked.

The issue allows only `authentication_required` or `access_denied` for an STS failure. Throttling (or STS being out
of reach for a moment) is `authentication_required` with `retryable: true` and a message saying to retry; the rest
say who fixes what. No answer carries the token, STS's own message (it names the function's role), or the function
role's ARN, except inside the trust statement an iam caller's role must add.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.claim import Claim
from aws_data_mcp.identity.hosted.exchange import exchanges
from aws_data_mcp.identity.hosted.refusals import trust_statement
from support.faults import AwsFaults
from support.logs import RecordKeeper
from support.servers import lambda_container

from .hosted_support import (
    FUNCTION_ROLE,
    IAM,
    OIDC,
    error_of,
    everything_written,
    iam_event,
    oidc_event,
    read,
    status_of,
)

FEWEST_ATTEMPTS = {"iam": dataclasses.replace(IAM, max_attempts=1), "oidc": dataclasses.replace(OIDC, max_attempts=1)}
"""The least retrying the settings allow: one attempt (`max_attempts` counts the first one)."""
OPERATION = {"iam": "sts.AssumeRole", "oidc": "sts.AssumeRoleWithWebIdentity"}
AWS_MESSAGE = f"AWS-SAYS User: {FUNCTION_ROLE.replace(':iam:', ':sts:')}/fn is not authorized to perform this"
TRUST_HINT = "to the trust policy of"

# mode, STS error code, HTTP status -> the answer's code, whether it is retryable, and what it tells the caller
CASES: dict[tuple[str, str], tuple[int, str, bool, str]] = {
    ("iam", "Throttling"): (400, "authentication_required", True, "Retry in a few seconds"),
    ("iam", "InternalFailure"): (500, "authentication_required", True, "Retry in a few seconds"),
    ("iam", "AccessDenied"): (403, "access_denied", False, "sts:SetSourceIdentity"),
    ("iam", "ExpiredToken"): (400, "authentication_required", True, "execution role"),
    ("iam", "ExpiredTokenException"): (400, "authentication_required", True, "execution role"),
    ("iam", "InvalidClientTokenId"): (403, "authentication_required", True, "execution role"),
    ("iam", "RegionDisabledException"): (403, "authentication_required", False, "activates the region's STS"),
    ("iam", "ValidationError"): (400, "authentication_required", False, "a role ARN as IAM writes it"),
    ("iam", "PackedPolicyTooLarge"): (400, "authentication_required", False, "tell the operator"),
    ("oidc", "Throttling"): (400, "authentication_required", True, "Retry in a few seconds"),
    ("oidc", "AccessDenied"): (403, "access_denied", False, "oidc-provider/issuer.example.com"),
    ("oidc", "ExpiredTokenException"): (400, "authentication_required", False, "Sign in again"),
    ("oidc", "InvalidIdentityToken"): (400, "authentication_required", False,
                                       "OIDC identity provider exists for https://issuer.example.com"),
    ("oidc", "IDPRejectedClaim"): (403, "authentication_required", False, "Sign in again"),
    ("oidc", "IDPCommunicationError"): (400, "authentication_required", True, "Retry in a few seconds"),
    ("oidc", "RegionDisabledException"): (403, "authentication_required", False, "activates the region's STS"),
    ("oidc", "ValidationError"): (400, "authentication_required", False, "maximum session duration"),
}


def _event(mode: str) -> dict:
    return iam_event("DataAnalyst", "alice", uri="athena://workgroups") if mode == "iam" else \
        oidc_event("dana", ["analysts"], uri="athena://workgroups")


@pytest.mark.parametrize(("mode", "code"), sorted(CASES))
@pytest.mark.usefixtures("roles")
def test_an_sts_refusal_names_what_to_fix_and_nothing_else(mode: str, code: str, sts: AwsFaults,
                                                            aws_calls: Counter[str]) -> None:
    status, expected, retryable, guidance = CASES[(mode, code)]
    sts.fail(OPERATION[mode], code, status=status, message=AWS_MESSAGE)
    event = _event(mode)
    answer = read(lambda_container(FEWEST_ATTEMPTS[mode]), event)
    error = error_of(answer)
    assert (error["error"], error["retryable"]) == (expected, retryable)
    told = " ".join([error["message"], *error["details"]])
    assert guidance in told
    if retryable:
        assert "Retry" in told
    assert set(aws_calls) == {OPERATION[mode].replace(".", ":")}, "STS only: no data call"
    text = json.dumps(answer)
    assert "AWS-SAYS" not in text, "STS's own message never reaches the caller"
    if mode == "oidc":
        assert event["headers"]["authorization"].split()[1] not in text, "the token never comes back"
    outside_trust = [line for line in (error["message"], *error["details"]) if TRUST_HINT not in line]
    assert FUNCTION_ROLE not in " ".join(outside_trust)
    if mode == "oidc":
        assert FUNCTION_ROLE not in text, "the oidc trust statement names the identity provider, never the function"


@pytest.mark.usefixtures("roles")
def test_the_iam_trust_statement_is_the_only_place_the_function_role_appears(sts: AwsFaults) -> None:
    sts.fail("sts.AssumeRole", "AccessDenied", status=403, message=AWS_MESSAGE)
    error = error_of(read(lambda_container(IAM), _event("iam")))
    (statement_line,) = [line for line in error["details"] if FUNCTION_ROLE in line]
    statement = json.loads(statement_line.split(": ", 1)[1])
    assert statement == {"Effect": "Allow", "Principal": {"AWS": FUNCTION_ROLE},
                         "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]}
    assert any("CallerRoleArnPattern" in line for line in error["details"]), \
        "a role outside the pattern is refused by the function's own policy, whatever its trust says"


@pytest.mark.usefixtures("roles")
def test_the_oidc_trust_statement_names_the_provider_and_audience(sts: AwsFaults) -> None:
    sts.fail("sts.AssumeRoleWithWebIdentity", "AccessDenied", status=403, message=AWS_MESSAGE)
    error = error_of(read(lambda_container(OIDC), _event("oidc")))
    assert error["action"] == "sts:AssumeRoleWithWebIdentity"
    statement = json.loads(error["details"][0].split(": ", 1)[1])
    assert not any("CallerRoleArnPattern" in line for line in error["details"]), "oidc needs no grant of the function"
    assert statement == [{  # the default role: the audience, and none of the tags the map sends elsewhere
        "Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/issuer.example.com"},
        "Action": ["sts:AssumeRoleWithWebIdentity", "sts:TagSession"],
        "Condition": {"StringEquals": {"issuer.example.com:aud": "aws-data-mcp"},
                      "StringNotEquals": {"aws:RequestTag/aws-data-mcp-role": ["admins", "contractors"]}}}]


@pytest.mark.parametrize("mode", ["iam", "oidc"])
@pytest.mark.usefixtures("roles")
def test_a_throttled_exchange_is_retryable_and_the_retry_acts_as_the_caller(mode: str, sts: AwsFaults) -> None:
    sts.fail(OPERATION[mode], "Throttling", status=400, times=1)  # the first request's one attempt
    invoke = lambda_container(FEWEST_ATTEMPTS[mode])
    event = _event(mode)
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                "params": {"uri": "auth://status"}})
    first = status_of(read(invoke, event))
    assert first["authenticated"] is False and "STS was busy" in first["reason"]
    assert exchanges.flights == 0 and len(exchanges) == 0, "a failed exchange leaves nothing behind"
    second = status_of(read(invoke, event))
    assert second["authenticated"] is True and second["principal_arn"].startswith("arn:aws:sts::")
    assert sts.calls[OPERATION[mode]] == 2


@pytest.mark.usefixtures("roles")
def test_standard_retries_ride_out_brief_throttling(sts: AwsFaults) -> None:
    """botocore's standard retry mode retries a throttled exchange: two throttles, then credentials."""
    sts.fail("sts.AssumeRoleWithWebIdentity", "Throttling", status=400, times=2)
    status = status_of(read(lambda_container(OIDC), oidc_event("dana", ["analysts"])))
    assert status["authenticated"] is True
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 3


def test_a_token_sts_would_see_is_never_logged(sts: AwsFaults, log_records: RecordKeeper,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    """Through the records of every logger (the library loggers do not propagate to the root, where caplog
    listens), not only the server's own."""
    sts.fail("sts.AssumeRoleWithWebIdentity", "InvalidIdentityToken", status=400, message=AWS_MESSAGE)
    event = oidc_event("dana", ["analysts"])
    bearer = event["headers"]["authorization"].split()[1]
    answer = json.dumps(read(lambda_container(OIDC), event))
    written = everything_written(log_records, capfd, answer)
    assert bearer not in written and "AWS-SAYS" not in written

DOCS_OIDC = Settings(auth_mode="oidc", oidc_role_arn="arn:aws:iam::<account>:role/DataAnalyst",
                      oidc_role_map=(("data-admins", "arn:aws:iam::<account>:role/DataAdmin"),))
"""The oidc example of docs/auth.md: admins by their role tag, everyone else the analysts' role."""


def test_the_documented_trust_statements_are_the_ones_a_refusal_prints() -> None:
    """What an operator copies from docs/auth.md grants exactly what the refusal asks for, in each mode (oidc: the
    mapped role, the default role, and the mapped role when the map reads the subject)."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "auth.md").read_text()
    blocks = [json.loads(block) for block in re.findall(r"```json\n(\[?\{\"Effect\".*?)\n```", readme, re.S)]
    iam = Claim(principal="caller", role_arn="arn:aws:iam::<account>:role/DataAnalyst", session_name="caller")
    oidc = dataclasses.replace(iam, token="token", issuer="https://login.example.com", audience="aws-data-mcp")
    admin = dataclasses.replace(oidc, role_arn="arn:aws:iam::<account>:role/DataAdmin")
    by_subject = dataclasses.replace(DOCS_OIDC, oidc_role_claim="sub",
                                     oidc_role_map=(("00u1a2b3c4", admin.role_arn),))
    printed = [json.loads(trust_statement(settings, claim)) for settings, claim in (
        (Settings(function_role_arn="<FunctionRoleArn>"), iam), (DOCS_OIDC, admin), (DOCS_OIDC, oidc),
        (by_subject, admin))]
    assert blocks == printed
