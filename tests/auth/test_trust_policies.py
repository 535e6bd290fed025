"""oidc: AWS's own evaluation of each role's trust grants a user exactly the role the function's map gives them.

STS's AssumeRoleWithWebIdentity needs no AWS credentials: whoever holds a token for this audience can call it
directly, for any role. Before, every mapped role trusted the provider on `aud` alone (and the demo's roles on
nothing), so an analyst could exchange their own token for the admins' role. Each role's trust now checks the same
value the map reads (the principal tag STS sets from the token, or the subject), and the default role refuses every
value mapped elsewhere. Checked here for every user and role: of the demo (its roles as the demo seeds them, its
tokens as the demo issuer writes them), of docs/auth.md's example (its statements, which equal the refusal's), and of
the `sub` alternative; the function's choice is the function's own (`claim_oidc`), never restated here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from aws_data_mcp.config import ENV_PREFIX, SettingError, Settings
from aws_data_mcp.identity.hosted.claim import Refused
from aws_data_mcp.identity.hosted.oidc import claim_oidc
from aws_data_mcp.identity.hosted.trust import TAGS_CLAIM, oidc_trust
from aws_data_mcp_demo.account.callers import (
    CALLERS,
    DEMO_AUDIENCE,
    DEMO_PROVIDER,
    identity_claims,
    seed_hosted_callers,
)
from support.servers import lambda_container

from .hosted_support import ACCOUNT, AUDIENCE, ISSUER, OIDC, ROLE_TAG, error_of, oidc_event, read, token
from .trust_evaluation import admits, web_identity_context

PROVIDER_ARN = f"arn:aws:iam::{ACCOUNT}:oidc-provider/issuer.example.com"
ROLES = [f"arn:aws:iam::{ACCOUNT}:role/{name}" for name in ("DataAnalyst", "DataAdmin", "Contractor")]


def _claims(sub: str, issuer: str, audience: str, **extra: Any) -> dict[str, Any]:
    return {"sub": sub, "iss": issuer, "aud": audience, "exp": 4102444800, **extra}


def _function_role(claims: dict[str, Any], settings: Settings) -> str | None:
    """The role the function's map gives the token (None: refused before STS)."""
    bearer = token(claims["sub"], None, **{k: v for k, v in claims.items() if k != "sub"})
    context = {"authorizer": {"jwt": {"claims": {k: claims[k] for k in ("sub", "iss", "aud")}}}}
    try:
        return claim_oidc(context, {"authorization": f"Bearer {bearer}"}, settings).role_arn
    except Refused:
        return None


def _verdicts(users: dict[str, dict[str, Any]], trusts: dict[str, dict[str, Any]], provider_arn: str,
              settings: Settings, issuer: str) -> dict[tuple[str, str], tuple[bool, bool]]:
    """(user, role) -> (AWS admits the exchange, the function maps the user there), for every user and role."""
    return {(user, role): (admits(trust, provider_arn, web_identity_context(claims, issuer)),
                           _function_role(claims, settings) == role)
            for user, claims in users.items() for role, trust in trusts.items()}


def _disagreements(verdicts: dict[tuple[str, str], tuple[bool, bool]]) -> list[str]:
    return [f"{user} -> {role}: trust {'admits' if aws else 'refuses'}, map {'gives it' if mapped else 'does not'}"
            for (user, role), (aws, mapped) in verdicts.items() if aws != mapped]


class _RecordingIam:
    """Stands in for the demo seed's IAM client: keeps each role's trust policy as the seed writes it."""

    def __init__(self) -> None:
        self.trusts: dict[str, dict[str, Any]] = {}

    def create_role(self, RoleName: str, AssumeRolePolicyDocument: str, **_: Any) -> dict[str, Any]:
        arn = f"arn:aws:iam::{ACCOUNT}:role/{RoleName}"
        self.trusts[arn] = json.loads(AssumeRolePolicyDocument)
        return {"Role": {"Arn": arn}}

    def __getattr__(self, name: str) -> Any:  # put_role_policy, create_user, put_user_policy: not trust
        return lambda **_: {}


def test_each_demo_user_gets_from_sts_exactly_the_role_the_map_gives_them() -> None:
    iam = _RecordingIam()
    arns = seed_hosted_callers(iam, ACCOUNT, "us-east-1")
    settings = Settings(auth_mode="oidc", oidc_role_arn=arns["demo-analyst-role"],
                        oidc_role_map=tuple((caller.group, arns[caller.role]) for caller in CALLERS))
    issuer = f"https://{DEMO_PROVIDER}"
    users = {caller.name: _claims(**identity_claims(caller), issuer=issuer, audience=DEMO_AUDIENCE)
             for caller in CALLERS}
    users["dave, no role tag"] = _claims("dave", issuer, DEMO_AUDIENCE, groups=["analysts"])
    users["erin, an unmapped tag"] = _claims("erin", issuer, DEMO_AUDIENCE,
                                             **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["auditors"]}}})
    verdicts = _verdicts(users, iam.trusts, f"arn:aws:iam::{ACCOUNT}:oidc-provider/{DEMO_PROVIDER}", settings,
                         issuer)
    assert _disagreements(verdicts) == []
    assert verdicts[("alice", arns["demo-admin-role"])] == (False, False), "an analyst's token is no admin's"
    assert sum(aws for aws, _ in verdicts.values()) == len(users), "each user gets one role, no more"


def test_the_demo_issuer_writes_each_callers_role_tag() -> None:
    for caller in CALLERS:
        claims = identity_claims(caller)
        assert claims["sub"] == caller.name
        assert claims[TAGS_CLAIM]["principal_tags"] == {ROLE_TAG: [caller.group]}


USERS = {
    "dana (analysts)": _claims("dana", ISSUER, AUDIENCE, **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["analysts"]}}}),
    "erin (admins)": _claims("erin", ISSUER, AUDIENCE, **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["admins"]}}}),
    "frank (contractors)": _claims("frank", ISSUER, AUDIENCE,
                                   **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: "contractors"}}}),
    "gina (no tag)": _claims("gina", ISSUER, AUDIENCE),
    "hal (not admins)": _claims("hal", ISSUER, AUDIENCE,
                                **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["not admins"]}}}),
    "ivy (Admins)": _claims("ivy", ISSUER, AUDIENCE, **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["Admins"]}}}),
    "jo (the tag key in capitals)": _claims("jo", ISSUER, AUDIENCE,
                                            **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG.upper(): ["admins"]}}}),
    "kim (another audience)": _claims("kim", ISSUER, "another-client",
                                      **{TAGS_CLAIM: {"principal_tags": {ROLE_TAG: ["admins"]}}}),
}


def _policies(settings: Settings) -> dict[str, dict[str, Any]]:
    return {role: {"Statement": oidc_trust(settings, role, ISSUER, AUDIENCE)} for role in ROLES}


def test_by_role_tag_every_user_gets_from_sts_exactly_the_role_the_map_gives_them() -> None:
    users = {name: claims for name, claims in USERS.items() if claims["aud"] == AUDIENCE}
    assert _disagreements(_verdicts(users, _policies(OIDC), PROVIDER_ARN, OIDC, ISSUER)) == []


def test_a_token_for_another_audience_gets_no_role_from_sts() -> None:
    context = web_identity_context(USERS["kim (another audience)"], ISSUER)
    assert not any(admits(policy, PROVIDER_ARN, context) for policy in _policies(OIDC).values())


def test_by_subject_every_user_gets_from_sts_exactly_the_role_the_map_gives_them() -> None:
    """The alternative for providers that cannot write the tags claim: the trust lists each role's subjects."""
    settings = Settings(auth_mode="oidc", oidc_role_claim="sub", oidc_role_arn=ROLES[0],
                        oidc_role_map=(("erin", ROLES[1]), ("frank", ROLES[2])))
    users = {name: _claims(name, ISSUER, AUDIENCE) for name in ("dana", "erin", "frank", "Erin", "erin ")}
    verdicts = _verdicts(users, _policies(settings), PROVIDER_ARN, settings, ISSUER)
    assert _disagreements(verdicts) == []
    assert verdicts[("erin", ROLES[1])] == (True, True) and verdicts[("dana", ROLES[1])] == (False, False)


def test_the_documented_statements_grant_exactly_what_the_map_gives() -> None:
    """docs/auth.md's own blocks (which equal what a refusal prints), evaluated: its admin's and analyst's trust."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "auth.md").read_text()
    _iam, admin, analyst, _by_subject = [json.loads(block) for block in
                                         re.findall(r"```json\n(\[?\{\"Effect\".*?)\n```", readme, re.S)]
    settings = Settings(auth_mode="oidc", oidc_role_arn="arn:aws:iam::<account>:role/DataAnalyst",
                        oidc_role_map=(("data-admins", "arn:aws:iam::<account>:role/DataAdmin"),))
    trusts = {"arn:aws:iam::<account>:role/DataAdmin": {"Statement": admin},
              "arn:aws:iam::<account>:role/DataAnalyst": {"Statement": analyst}}
    issuer = "https://login.example.com"
    users = {name: _claims(name, issuer, "aws-data-mcp", **({TAGS_CLAIM: {"principal_tags": {ROLE_TAG: [tag]}}}
                                                            if tag else {}))
             for name, tag in (("ann", "data-admins"), ("ben", "analysts"), ("cy", None), ("di", "data-admin"))}
    verdicts = _verdicts(users, trusts, "arn:aws:iam::<account>:oidc-provider/login.example.com", settings, issuer)
    assert _disagreements(verdicts) == []


MALFORMED_TAGS = {
    "a list of objects": [{"principal_tags": {ROLE_TAG: ["admins"]}}],
    "no principal_tags": {"transitive_tag_keys": []},
    "principal_tags not an object": {"principal_tags": ["admins"]},
    "two values": {"principal_tags": {ROLE_TAG: ["admins", "analysts"]}},
    "the key twice, in two cases": {"principal_tags": {ROLE_TAG: ["analysts"], ROLE_TAG.upper(): ["admins"]}},
    "a number": {"principal_tags": {ROLE_TAG: [7]}},
}


@pytest.mark.parametrize("case", sorted(MALFORMED_TAGS))
@pytest.mark.usefixtures("roles")
def test_a_tags_claim_sts_would_read_otherwise_is_refused_with_no_aws_call(case: str,
                                                                          aws_calls: Counter[str]) -> None:
    event = oidc_event("mallory", None, uri="athena://workgroups", **{TAGS_CLAIM: MALFORMED_TAGS[case]})
    error = error_of(read(lambda_container(OIDC), event))
    assert error["error"] == "authentication_required" and error["retryable"] is False
    assert sum(aws_calls.values()) == 0, aws_calls  # STS included


@pytest.mark.parametrize("claim", ["groups", "cognito:groups", "email"])
def test_a_role_map_on_a_claim_no_trust_can_check_is_refused_at_start(claim: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The former default (`groups`) chose a role that any token holder could take through STS directly."""
    monkeypatch.setenv(f"{ENV_PREFIX}AUTH_MODE", "oidc")
    monkeypatch.setenv(f"{ENV_PREFIX}OIDC_ROLE_CLAIM", claim)
    monkeypatch.setenv(f"{ENV_PREFIX}OIDC_ROLE_MAP", json.dumps({"admins": ROLES[1]}))
    with pytest.raises(SettingError) as refused:
        Settings.from_env("lambda")
    message = str(refused.value)
    assert f"OIDC_ROLE_CLAIM={claim!r}" in message and "`tag`" in message and "`sub`" in message
    monkeypatch.delenv(f"{ENV_PREFIX}OIDC_ROLE_MAP")
    assert Settings.from_env("lambda").oidc_role_claim == claim, "one role for every token: nothing to enforce"
