"""Takes one access out of an identity policy's Deny statement, and nothing else.

Everyone else stays denied what the statement denied them. The caller stays denied the rest.
Where a wildcard admits no exact cut, the fix lists what else it frees (`widens`).
The rule in full: docs/access.md, under fixes for a Deny.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_data_mcp.explainer.policy_grammar import iam_like, listed
from aws_data_mcp.explainer.resource_narrowing import narrowed

PRINCIPAL_ARN = "aws:PrincipalArn"


def _one_or_many(values: list[str]) -> str | list[str]:
    return values[0] if len(values) == 1 else values


def _for_the_caller(statement: Mapping[str, Any], principal: str) -> dict[str, Any]:
    """The statement applying to the caller's principal only (besides its own conditions: all must hold)."""
    conditions = dict(statement.get("Condition") or {})
    operator = next(op for op in ("ArnEquals", "StringEquals", "ArnLike", "StringLike")
                    if not any(k.lower() == PRINCIPAL_ARN.lower() for k in conditions.get(op) or {}))
    return dict(statement) | {"Condition": conditions | {operator: dict(conditions.get(operator) or {}) | {
        PRINCIPAL_ARN: principal}}}


def without_one(statement: Mapping[str, Any], action: str, resource: str, principal: str,
                shared: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """The statements that replace `statement` (a Deny of `action` on `resource`) so that it no longer denies the
    caller (`principal`) that one access, and what else it no longer denies the caller (where IAM's grammar cannot
    say it exactly). `shared`: others are bound by the policy too (a group's, a managed policy, the boundary)."""
    actions = [str(a) for a in listed(statement.get("Action"))]
    covering = [a for a in actions if iam_like(a, action, case=False)]
    rest = [a for a in actions if a not in covering]
    found: list[dict[str, Any]] = [dict(statement) | {"Action": _one_or_many(rest)}] if rest else []
    part = dict(statement) | {"Action": _one_or_many(covering)}
    if shared:
        everyone_else = narrowed(part, principal, ())
        assert everyone_else is not None  # an identity policy's statement names no Principal: it is narrowed
        found.append(everyone_else)
    widens = [f"{a} beyond {action}" for a in covering if a.lower() != action.lower()]
    resources = [str(r) for r in listed(statement.get("Resource"))]
    others = [r for r in resources if not iam_like(r, resource)]
    widens += [f"{action} on {r} beyond {resource}" for r in resources if r not in (resource, "*")
               and r not in others]
    left = None
    if "*" in resources:
        left = {k: v for k, v in part.items() if k != "Resource"} | {"NotResource": resource}
    elif others:
        left = part | {"Resource": _one_or_many(others)}
    if left is not None:
        found.append(_for_the_caller(left, principal) if shared else left)
    return found, widens
