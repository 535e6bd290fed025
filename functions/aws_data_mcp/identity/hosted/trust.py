"""The trust each caller role needs, as AWS evaluates it: one source for the refusal advice, docs/auth.md and the demo.

oidc: AssumeRoleWithWebIdentity needs no AWS credentials. So a role's trust is all that stands
between a token for this audience and that role. Each role's trust checks again the value the role
map read. That is the token's principal tag (`aws:RequestTag/<tag>`, needing `sts:TagSession`) or
its subject. The default role admits only tokens the map sends nowhere else. AWS then grants each
user the map's roles.

iam: the function's own role, which assumes the caller's role again.
"""

from __future__ import annotations

from typing import Any

from aws_data_mcp.config import Settings

TAGS_CLAIM = "https://aws.amazon.com/tags"
"""The claim STS reads session tags from: {"principal_tags": {key: [value]}, "transitive_tag_keys": [...]}."""

Statement = dict[str, Any]


def provider_of(issuer: str) -> str:
    """The IAM OIDC provider's name for `issuer` (its URL without the scheme): the prefix of its condition keys."""
    return issuer.removeprefix("https://").rstrip("/")


def role_selector_key(settings: Settings, provider: str) -> str:
    """The condition key under which AWS sees what the role map reads."""
    return f"aws:RequestTag/{settings.oidc_role_tag}" if settings.oidc_role_claim == "tag" else f"{provider}:sub"


def oidc_trust(settings: Settings, role_arn: str, issuer: str | None, audience: str | None,
               account: str | None = None) -> list[Statement]:
    """The trust statements `role_arn` needs so that AWS admits exactly the tokens the role map sends to it.

    `account`: the same statements for the role's counterpart in that member account (docs/accounts.md), where the
    provider is that account's: the caller's token goes there directly, so no account trusts the function."""
    parts = role_arn.split(":")
    partition, account = (parts[1], account or parts[4]) if len(parts) > 4 else ("aws", account or "<account>")
    provider = provider_of(issuer or "<issuer>")
    actions: str | list[str] = ["sts:AssumeRoleWithWebIdentity", "sts:TagSession"] \
        if settings.oidc_role_claim == "tag" else "sts:AssumeRoleWithWebIdentity"
    base: Statement = {"Effect": "Allow",
                       "Principal": {"Federated": f"arn:{partition}:iam::{account}:oidc-provider/{provider}"},
                       "Action": actions}
    for_audience = {f"{provider}:aud": audience or "<audience>"}
    selector = role_selector_key(settings, provider)
    statements: list[Statement] = []
    mapped = [value for value, arn in settings.oidc_role_map if arn == role_arn]
    if mapped:
        statements.append({**base, "Condition": {"StringEquals": {**for_audience, selector: mapped}}})
    if role_arn == settings.oidc_role_arn:
        condition: dict[str, Any] = {"StringEquals": for_audience}
        if settings.oidc_role_map:  # a token the map sends elsewhere must not get the default role either
            condition["StringNotEquals"] = {selector: [value for value, _ in settings.oidc_role_map]}
        statements.append({**base, "Condition": condition})
    return statements


def member_iam_trust(caller_roles: list[str]) -> Statement:
    """The statement a member account's role needs so that sessions of exactly `caller_roles` (home roles' ARNs)
    may carry themselves there, and only with the SourceIdentity their home session carries (a pinned person)."""
    return {"Effect": "Allow", "Principal": {"AWS": caller_roles},
            "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"],
            "Condition": {"StringLike": {"sts:SourceIdentity": "*"}}}


def iam_trust(settings: Settings) -> Statement:
    """The statement a caller's role needs so the function's role may assume it for its callers."""
    actions = ["sts:AssumeRole", "sts:SetSourceIdentity", *(["sts:TagSession"] if settings.session_tags else [])]
    return {"Effect": "Allow", "Principal": {"AWS": settings.function_role_arn or "<FunctionRoleArn output>"},
            "Action": actions}
