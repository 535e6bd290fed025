"""The identity seam: every request resolves its caller here, and only here.

Request context in; a `Caller` carrying a boto3 session out. Resolvers only ever
see that session, never a token, header or the function's own credentials.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import authentication_required


@dataclass(frozen=True)
class Caller:
    """Who is asking, and the boto3 session that acts as them (None when unauthenticated)."""

    auth_mode: str
    session: boto3.Session | None
    region: str
    unauthenticated_reason: str | None = None

    @property
    def authenticated(self) -> bool:
        return self.session is not None

    def require_session(self) -> boto3.Session:
        if self.session is None:
            raise authentication_required(self.unauthenticated_reason or "no credentials")
        return self.session

    def __repr__(self) -> str:  # a session holds credentials: never let them into a log line
        return f"Caller(auth_mode={self.auth_mode!r}, authenticated={self.authenticated}, region={self.region!r})"


class _LocalChain:
    """The default boto3 credential chain (profile, env, SSO cache), created on first use.

    Created lazily so nothing credential-related exists before a SnapStart snapshot,
    and shared because botocore refreshes expiring credentials itself.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: boto3.Session | None = None

    def session(self) -> boto3.Session:
        """The chain's session; its region is the profile's or the environment's, as the AWS CLI's would be."""
        with self._lock:
            if self._session is None:
                self._session = boto3.Session()
            return self._session

    def reset(self) -> None:
        with self._lock:
            self._session = None


local_chain = _LocalChain()


def resolve_caller(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """Resolve the caller of one request.

    `scope` is the ASGI scope of the HTTP request (None under stdio). Hosted, identity
    may only come from API Gateway's `requestContext` (scope["aws.event"]); until the
    hosted auth modes exist every hosted request is unauthenticated, and the function
    never falls back to its own role.
    """
    if settings.hosted:
        return Caller(settings.auth_mode, None, settings.region,
                      f"auth mode {settings.auth_mode!r} is not available in this deployment yet")
    try:
        session = local_chain.session()
        credentials = session.get_credentials()
    except BotoCoreError as exc:  # e.g. AWS_PROFILE names no profile, or an SSO cache that cannot refresh
        return Caller("local", None, settings.region, f"the local AWS credential chain failed: {exc}")
    region = session.region_name or settings.region
    if credentials is None:
        return Caller("local", None, region, "the local AWS credential chain found no credentials")
    return Caller("local", session, region)

