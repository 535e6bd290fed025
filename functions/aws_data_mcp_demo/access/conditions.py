"""Which statements of a policy apply to one request: Principal, NotPrincipal and Condition.

moto matches actions and resources, but neither conditions nor NotPrincipal.
So ``decisions`` asks here first whether a statement applies, by IAM's documented rules.
An unknown operator is ``UNDECIDED``: a Deny then applies and an Allow does not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from aws_data_mcp.explainer.policy_grammar import iam_like, listed

Context = Mapping[str, str | Sequence[str]]
"""A request's context keys (``aws:SourceVpce``...), each a string or, multivalued, a list of strings."""
UNDECIDED = None


class _Unknown(Exception):
    """An operator this module does not evaluate."""


_like = iam_like


def _number(value: str) -> float:
    return float(value)


def _ip(pattern: str, value: str) -> bool:
    return ipaddress.ip_address(value) in ipaddress.ip_network(pattern, strict=False)


_MATCHERS: dict[str, Callable[[str, str], bool]] = {
    "StringEquals": lambda p, v: p == v,
    "StringEqualsIgnoreCase": lambda p, v: p.lower() == v.lower(),
    "StringLike": _like,
    "ArnEquals": _like, "ArnLike": _like,
    "Bool": lambda p, v: p.lower() == v.lower(),
    "NumericEquals": lambda p, v: _number(v) == _number(p),
    "NumericLessThan": lambda p, v: _number(v) < _number(p),
    "NumericLessThanEquals": lambda p, v: _number(v) <= _number(p),
    "NumericGreaterThan": lambda p, v: _number(v) > _number(p),
    "NumericGreaterThanEquals": lambda p, v: _number(v) >= _number(p),
    "IpAddress": _ip,
}
_NEGATED: dict[str, str] = {
    "StringNotEquals": "StringEquals", "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
    "StringNotLike": "StringLike", "ArnNotEquals": "ArnEquals", "ArnNotLike": "ArnLike",
    "NumericNotEquals": "NumericEquals", "NotIpAddress": "IpAddress",
}


def _listed(value: Any) -> list[str]:
    return [str(v).lower() if isinstance(v, bool) else str(v) for v in listed(value)]


def _holds(operator: str, key: str, expected: Any, context: Context) -> bool:
    """One key of one operator block, as IAM evaluates it."""
    qualifier, _, name = operator.rpartition(":")
    if_exists = name.endswith("IfExists")
    name = name.removesuffix("IfExists")
    present = _present(context, key)
    if name == "Null":
        return (str(_listed(expected)[0]).lower() == "true") != (present is not None)
    negated = name in _NEGATED
    matcher = _MATCHERS.get(_NEGATED.get(name, name))
    if matcher is None or qualifier not in ("", "ForAnyValue", "ForAllValues"):
        raise _Unknown(operator)
    if present is None:
        return if_exists or negated or qualifier == "ForAllValues"
    patterns = _listed(expected)

    def matches(value: str) -> bool:
        try:
            return any(matcher(pattern, value) for pattern in patterns)
        except ValueError:  # a value that is no number or address: it matches nothing
            return False

    outcomes = [matches(value) != negated for value in present]
    return all(outcomes) if qualifier == "ForAllValues" else any(outcomes)


def _present(context: Context, key: str) -> list[str] | None:
    """The request's values for `key` (IAM's keys are case-insensitive), or None where the request has none."""
    for name, value in context.items():
        if name.lower() == key.lower():
            return [value] if isinstance(value, str) else list(value)
    return None


def conditions_hold(statement: Mapping[str, Any], context: Context) -> bool | None:
    """Whether the statement's Condition block holds for the request (True without one); UNDECIDED where it uses an
    operator this module does not evaluate."""
    try:
        return all(_holds(operator, key, expected, context)
                   for operator, keys in (statement.get("Condition") or {}).items()
                   for key, expected in keys.items())
    except _Unknown:
        return UNDECIDED


def _principals(element: Any) -> list[str]:
    if element == "*":
        return ["*"]
    return listed(element.get("AWS")) if isinstance(element, dict) else []


def principal_applies(statement: Mapping[str, Any], chain: Iterable[str], account_id: str) -> bool:
    """Whether a resource policy statement's Principal (or NotPrincipal) takes in the caller.

    `chain` is what the caller is, from the session up: a role session's ARN and its role's ARN (a user's ARN).
    A Principal takes the caller in when it names any of them, its account (``arn:aws:iam::<id>:root`` or the bare
    id) or everyone. A NotPrincipal takes in every caller but those all of whose chain, account included, it
    names: AWS evaluates a Deny with NotPrincipal against the session, the role and the account, which is why its
    documentation lists all three
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html).
    """
    account = {f"arn:aws:iam::{account_id}:root", account_id}
    names = set(chain)
    if "NotPrincipal" in statement:
        excepted = set(_principals(statement["NotPrincipal"]))
        return "*" not in excepted and not (names <= excepted and account & excepted)
    named = set(_principals(statement.get("Principal")))
    return bool("*" in named or names & named or account & named)


def names_caller(statement: Mapping[str, Any], chain: Iterable[str]) -> bool:
    """Whether a statement's Principal names the caller itself (its session, role or user) or everyone: an Allow
    that does grants on its own; one naming only the caller's account trusts that account's IAM to decide."""
    named = set(_principals(statement.get("Principal")))
    return "*" in named or bool(set(chain) & named)
