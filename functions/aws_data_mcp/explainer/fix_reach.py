"""Whom a fix reaches: the one person where AWS can tell them apart, else every session of a shared role, said.

A hosted caller's principal is a role that other people's sessions use too. A grant to the role reaches all of them.
Where the role's trust pins session names to the person, a condition on aws:userid narrows the grant to that
session. Otherwise the fix says in words that every session of the role gains it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aws_data_mcp.identity.caller import Caller

USER_ID = "aws:userid"
"""For a role session "<role id>:<session name>", for a user its unique id: what AWS sets on every request."""


@dataclass(frozen=True)
class Reach:
    words: str
    """Whom the fix reaches, in words, for its `note`."""
    person: tuple[str, str] | None = None
    """The condition key and value that narrow a grant to the one session (aws:userid), where the trust pins it."""

    @property
    def condition(self) -> dict[str, Any] | None:
        """The grant's Condition that lets only the person through; None where the principal is the person."""
        return {"StringEquals": {self.person[0]: self.person[1]}} if self.person else None


def reach_of(caller: Caller) -> Reach:
    """Whom a grant to the caller's principal (its user, or its role for a role session) reaches."""
    arn = caller.principal_arn or ""
    resource = arn.split(":", 5)[5] if arn.count(":") >= 5 else ""
    kind, _, path = resource.partition("/")
    if kind == "assumed-role" and "/" in path:
        role, session = path.split("/", 1)
        if caller.session_name_pinned and caller.user_id:
            return Reach(f"the session {session} of the role {role} alone ({USER_ID} {caller.user_id}: the role's "
                         "trust pins its session names to the person); the role's other sessions gain nothing",
                         (USER_ID, caller.user_id))
        return Reach(f"every session of the role {role}, not {session} alone: the role's trust does not pin its "
                     "session names to a person, so whoever may assume it gains this too")
    if kind == "user":
        return Reach(f"the IAM user {path.rsplit('/', 1)[-1]} alone")
    if kind == "role":
        return Reach(f"every session of the role {path.rsplit('/', 1)[-1]}")
    return Reach("the caller's IAM identity")
