"""What a hosted request claims to be, before STS is asked: the shared vocabulary of the two modes.

A `Claim` is what API Gateway vouched for. The function asks STS for it on the request's behalf.
`Refused` is a request that cannot act as anybody, raised before any AWS call.
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
_SESSION_NAME = re.compile(r"[\w+=,.@-]{2,64}", re.ASCII)
_SESSION_NAME_UNSAFE = re.compile(r"[^\w+=,.@-]", re.ASCII)
_DIGEST_CHARS = 8


def sts_name(value: str) -> str:
    """A RoleSessionName / SourceIdentity STS accepts ([\\w+=,.@-], 2 to 64 characters), distinct per `value`.

    A name STS accepts is kept as it is; any other is cleaned and cut, then ends in a digest of the original, so
    two people never share a session name (renée and renee, 张伟 and 李娜, two subjects alike in their first 64).
    """
    if _SESSION_NAME.fullmatch(value):
        return value
    digest = hashlib.sha256(value.encode()).hexdigest()[:_DIGEST_CHARS]
    return f"{_SESSION_NAME_UNSAFE.sub('-', value)[:64 - _DIGEST_CHARS - 1]}-{digest}"


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
    session_pinned: bool | None = None
    """iam: whether the role's trust pins the session name to the person (None where the caller names no session)."""
    owner: str | None = None
    """Who per-person state (workflows) is stored under, as AWS vouches for it; the principal unless narrower
    (an unpinned session's caller is their role)."""

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
