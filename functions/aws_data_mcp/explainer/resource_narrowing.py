"""Takes one access out of a bucket or key policy's Deny for one caller, and nothing else.

A fix that took the caller out of the whole denying statement would free every action and object it denies. Here
the statement keeps binding everyone else as it did, and the caller stays denied all of it but the one access.
The rule in full: docs/access.md, under fixes for a bucket or key policy's Deny.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_data_mcp.explainer.policy_grammar import iam_like, listed

PRINCIPAL_ARN = "aws:PrincipalArn"
WHOLE = ("*", "s3:*", "kms:*")
"""Action wildcards a resource policy can narrow exactly with NotAction: S3 reads only s3 actions in a bucket policy,
KMS only kms actions in a key policy."""


def _named(statement: Mapping[str, Any]) -> list[Any]:
    principal = statement.get("Principal")
    return listed(principal.get("AWS")) if isinstance(principal, Mapping) else []


def _with_condition(statement: Mapping[str, Any], operator: str, key: str, value: str) -> dict[str, Any]:
    """`statement` with `value` added under `operator`'s `key` (keys ignore case; several values of one key mean
    "any of them", so a negated operator's mean "none of them")."""
    conditions = dict(statement.get("Condition") or {})
    values = dict(conditions.get(operator) or {})
    found = next((k for k in values if k.lower() == key.lower()), key)
    values[found] = [*listed(values.get(found)), value]
    return dict(statement) | {"Condition": conditions | {operator: values}}


def narrowed(statement: dict[str, Any], principal: str, identities: Sequence[str]) -> dict[str, Any] | None:
    """A denying statement changed to leave out the caller only: None where it names nobody but the caller (it goes);
    the caller taken out of its Principal where it names others too; else (everyone, the account) an exception for
    the caller's principal. Everything else it refused, to anyone, it still refuses."""
    named = _named(statement)
    if named and "*" not in named and all(entry in identities for entry in named):
        return None
    if named and "*" not in named and any(entry in identities for entry in named):
        return statement | {"Principal": {"AWS": [entry for entry in named if entry not in identities]}}
    return _with_condition(statement, "ArnNotEquals", PRINCIPAL_ARN, principal)


def _the_caller(statement: Mapping[str, Any], principal: str, identities: Sequence[str]) -> dict[str, Any]:
    """The statement binding the caller alone: its Principal cut to the caller's identities it names, or (it names
    everyone, or the account) the caller's principal required (ArnEquals aws:PrincipalArn)."""
    named = _named(statement)
    mine = [entry for entry in named if entry in identities]
    if mine and "*" not in named:
        return dict(statement) | {"Principal": {"AWS": mine[0] if len(mine) == 1 else mine}}
    return _with_condition(statement, "ArnEquals", PRINCIPAL_ARN, principal)


def _sid(statement: Mapping[str, Any], part: str) -> dict[str, Any]:
    """A Sid of its own for each statement a Deny becomes (a policy's Sids are unique)."""
    return dict(statement) | ({"Sid": f"{statement['Sid']}{part}"} if statement.get("Sid") else {})


def _one_or_many(values: list[str]) -> str | list[str]:
    return values[0] if len(values) == 1 else values


def _bare(statement: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in statement.items() if k not in ("Action", "NotAction", "Resource", "NotResource")}


def without_one(statement: dict[str, Any], principal: str, identities: Sequence[str], action: str,
                resource: str, whole: str, person: tuple[str, str] | None = None
                ) -> tuple[list[dict[str, Any]], list[str]]:
    """The statements that replace a resource policy's Deny of `action` on `resource` so that it no longer denies
    the caller that one access, and what IAM's grammar made them deny the caller beyond what the Deny did.

    Everyone else it named stays denied all of it (`narrowed`). The caller stays denied its other actions (NotAction
    where a wildcard covers the one) and, of this action, its other resources: those that do not cover `resource`
    as they were, and a pattern wider than it as NotResource `resource`, which is exact where the pattern is all
    of the policy's resource (`whole`: `arn:aws:s3:::bucket/*`, or `*` for a key): a policy speaks only of its own.
    `person` (a condition key and the caller's value, e.g. aws:userid): the principal is a role others share, and
    only this session is let through: the role's other sessions stay denied the one access too.
    """
    found: list[dict[str, Any]] = []
    everyone = narrowed(statement, principal, identities)
    if everyone is not None:
        found.append(everyone)
    caller, stricter = _bare(_the_caller(statement, principal, identities)), []
    actions = [str(a) for a in listed(statement.get("Action"))]
    covering = [a for a in actions if iam_like(a, action, case=False)]
    rest = [a for a in actions if a not in covering]
    resources = listed(statement.get("Resource"))
    if rest:
        found.append(_sid(caller | {"Action": _one_or_many(rest), "Resource": statement["Resource"]}, "Others"))
    wild = [a for a in covering if a.lower() != action.lower()]
    if wild:  # the wildcard's other actions stay denied
        found.append(_sid(caller | {"NotAction": action, "Resource": statement["Resource"]}, "OtherActions"))
        stricter += [f"every action but {action} on {', '.join(map(str, resources))} (for {a})" for a in wild
                     if a.lower() not in WHOLE]
    elsewhere = [str(r) for r in resources if not iam_like(str(r), resource)]
    if elsewhere:
        found.append(_sid(caller | {"Action": action, "Resource": _one_or_many(elsewhere)}, "Elsewhere"))
    wider = [str(r) for r in resources if iam_like(str(r), resource) and str(r) != resource]
    if wider:
        found.append(_sid(caller | {"Action": action, "NotResource": resource}, "Beside"))
        stricter += [f"{action} on {whole} beyond {r} (NotResource {resource})" for r in wider
                     if r not in ("*", whole)]
    if person is not None:
        key, value = person
        found.append(_sid(_with_condition(caller, "StringNotEquals", key, value) | {
            "Action": action, "Resource": resource}, "OtherSessions"))
    return found, stricter
