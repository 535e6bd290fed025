"""Who a request acts as: the one object resolvers get instead of any token or header."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import boto3

from aws_data_mcp.config import Account
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required


class RetryableRefusal(ResourceFailure):
    """`authentication_required` that a retry may cure (STS busy, a credential helper still running).

    The code still says "no caller" (the request acted as nobody); `retryable` tells a client that
    asking again in a few seconds is the fix, rather than signing in again.
    """

    @property
    def retryable(self) -> bool:
        return True


def retry_later(reason: str, *details: str) -> RetryableRefusal:
    return RetryableRefusal(ErrorCode.AUTHENTICATION_REQUIRED, f"No caller credentials: {reason}",
                            details=[*details, "Retry in a few seconds; nothing needs to change."])


@dataclass(frozen=True)
class Caller:
    """Who is asking, and the boto3 session that acts as them (None when unauthenticated)."""

    auth_mode: str
    session: boto3.Session | None
    region: str
    unauthenticated_reason: str | None = None
    principal_arn: str | None = None
    account: str | None = None
    user_id: str | None = None
    credential_expiry: datetime | None = None
    identity_key: str | None = field(default=None, repr=False)
    """Who, as the edge vouched for them (e.g. issuer#subject and role); defaults to the principal ARN.
    Two callers whose sanitised session names collide still differ here."""
    owner_key: str | None = field(default=None, repr=False)
    """Who, as AWS vouches for them, for what is kept per person (workflows); defaults to `identity_key`. An iam
    caller whose session name their role does not pin is their role: anyone may name a session "alice"."""
    session_name_pinned: bool | None = None
    """iam: whether the caller's role pins session names to the person; None where no session name is chosen."""
    refusal: ResourceFailure | None = field(default=None, repr=False, compare=False)
    """Why this request may not act as anybody, when that is more than "no credentials" (e.g. a role's trust)."""
    account_name: str | None = None
    """The listed account (its short name) this caller acts in; None: their home account, not named."""
    person: str | None = None
    """Who the session acts for where AWS pins it, for the audit line: the SourceIdentity the function set (iam, a
    pinned session or a mapped user), the token's issuer#subject (oidc); None where nobody is pinned."""
    reach: Callable[[Account], Caller] | None = field(default=None, repr=False, compare=False)
    """A home caller only: the same caller carried into a listed account by their own identity (the token, or their
    own role session), never by the function's; None where this caller cannot be carried further."""

    @property
    def authenticated(self) -> bool:
        return self.session is not None

    @property
    def identity_digest(self) -> str | None:
        """A stable key for this principal (a hash of who, never of a secret): caches are keyed on it."""
        return self._digest(self.identity_key or self.principal_arn)

    @property
    def owner_digest(self) -> str | None:
        """A stable key for whom per-person state belongs to: the identity digest, or the role's for an unpinned
        session (a hash of who, never of a secret)."""
        return self._digest(self.owner_key or self.identity_key or self.principal_arn)

    def _digest(self, who: str | None) -> str | None:
        if self.session is None or who is None:
            return None
        return hashlib.sha256(f"{self.auth_mode}\0{who}".encode()).hexdigest()[:32]

    def require_session(self) -> boto3.Session:
        if self.session is None:
            if self.refusal is not None:
                raise dataclasses.replace(self.refusal)  # a copy: the reader stamps the request's URI on it
            raise authentication_required(self.unauthenticated_reason or "no credentials")
        return self.session

    def __repr__(self) -> str:  # a session holds credentials: never let them into a log line
        return (f"Caller(auth_mode={self.auth_mode!r}, authenticated={self.authenticated}, "
                f"principal_arn={self.principal_arn!r}, region={self.region!r})")
