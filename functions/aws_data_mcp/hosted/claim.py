"""What a hosted request claims to be, before STS is asked: the shared vocabulary of the two modes.

A `Claim` is what API Gateway vouched for and what the function will ask STS for on its
behalf; `Refused` is a request that cannot act as anybody, raised before any AWS call.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aws_data_mcp.errors import ResourceFailure, authentication_required

Headers = Mapping[str, Any]
# ASCII only, as STS means \w: a Unicode letter (josé) would pass and STS would refuse the name.
_SESSION_NAME_UNSAFE = re.compile(r"[^\w+=,.@-]", re.ASCII)


def sts_name(value: str, fallback: str = "caller") -> str:
    """A RoleSessionName / SourceIdentity STS accepts: [\\w+=,.@-], 2 to 64 characters."""
    cleaned = _SESSION_NAME_UNSAFE.sub("-", value)[:64]
    return cleaned if len(cleaned) >= 2 else fallback


@dataclass(frozen=True)
class Claim:
    """What API Gateway vouched for, and what the function will ask STS for on its behalf."""

    principal: str
    """The caller as API Gateway named it: an ARN (iam), or issuer#sub (oidc)."""
    role_arn: str
    session_name: str
    source_identity: str | None = None
    token: str | None = None
    token_expiry: float | None = None
    issuer: str | None = None
    audience: str | None = None

    @property
    def cache_key(self) -> str:
        token = hashlib.sha256(self.token.encode()).hexdigest() if self.token else ""
        return hashlib.sha256(f"{self.principal}\0{self.role_arn}\0{token}".encode()).hexdigest()

    def __repr__(self) -> str:  # the token never reaches a log line
        return f"Claim(principal={self.principal!r}, role_arn={self.role_arn!r})"


class Refused(Exception):
    """The request cannot act as anybody: the failure to answer with, and no AWS data call."""

    def __init__(self, failure: ResourceFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def refuse(reason: str, *details: str) -> Refused:
    failure = authentication_required(reason)
    failure.details = [*details, *failure.details]
    return Refused(failure)


def json_object(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one: a malformed context reads as an absent one."""
    return value if isinstance(value, Mapping) else {}
