"""oidc: the role comes from the bearer token's own role tag, and only from the token the authorizer validated.

API Gateway's JWT authorizer passes an array claim on flattened into one string ("[not admins]"); split back on
spaces, a group named "not admins" read as the two groups "not" and "admins" and mapped to the admins' role. The
function now reads the claim from the token's payload (arrays as arrays) after checking that the token is the one
the authorizer vouched for (same sub, iss and aud); a token it cannot read, or a header that is no bearer JWT, is
refused before STS is asked anything.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from aws_data_mcp.identity import hosted
from aws_data_mcp.identity.hosted.oidc import MAX_TOKEN_CHARS
from support.faults import AwsFaults
from support.servers import lambda_container

from .hosted_support import (
    ACCOUNT,
    OIDC,
    error_of,
    oidc_event,
    read,
    status_of,
    token,
)

ANALYST = f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/"
ADMIN = f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAdmin/"


def sent_role(sts: AwsFaults) -> list[str]:
    """The RoleArn of every AssumeRoleWithWebIdentity request, as sent."""
    roles: list[str] = []

    def record(request: object) -> bool:
        body = request.body if isinstance(request.body, str) else request.body.decode()  # type: ignore[attr-defined]
        roles.extend(part.split("=", 1)[1] for part in body.split("&") if part.startswith("RoleArn="))
        return False

    sts.fail("sts.AssumeRoleWithWebIdentity", "unused", when=record)
    return roles


@pytest.mark.usefixtures("roles")
def test_a_group_named_not_admins_does_not_map_to_the_admins_role(sts: AwsFaults) -> None:
    """The reported escalation: the authorizer's "[not admins]" is one group, "not admins"."""
    sent = sent_role(sts)
    status = status_of(read(lambda_container(OIDC), oidc_event("frank", ["not admins"])))
    assert status["principal_arn"] == ANALYST + "frank", "the default role: no group of frank's is 'admins'"
    assert sent == ["arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2FDataAnalyst"]


REFUSED = "refused before STS"


@pytest.mark.parametrize(("role_tag", "role"), [
    (["admins"], ADMIN),
    (["analysts", "admins"], REFUSED),  # a session tag holds one value: STS would not read two
    (["contractors", "admins"], REFUSED),
    (["contractors"], f"arn:aws:sts::{ACCOUNT}:assumed-role/Contractor/"),
    ("admins", ADMIN),  # a single string is one value
    ("not admins", ANALYST),  # ...never split
    (["admins,analysts"], ANALYST),  # a comma is part of the value
    ([], REFUSED),
    (None, ANALYST),  # no such tag: the default role
    ([{"admins": True}, 7, True], REFUSED),  # values that are no strings select nothing
])
@pytest.mark.usefixtures("roles")
def test_the_role_claim_is_read_as_the_issuer_wrote_it(role_tag: object, role: str, aws_calls: Counter[str]) -> None:
    status = status_of(read(lambda_container(OIDC), oidc_event("gina", role_tag)))
    if role == REFUSED:
        assert status["authenticated"] is False and "not one text value" in status["reason"]
        assert sum(aws_calls.values()) == 0, aws_calls
    else:
        assert status["principal_arn"] == role + "gina"


@pytest.mark.usefixtures("roles")
def test_an_audience_list_matches_its_flattened_form() -> None:
    event = oidc_event("hal", ["admins"], aud=["aws-data-mcp", "other-client"])
    assert event["requestContext"]["authorizer"]["jwt"]["claims"]["aud"] == "[aws-data-mcp other-client]"
    assert status_of(read(lambda_container(OIDC), event))["principal_arn"] == ADMIN + "hal"


def _swap_token(event: dict, other: str) -> dict:
    event["headers"]["authorization"] = f"Bearer {other}"
    return event


NOT_THE_VALIDATED_TOKEN = {
    "another subject": lambda: _swap_token(oidc_event("dana", ["analysts"]), token("mallory", ["admins"])),
    "another issuer": lambda: _swap_token(oidc_event("dana", ["admins"]),
                                          token("dana", ["admins"], iss="https://evil.example.com")),
    "another audience": lambda: _swap_token(oidc_event("dana", ["admins"]), token("dana", ["admins"], aud="other")),
    "no audience where one was validated": lambda: _swap_token(oidc_event("dana", ["admins"]),
                                                               token("dana", ["admins"], aud=None)),
    "no issuer in the token": lambda: _swap_token(oidc_event("dana", ["admins"]), token("dana", ["admins"], iss=None)),
    "a numeric subject": lambda: _swap_token(oidc_event("7", ["admins"]), token(7, ["admins"])),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", sorted(NOT_THE_VALIDATED_TOKEN))
@pytest.mark.usefixtures("roles")
def test_a_token_other_than_the_validated_one_is_refused_before_sts(case: str, aws_calls: Counter[str]) -> None:
    event = NOT_THE_VALIDATED_TOKEN[case]()
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                "params": {"uri": "athena://workgroups"}})
    error = error_of(read(lambda_container(OIDC), event))
    assert error["error"] == "authentication_required" and error["retryable"] is False
    assert "not the one API Gateway validated" in error["message"]
    assert sum(aws_calls.values()) == 0, aws_calls


MALFORMED_BEARERS = {
    "two words": "Bearer x y",
    "scheme only": "Bearer",
    "blank token": "Bearer    ",
    "empty header": "",
    "basic credentials": "Basic dXNlcjpwYXNz",
    "two segments": "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkYW5hIn0",
    "four segments": f"Bearer {token('dana', ['analysts'])}.x",
    "an empty signature": "Bearer " + token("dana", ["analysts"]).rsplit(".", 1)[0] + ".",
    "two bearers joined by API Gateway": f"Bearer {token('dana', ['analysts'])},Bearer {token('dana', ['analysts'])}",
    "not base64url": "Bearer ey!.ey!.sig",
    "a payload that is no JSON": "Bearer eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln",
    "a payload that is a JSON array": "Bearer eyJhbGciOiJSUzI1NiJ9.WzEsMl0.c2ln",
    "no expiry": f"Bearer {token('dana', ['analysts'], exp=None)}",
    "a text expiry": f"Bearer {token('dana', ['analysts'], exp='soon')}",
}


@pytest.mark.parametrize("case", sorted(MALFORMED_BEARERS))
@pytest.mark.usefixtures("roles")
def test_a_malformed_bearer_is_refused_with_no_aws_call_at_all(case: str, aws_calls: Counter[str]) -> None:
    event = oidc_event("dana", ["analysts"], uri="athena://workgroups", bearer=MALFORMED_BEARERS[case])
    error = error_of(read(lambda_container(OIDC), event))
    assert error["error"] == "authentication_required" and error["retryable"] is False
    assert any("Authorization: Bearer" in detail for detail in error["details"])
    assert sum(aws_calls.values()) == 0, aws_calls  # STS included


@pytest.mark.usefixtures("roles")
def test_a_lowercase_scheme_and_surrounding_spaces_are_still_a_bearer() -> None:
    event = oidc_event("ivy", ["admins"], bearer=f"  bearer {token('ivy', ['admins'])}  ")
    assert status_of(read(lambda_container(OIDC), event))["principal_arn"] == ADMIN + "ivy"


def test_an_oversized_token_is_refused_by_the_seam_itself(aws_calls: Counter[str]) -> None:
    """The HTTP edge answers 431 to any header over 8 KiB; the seam bounds what it decodes on its own too."""
    event = oidc_event("dana", ["analysts"], bearer="Bearer " + "a" * (MAX_TOKEN_CHARS + 1) + ".b.c")
    caller = hosted.resolve({"aws.event": event}, OIDC)
    assert caller.authenticated is False and "not a bearer JWT" in (caller.unauthenticated_reason or "")
    assert sum(aws_calls.values()) == 0
