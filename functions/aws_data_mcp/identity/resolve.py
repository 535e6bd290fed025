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
from functools import partial
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError, ProfileNotFound

from aws_data_mcp.aws import client, seconds_to_aws_deadline
from aws_data_mcp.config import ENV_PREFIX, Account, Settings
from aws_data_mcp.errors import authentication_required, from_aws_error
from aws_data_mcp.identity import hosted
from aws_data_mcp.identity.caller import Caller, retry_later
from aws_data_mcp.identity.hosted.claim import Claim, sts_name
from aws_data_mcp.identity.hosted.exchange import into_account

LOCAL_AUTH_MODES = frozenset({"local"})
"""The auth modes the local credential chain may serve: an explicit allow-list, never "anything not hosted"."""

_SAFE_CHAIN_ERRORS = (ProfileNotFound, NoCredentialsError, NoRegionError)
"""Credential-chain failures whose message names only configuration; any other (a credential helper's
output, an SSO cache's contents) is reported by its type alone."""


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
    A request waits for another's resolution only until its own deadline: a credential
    helper slower than that holds one thread, not one per request.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resolving = threading.Lock()
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
        # One resolution at a time: concurrent first requests must not each start a credential_process.
        left = seconds_to_aws_deadline()
        if not self._resolving.acquire(timeout=-1 if left is None else left):
            refusal = retry_later("the local AWS credential chain did not answer before the request's deadline "
                                  "(a credential_process or SSO refresh is still running)")
            return Caller("local", None, settings.region, refusal.message, refusal=refusal)
        try:
            session = self.session()
            credentials = session.get_credentials()
            frozen = credentials.get_frozen_credentials() if credentials is not None else None
        except _SAFE_CHAIN_ERRORS as exc:
            return Caller("local", None, settings.region, f"the local AWS credential chain failed: {exc}")
        except Exception as exc:  # a credential helper's or SSO cache's failure may carry secrets: type only
            return Caller("local", None, settings.region,
                          f"the local AWS credential chain failed ({type(exc).__name__})")
        finally:
            self._resolving.release()
        region = session.region_name or settings.region
        if frozen is None or not frozen.access_key:
            return Caller("local", None, region, "the local AWS credential chain found no credentials")
        try:
            principal = self._principal(session, frozen.access_key, settings)
        except (ClientError, BotoCoreError) as exc:
            return Caller("local", None, region, from_aws_error(exc, "sts:GetCallerIdentity").message)
        expiry = getattr(credentials, "_expiry_time", None)
        return Caller("local", session, region, principal_arn=principal.arn, account=principal.account,
                      user_id=principal.user_id, credential_expiry=expiry,
                      reach=partial(self._into, session, principal.arn, settings))

    def _into(self, session: boto3.Session, home_arn: str, settings: Settings, account: Account) -> Caller:
        """You in a listed account: through the profile configured for it (your own profile chain: SSO, or
        `role_arn` chained from yours), else your credentials assuming ACCOUNT_ROLE there."""
        profile = dict(settings.account_profiles).get(account.name)
        if profile is None:
            if ":assumed-role/" not in home_arn and "{role}" in settings.account_role:
                return _unreached(account, "your credentials are not a role's, so there is no role of yours to "
                                  f"carry: name a profile for {account.name} in {ENV_PREFIX}ACCOUNT_PROFILES", settings)
            claim = Claim(principal=home_arn, role_arn=home_arn, session_name=sts_name(home_arn.rsplit("/", 1)[-1]))
            return into_account(claim, settings, session, account)
        try:
            there = boto3.Session(profile_name=profile)
            frozen = there.get_credentials().get_frozen_credentials()
            principal = self._principal(there, frozen.access_key, settings)
        except _SAFE_CHAIN_ERRORS as exc:
            return _unreached(account, f"profile {profile!r}: {exc}", settings)
        except (ClientError, BotoCoreError) as exc:
            return _unreached(account, from_aws_error(exc, "sts:GetCallerIdentity").message, settings)
        except Exception as exc:  # a credential helper's failure may carry secrets: type only
            return _unreached(account, f"profile {profile!r} failed ({type(exc).__name__})", settings)
        if principal.account != account.id:
            return _unreached(account, f"profile {profile!r} acts in account {principal.account}, not {account.id}",
                              settings)
        return Caller("local", there, there.region_name or settings.region, principal_arn=principal.arn,
                      account=principal.account, user_id=principal.user_id, account_name=account.name)

    def _principal(self, session: boto3.Session, access_key: str, settings: Settings) -> _Principal:
        key = hashlib.sha256(access_key.encode()).hexdigest()
        with self._lock:
            found = self._principals.get(key)
            if found is None:
                identity = client(session, "sts", settings).get_caller_identity()
                found = _Principal(identity["Arn"], identity["Account"], identity["UserId"])
                self._principals[key] = found
            return found


def _unreached(account: Account, reason: str, settings: Settings) -> Caller:
    refusal = authentication_required(f"not admitted to account {account.name}: {reason}")
    return Caller("local", None, settings.region, refusal.message, refusal=refusal, account_name=account.name)


local_chain = _LocalChain()


def resolve_caller(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """Resolve the caller of one request.

    `scope` is the ASGI scope of the HTTP request (None under stdio). Hosted, identity
    may only come from API Gateway's `requestContext` (scope["aws.event"]) and is exchanged
    with STS for the caller's own credentials; a request that cannot be resolved acts as
    nobody, never as the function's own role. The local credential chain serves only the
    local auth modes.
    """
    if settings.hosted:
        return hosted.resolve(scope, settings)
    if settings.auth_mode not in LOCAL_AUTH_MODES:
        return Caller(settings.auth_mode, None, settings.region,
                      f"auth mode {settings.auth_mode!r} needs API Gateway in front of the server")
    return local_chain.caller(settings)
