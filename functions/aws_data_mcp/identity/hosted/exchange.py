"""The STS exchange: a claim in, a `Caller` acting with the credentials STS issued for it out.

Only the STS calls use the function's own credentials, which never leave this module. Exchanged
callers are cached per claim, never shared between callers. Each is kept until a minute before its
credentials, or its token, expire.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from functools import cache, partial
from typing import Any

import boto3
import botocore.session
from botocore.exceptions import BotoCoreError, ClientError
from botocore.loaders import Loader

from aws_data_mcp import audit
from aws_data_mcp.aws import client
from aws_data_mcp.config import Account, Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required, from_aws_error
from aws_data_mcp.identity.accounts import role_in
from aws_data_mcp.identity.caller import Caller, retry_later
from aws_data_mcp.identity.hosted.claim import Claim, Refused
from aws_data_mcp.identity.hosted.refusals import refusal_of
from aws_data_mcp.observability import logger

REFRESH_MARGIN_SECONDS = 60
MAX_CACHED_CALLERS = max(32, int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or 1024) // 8)
"""Exchanged callers kept: 128 in the template's default 1024 MB. Each holds its boto3 session and clients (measured:
0.15 MB, 1.5 MB with four clients, 2.5 MB with a client of every service read), so a full cache stays within about
a third of the function's memory."""
SERVER_TAG, SERVER_TAG_VALUE, CALL_TAG = "mcp-server", "aws-data-mcp", "mcp-call"
"""The session tags SESSION_TAGS sets (IAM: `aws:PrincipalTag/mcp-server`; CloudTrail: the AssumeRole's tags)."""
ROLE_CHAINING_MAX_SECONDS = 3600
"""The longest session AssumeRole grants to assumed-role credentials (role chaining), whatever the role allows:
the function's own credentials are its execution role's session, so every iam exchange is chained."""


def _now() -> float:
    """Wall-clock seconds, as credential and token expiries are: one seam, so tests can move time."""
    return time.time()


class _Exchanges:
    """Exchanged callers, per claim, until shortly before their credentials or token expire; bounded, thread-safe.

    One exchange per claim at a time: concurrent first requests of one caller wait for it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, Caller]] = OrderedDict()
        self._flights: dict[str, tuple[threading.Lock, int]] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def flights(self) -> int:
        """Claims being exchanged (or waited for) right now."""
        with self._lock:
            return len(self._flights)

    def get(self, key: str) -> Caller | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            if found[0] <= _now():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return found[1]

    @contextmanager
    def flight(self, key: str) -> Iterator[None]:
        """Hold the claim's exchange. Its lock lives only while someone holds or waits for it, so exchanges that
        fail (a refused token is tried again on every request) leave nothing behind."""
        with self._lock:
            lock, waiting = self._flights.get(key, (threading.Lock(), 0))
            self._flights[key] = (lock, waiting + 1)
        try:
            with lock:
                yield
        finally:
            with self._lock:
                held, waiting = self._flights.get(key, (lock, 1))
                if waiting <= 1:
                    self._flights.pop(key, None)
                else:
                    self._flights[key] = (held, waiting - 1)

    def put(self, key: str, value: Caller, until: float) -> None:
        if until <= _now():  # a token in its last minute: never reusable, and it must not evict one that is
            return
        with self._lock:
            self._entries[key] = (until, value)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_CACHED_CALLERS:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


exchanges = _Exchanges()


class _FunctionSession:
    """The function's own credentials, for STS only; created on first use (after any SnapStart restore)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: boto3.Session | None = None

    def sts(self, settings: Settings) -> Any:
        with self._lock:
            if self._session is None:
                self._session = boto3.Session()
        return client(self._session, "sts", settings)


function_session = _FunctionSession()


def _exchange(claim: Claim, settings: Settings, via: boto3.Session | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """STS's credentials for the claim: from the function's session, or `via` the caller's own (into an account)."""
    sts = function_session.sts(settings) if via is None else client(via, "sts", settings)
    if claim.token is not None:  # not chained: the token, not the function's session, is the source
        answer = sts.assume_role_with_web_identity(RoleArn=claim.role_arn, RoleSessionName=claim.session_name,
                                                   WebIdentityToken=claim.token,
                                                   DurationSeconds=settings.session_duration_seconds)
    else:
        source: dict[str, Any] = {"SourceIdentity": claim.source_identity} if claim.source_identity else {}
        if via is None and settings.auth_mode == "iam" and settings.session_tags:
            source["Tags"] = session_tags()
        answer = sts.assume_role(RoleArn=claim.role_arn, RoleSessionName=claim.session_name, **source,
                                 DurationSeconds=min(settings.session_duration_seconds, ROLE_CHAINING_MAX_SECONDS))
    return answer["Credentials"], answer["AssumedRoleUser"]


def session_tags() -> list[dict[str, str]]:
    """The tags a session the function assumes for a caller carries (SESSION_TAGS): that it is the server's, and
    which MCP call made it (the session then serves that caller's later calls too, until it nears expiry)."""
    record = audit.current()
    return [{"Key": SERVER_TAG, "Value": SERVER_TAG_VALUE},
            *([{"Key": CALL_TAG, "Value": record.call_id}] if record is not None else [])]


@cache
def _shared_data_loader() -> Loader:
    """botocore's service models and endpoint data, loaded once for every caller's session (models only, never
    credentials; its cache takes no lock, so two threads missing the same file at once at worst both load it)."""
    return botocore.session.Session().get_component("data_loader")


def _session_of(credentials: Mapping[str, Any], region: str) -> boto3.Session:
    """A boto3 session acting with exchanged `credentials`, its service models read through one shared loader.

    Each botocore session otherwise loads its own copy of every model and endpoint file it touches (measured: 7.8 MB
    per caller with an STS client, 22 MB with four clients; shared, 0.3 and 1.5 MB), and building its clients takes
    ten times as long. The loader is swapped in after boto3 set the session up, because boto3 appends its own data
    path to the loader of every Session it makes: a shared one would grow by a path per caller.
    """
    core = botocore.session.Session()
    session = boto3.Session(aws_access_key_id=credentials["AccessKeyId"],
                            aws_secret_access_key=credentials["SecretAccessKey"],
                            aws_session_token=credentials["SessionToken"], region_name=region, botocore_session=core)
    core.register_component("data_loader", _shared_data_loader())
    return session


def cached_until(credential_expiry: datetime, token_expiry: float | None) -> float:
    """When an exchange stops being reused: a minute before its credentials, or the token they came from, expire."""
    until = credential_expiry.timestamp() - REFRESH_MARGIN_SECONDS
    if token_expiry is not None:
        until = min(until, token_expiry - REFRESH_MARGIN_SECONDS)
    return until


def caller_of(claim: Claim, settings: Settings, *, via: boto3.Session | None = None,
              account: Account | None = None) -> Caller:
    """Exchange the claim for credentials (once per claim until they near expiry) and act as them.

    `account`: the claim is for the caller's role in that listed account, exchanged with the caller's own token
    (oidc) or `via` their own session (iam, local), never the function's credentials for another account."""
    cached = exchanges.get(claim.cache_key)
    if cached is not None:
        return cached
    with exchanges.flight(claim.cache_key):
        cached = exchanges.get(claim.cache_key)
        if cached is not None:
            return cached
        try:
            credentials, user = _exchange(claim, settings, via)
        except Exception as exc:  # whatever STS did, this request acts as nobody
            raise Refused(refusal_of(exc, claim, settings) if account is None
                          else _not_admitted(exc, claim, account)) from None
        expiry: datetime = credentials["Expiration"]
        session = _session_of(credentials, settings.region)
        arn = user["Arn"]
        caller = Caller(settings.auth_mode, session, settings.region, principal_arn=arn,
                        account=arn.split(":")[4] or None, user_id=user.get("AssumedRoleId"),
                        credential_expiry=expiry, identity_key=f"{claim.principal}\0{claim.role_arn}",
                        owner_key=f"{claim.owner or claim.principal}\0{claim.role_arn}",
                        session_name_pinned=claim.session_pinned, account_name=account.name if account else None,
                        person=claim.principal if claim.token is not None else claim.source_identity,
                        reach=None if account else partial(into_account, claim, settings, via))
        exchanges.put(claim.cache_key, caller, cached_until(expiry, claim.token_expiry))
        return caller


def into_account(claim: Claim, settings: Settings, via: boto3.Session | None, account: Account) -> Caller:
    """The caller of `claim` in `account`: their token for that account's role (oidc), or their home session
    assuming it (iam, chained: at most an hour), or `via` the local chain's session."""
    target = dataclasses.replace(claim, role_arn=role_in(settings, claim.role_arn, account))
    try:
        source = via if via is not None or claim.token is not None else caller_of(claim, settings).require_session()
        return caller_of(target, settings, via=source, account=account)
    except Refused as refused:
        return Caller(settings.auth_mode, None, settings.region, refused.failure.message, refusal=refused.failure,
                      account_name=account.name)


def _not_admitted(exc: Exception, claim: Claim, account: Account) -> ResourceFailure:
    """A listed account's STS refusal, as the caller should see it: the account and role, never AWS's message."""
    if isinstance(exc, ClientError | BotoCoreError):
        failure = from_aws_error(exc, "sts:AssumeRole")
        if failure.code in (ErrorCode.THROTTLED, ErrorCode.TIMEOUT):
            return retry_later(f"STS was busy while carrying the caller into account {account.name}")
    # The caller learns the account's name (which auth://status lists) and the role's name, which is what they ask
    # their administrator for; not the account's id: the full ARN goes to the operator's log (docs/accounts.md).
    role_name = claim.role_arn.rpartition("/")[2] if claim.role_arn else "(no role)"
    logger.warning("an account's role does not admit the caller",
                   extra={"account": account.name, "role_arn": claim.role_arn, "error": type(exc).__name__})
    refused = authentication_required(f"account {account.name} does not admit this caller as role {role_name} "
                                      f"({type(exc).__name__})")
    refused.details = ["That account's role trusts only the callers the operator granted it (docs/accounts.md); "
                       "auth://status lists the accounts you may reach.", *refused.details]
    return refused
