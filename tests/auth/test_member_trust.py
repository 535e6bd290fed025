"""Member accounts' trust, evaluated as AWS evaluates it: every demo caller x role x account gets exactly what the
account map says (alice two accounts, bob three, carol one), in oidc (the caller's token, each account's own
provider) and iam (the caller's own home session, with its SourceIdentity)."""

from __future__ import annotations

import dataclasses

import pytest

from aws_data_mcp.config import Account
from aws_data_mcp.identity.accounts import role_in
from aws_data_mcp.identity.hosted.trust import member_iam_trust, oidc_trust, provider_of

from .hosted_support import ACCOUNT, AUDIENCE, ISSUER, OIDC, tags_claim
from .test_accounts import ACCOUNTS
from .trust_evaluation import admits, admits_session, web_identity_context

CALLERS = {"alice": ("analysts", "DataAnalyst"), "bob": ("admins", "DataAdmin"), "carol": ("contractors", "Contractor")}
"""Each demo caller: their role tag, and the home role it maps to."""
MEMBER_ROLES = {"home": {"DataAnalyst", "DataAdmin", "Contractor"}, "lake": {"DataAnalyst", "DataAdmin"},
                "sandbox": {"DataAdmin"}}
"""The account map: which home roles each account admits (the companion template deployed for each)."""
REACH = {"alice": {"home", "lake"}, "bob": {"home", "lake", "sandbox"}, "carol": {"home"}}
SETTINGS = dataclasses.replace(
    OIDC, accounts=ACCOUNTS, oidc_role_arn=f"arn:aws:iam::{ACCOUNT}:role/Contractor",
    oidc_role_map=(("analysts", f"arn:aws:iam::{ACCOUNT}:role/DataAnalyst"),
                   ("admins", f"arn:aws:iam::{ACCOUNT}:role/DataAdmin")))


def _granted(admitted: dict[tuple[str, str], bool]) -> dict[str, set[str]]:
    reach: dict[str, set[str]] = {who: set() for who in CALLERS}
    for (who, account), yes in admitted.items():
        if yes:
            reach[who].add(account)
    return reach


def test_oidc_member_trust_grants_exactly_the_map() -> None:
    admitted: dict[tuple[str, str], bool] = {}
    for who, (tag, _home_role) in CALLERS.items():
        claims = {"aud": AUDIENCE, "sub": who, "https://aws.amazon.com/tags": tags_claim(tag)}
        context = web_identity_context(claims, ISSUER)
        for name, number in ACCOUNTS:
            provider = f"arn:aws:iam::{number}:oidc-provider/{provider_of(ISSUER)}"
            mapped = role_in(SETTINGS, dict((v, a) for v, a in SETTINGS.oidc_role_map).get(tag, SETTINGS.oidc_role_arn),
                             Account(name, number))
            for role in sorted(MEMBER_ROLES[name]):
                home_role = f"arn:aws:iam::{ACCOUNT}:role/{role}"
                trust = {"Statement": oidc_trust(SETTINGS, home_role, ISSUER, AUDIENCE, account=number)}
                if admits(trust, provider, context):
                    assert mapped.endswith(f":role/{role}"), (who, role, name)  # only the role the map chose
                    admitted[(who, name)] = True
                admitted.setdefault((who, name), False)
    assert _granted(admitted) == REACH


@pytest.mark.parametrize("pinned", [True, False])
def test_iam_member_trust_grants_exactly_the_map(pinned: bool) -> None:
    admitted: dict[tuple[str, str], bool] = {}
    for who, (_tag, home_role) in CALLERS.items():
        session = f"arn:aws:sts::{ACCOUNT}:assumed-role/{home_role}/{who}"
        for name, _number in ACCOUNTS:
            if name == "home":  # the home session itself: nothing to carry
                admitted[(who, name)] = True
                continue
            for role in sorted(MEMBER_ROLES[name]):
                trust = {"Statement": [member_iam_trust([f"arn:aws:iam::{ACCOUNT}:role/{role}"])]}
                if admits_session(trust, session, who if pinned else None):
                    assert role == home_role, (who, role, name)
                    admitted[(who, name)] = True
                admitted.setdefault((who, name), False)
    expected = REACH if pinned else {who: {"home"} for who in CALLERS}  # no SourceIdentity: no other account
    assert _granted(admitted) == expected
