"""Which account a request reads: the caller's home by default, else a listed account reached as the caller.

A caller names an account by the short name the operator listed (`?account=<name>`, a tool's
`account`). Anything else, an ARN above all, is refused here before any AWS call. The identity seam
reaches the account (`Caller.reach`), never with the function's credentials. This module picks the
account and says whether a request may span every account (`*`). It also says where each listed
account stands for a caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from aws_data_mcp.config import ACCOUNT_NAME, Account, Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required, echo
from aws_data_mcp.identity.caller import Caller

PARAMETER = "account"
EVERY = "*"
Choice = Account | Literal["*"] | None
"""None: the caller's home account, as every URI without `?account=` reads."""

ORG_WIDE_URIS = frozenset({"athena://catalogs", "athena://databases", "athena://databases/{database}/tables",
                           "athena://workgroups", "athena://query/history", "permissions://discover",
                           "tabulator://buckets", "athena://search{?q,database,account,cursor}",
                           "athena://named-queries"})
"""The catalog and workgroup views `?account=*` reads in every reachable account, side by side."""

_reading: ContextVar[Choice] = ContextVar("aws_data_mcp_account", default=None)


def listed(settings: Settings) -> list[Account]:
    return [Account(name, number) for name, number in settings.accounts]


def listed_names(settings: Settings) -> list[str]:
    return [name for name, _ in settings.accounts]


def chosen(settings: Settings, raw: object, *, org_wide: bool = False) -> Choice:
    """The account `raw` names, checked against the operator's list with no AWS call; a refusal says what may be
    named. `org_wide`: whether `*` (every reachable account) is served where this is asked."""
    if raw is None or raw == "":
        return None
    names = listed_names(settings)
    allowed = f"Accounts you may name here: {', '.join(names) or 'none (this deployment reads your home account)'}" \
        + (", or * for every one." if org_wide and names else ".")
    if raw == EVERY:
        if not org_wide:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "account=* is served only on the catalog and workgroup "
                                  "views", details=[f"Org-wide views: {', '.join(sorted(ORG_WIDE_URIS))}.", allowed])
        return EVERY
    if not isinstance(raw, str) or not ACCOUNT_NAME.fullmatch(raw):
        what = "a role ARN" if isinstance(raw, str) and raw.startswith("arn:") else "a short account name"
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"account must be a listed account's short name, not "
                              f"{what}: {echo(str(raw))!r}", details=[allowed, "A caller never names a role: the "
                                                                      "operator's rule picks it (docs/accounts.md)."])
    account = settings.account_named(raw)
    if account is None:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"account {raw!r} is not one this deployment lists",
                              details=[allowed])
    return account


def role_in(settings: Settings, home_role_arn: str, account: Account) -> str:
    """The role the caller acts as in `account`: the operator's rule, `{role}` the name of the caller's home role
    (`home_role_arn`: a role's ARN, or a session's, arn:...:assumed-role/<role>/<session>)."""
    parts = home_role_arn.split(":", 5)
    kind, _, path = parts[5].partition("/")
    name = path.split("/")[0] if kind == "assumed-role" else path.rsplit("/", 1)[-1]
    return f"arn:{parts[1]}:iam::{account.id}:role/{settings.account_role.replace('{role}', name)}"


def caller_in(caller: Caller, account: Account | None) -> Caller:
    """`caller` acting in `account`: themselves at home, else carried there by `Caller.reach` (or refused, saying
    why, acting as nobody there)."""
    if account is None or not caller.authenticated:
        return caller
    if account.id == caller.account:
        return dataclasses.replace(caller, account_name=account.name)
    if caller.reach is None:
        return _unreached(caller, account, "this caller's identity cannot be carried into another account")
    return caller.reach(account)


def _unreached(caller: Caller, account: Account, reason: str) -> Caller:
    refusal = authentication_required(f"not admitted to account {account.name}: {reason}")
    return Caller(caller.auth_mode, None, caller.region, refusal.message, refusal=refusal, account_name=account.name)


def provenance(caller: Caller, account: Account) -> dict[str, Any]:
    """What an answer read in a named account says about where it comes from."""
    return {"name": account.name, "id": account.id, "principal_arn": caller.principal_arn}


def standing(caller: Caller, account: Account) -> dict[str, Any]:
    """Where `account` stands for `caller` (auth://status): who they are there, or why they are not."""
    there = caller_in(caller, account)
    entry: dict[str, Any] = {"name": account.name, "id": account.id, "reachable": there.authenticated}
    if there.authenticated:
        return entry | {"principal_arn": there.principal_arn,
                        "home": account.id == caller.account}
    return entry | {"reason": there.unauthenticated_reason}


@contextmanager
def reading_in(choice: Choice) -> Iterator[None]:
    """The account this request reads (a read's `?account=`, a tool's `account`): for the callers it resolves and
    the links its answer gives (`current`)."""
    token = _reading.set(choice)
    try:
        yield
    finally:
        _reading.reset(token)


def current() -> Account | None:
    """The named account this request reads in; None: the caller's home account."""
    choice = _reading.get()
    return choice if isinstance(choice, Account) else None


def in_current(uri: str) -> str:
    """`uri` as read in the current request's account: a link an answer gives reads where the answer came from."""
    account = current()
    if account is None:
        return uri
    return f"{uri}{'&' if '?' in uri else '?'}{PARAMETER}={account.name}"
