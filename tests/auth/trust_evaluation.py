"""A role's trust policy evaluated as AWS evaluates it for AssumeRoleWithWebIdentity, for the condition operators
the project's statements use (moto does not evaluate trust policies, and no maintained IAM policy evaluator is on
the package registries this project uses).

IAM's rules, as its policy evaluation logic documents them: a request is allowed when some Allow statement matches
its principal, action and every condition, and no Deny statement matches. Condition key names compare regardless of
case, values (String* operators) exactly; several values under one key match when any does; a key missing from the
request context matches no positive operator and every negated one (StringNotEquals on a missing key is true).
STS asks for `sts:TagSession` as well when the token carries session tags.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from aws_data_mcp.identity.hosted.trust import TAGS_CLAIM, provider_of

Context = dict[str, str]


def web_identity_context(claims: Mapping[str, Any], issuer: str) -> Context:
    """The request context STS builds from a token: <provider>:aud, <provider>:sub and aws:RequestTag/<key> per tag."""
    provider = provider_of(issuer)
    context = {f"{provider}:aud": str(claims["aud"]), f"{provider}:sub": str(claims["sub"])}
    for key, value in claims.get(TAGS_CLAIM, {}).get("principal_tags", {}).items():
        (single,) = value if isinstance(value, list) else [value]
        context[f"aws:RequestTag/{key}"] = single
    return context


def _matches(operator: str, wanted: Any, actual: str | None) -> bool:
    values = wanted if isinstance(wanted, list) else [wanted]
    negated = operator.startswith("StringNot")
    if actual is None:
        return negated
    if operator.endswith("Like"):
        hit = any(fnmatch.fnmatchcase(actual, str(value)) for value in values)
    else:
        hit = any(actual == str(value) for value in values)
    return not hit if negated else hit


def _conditions_hold(conditions: Mapping[str, Mapping[str, Any]], context: Context) -> bool:
    known = {"StringEquals", "StringNotEquals", "StringLike", "StringNotLike"}
    lowered = {key.lower(): value for key, value in context.items()}
    for operator, keys in conditions.items():
        assert operator in known, f"the evaluator does not know {operator}: extend it before trusting a verdict"
        if not all(_matches(operator, wanted, lowered.get(key.lower())) for key, wanted in keys.items()):
            return False
    return True


def _applies(statement: Mapping[str, Any], provider_arn: str, action: str, context: Context) -> bool:
    federated = statement.get("Principal", {}).get("Federated")
    actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
    return federated == provider_arn and action in actions and \
        _conditions_hold(statement.get("Condition", {}), context)


def admits(policy: Mapping[str, Any], provider_arn: str, context: Context) -> bool:
    """Whether a trust policy lets AssumeRoleWithWebIdentity (and TagSession, with tags) through for `context`."""
    tagged = any(key.startswith("aws:RequestTag/") for key in context)
    wanted = ["sts:AssumeRoleWithWebIdentity", *(["sts:TagSession"] if tagged else [])]
    statements = policy["Statement"]
    for action in wanted:
        if any(s["Effect"] == "Deny" and _applies(s, provider_arn, action, context) for s in statements):
            return False
        if not any(s["Effect"] == "Allow" and _applies(s, provider_arn, action, context) for s in statements):
            return False
    return True


def _role_of(session_arn: str) -> str:
    """The role ARN a session ARN (arn:aws:sts::<account>:assumed-role/<role>/<session>) is of: what a trust policy's
    AWS principal names."""
    head, _, path = session_arn.partition(":assumed-role/")
    return f"{head.replace(':sts::', ':iam::')}:role/{path.split('/')[0]}"


def admits_session(policy: Mapping[str, Any], session_arn: str, source_identity: str | None) -> bool:
    """Whether a trust policy lets a role session AssumeRole (and SetSourceIdentity, when its session carries one,
    as a chained session does) through."""
    context = {"sts:SourceIdentity": source_identity} if source_identity else {}
    wanted = ["sts:AssumeRole", *(["sts:SetSourceIdentity"] if source_identity else [])]

    def applies(statement: Mapping[str, Any], action: str) -> bool:
        principals = statement.get("Principal", {}).get("AWS", [])
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        return _role_of(session_arn) in (principals if isinstance(principals, list) else [principals]) and \
            action in actions and _conditions_hold(statement.get("Condition", {}), context)

    statements = policy["Statement"]
    return all(not any(s["Effect"] == "Deny" and applies(s, a) for s in statements) and
               any(s["Effect"] == "Allow" and applies(s, a) for s in statements) for a in wanted)
