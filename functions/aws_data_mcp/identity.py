"""The identity seam: every request resolves its caller here, and only here.

Request context in; a `Caller` carrying a boto3 session and who it acts as out.
Resolvers only ever see that session, never a token, header or the function's own
credentials.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError, ProfileNotFound

from aws_data_mcp.aws import client
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import authentication_required, from_aws_error

LOCAL_AUTH_MODES = frozenset({"local"})
"""The auth modes the local credential chain may serve: an explicit allow-list, never "anything not hosted"."""

_SAFE_CHAIN_ERRORS = (ProfileNotFound, NoCredentialsError, NoRegionError)
"""Credential-chain failures whose message names only configuration; any other (a credential helper's
output, an SSO cache's contents) is reported by its type alone."""


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

    @property
    def authenticated(self) -> bool:
        return self.session is not None

    @property
    def identity_digest(self) -> str | None:
        """A stable key for this principal (a hash of who, never of a secret): caches are keyed on it."""
        if self.session is None or self.principal_arn is None:
            return None
        return hashlib.sha256(f"{self.auth_mode}\0{self.principal_arn}".encode()).hexdigest()[:32]

    def require_session(self) -> boto3.Session:
        if self.session is None:
            raise authentication_required(self.unauthenticated_reason or "no credentials")
        return self.session

    def __repr__(self) -> str:  # a session holds credentials: never let them into a log line
        return (f"Caller(auth_mode={self.auth_mode!r}, authenticated={self.authenticated}, "
                f"principal_arn={self.principal_arn!r}, region={self.region!r})")


@dataclass(frozen=True)
class _Principal:
    arn: str
    account: str
    user_id: str


class _LocalChain:
    """The default boto3 credential chain (profile, env, SSO cache), created on first use.

    Created lazily so nothing credential-related exists before a SnapStart snapshot,
    and shared because botocore refreshes expiring credentials itself. Who the
    credentials belong to is asked of STS once per set of credentials (a refresh
    gives a new set), one resolution at a time, so concurrent first reads cost one call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: boto3.Session | None = None
        self._principals: dict[str, _Principal] = {}

    def session(self) -> boto3.Session:
        """The chain's session; its region is the profile's or the environment's, as the AWS CLI's would be."""
        with self._lock:
            if self._session is None:
                self._session = boto3.Session()
            return self._session

    def reset(self) -> None:
        with self._lock:
            self._session = None
            self._principals.clear()

    def caller(self, settings: Settings) -> Caller:
        try:
            session = self.session()
            credentials = session.get_credentials()
            frozen = credentials.get_frozen_credentials() if credentials is not None else None
        except _SAFE_CHAIN_ERRORS as exc:
            return Caller("local", None, settings.region, f"the local AWS credential chain failed: {exc}")
        except Exception as exc:  # a credential helper's or SSO cache's failure may carry secrets: type only
            return Caller("local", None, settings.region,
                          f"the local AWS credential chain failed ({type(exc).__name__})")
        region = session.region_name or settings.region
        if frozen is None or not frozen.access_key:
            return Caller("local", None, region, "the local AWS credential chain found no credentials")
        try:
            principal = self._principal(session, frozen.access_key, settings)
        except (ClientError, BotoCoreError) as exc:
            return Caller("local", None, region, from_aws_error(exc, "sts:GetCallerIdentity").message)
        expiry = getattr(credentials, "_expiry_time", None)
        return Caller("local", session, region, principal_arn=principal.arn, account=principal.account,
                      user_id=principal.user_id, credential_expiry=expiry)

    def _principal(self, session: boto3.Session, access_key: str, settings: Settings) -> _Principal:
        key = hashlib.sha256(access_key.encode()).hexdigest()
        with self._lock:
            found = self._principals.get(key)
            if found is None:
                identity = client(session, "sts", settings).get_caller_identity()
                found = _Principal(identity["Arn"], identity["Account"], identity["UserId"])
                self._principals[key] = found
            return found


local_chain = _LocalChain()


def resolve_caller(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """Resolve the caller of one request.

    `scope` is the ASGI scope of the HTTP request (None under stdio). Hosted, identity
    may only come from API Gateway's `requestContext` (scope["aws.event"]); until the
    hosted auth modes exist every hosted request is unauthenticated, and the function
    never falls back to its own role.
    """
    if settings.hosted or settings.auth_mode not in LOCAL_AUTH_MODES:
        return Caller(settings.auth_mode, None, settings.region,
                      f"auth mode {settings.auth_mode!r} is not available in this deployment yet")
    return local_chain.caller(settings)
