"""Hosted callers: who API Gateway vouches for, exchanged with STS for credentials that act as exactly them.

- `iam`: API Gateway's AWS_IAM authorizer verified the SigV4 signature and names the
  caller's ARN in requestContext. An assumed-role caller is assumed into *that same role*
  with its session name as SourceIdentity, so the function acts with exactly the caller's
  permissions (and CloudTrail shows who). IAM users and federated users act through a
  configured principal-to-role map, or are refused.
- `oidc`: API Gateway's JWT authorizer validated the bearer token (issuer, audience,
  expiry); the token, issued for this server, is exchanged with AssumeRoleWithWebIdentity
  for the role its claims map to. A token exchange, not a passthrough.

Identity comes only from requestContext (and, in oidc, the bearer token that the
authorizer validated); never from other client-set headers. The STS calls are the only
ones made with the function's own credentials, and those credentials never leave this
module. Exchanged credentials are cached per caller until a minute before they (or the
token) expire.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.caller import Caller
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required, from_aws_error
from aws_data_mcp.observability import logger

Headers = Mapping[str, Any]
REFRESH_MARGIN_SECONDS = 60
MAX_CACHED_CALLERS = 1024
_SESSION_NAME_UNSAFE = re.compile(r"[^\w+=,.@-]")
_ASSUMED_ROLE = re.compile(r"^arn:(?P<partition>[\w-]+):sts::(?P<account>\d{12}):assumed-role/(?P<role>[\w+=,.@-]+)"
                           r"/(?P<session>[\w+=,.@-]+)$")


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


def _refuse(reason: str, *details: str) -> Refused:
    failure = authentication_required(reason)
    failure.details = [*details, *failure.details]
    return Refused(failure)


def _request_context(scope: Mapping[str, Any] | None, settings: Settings) -> tuple[Mapping[str, Any], Headers]:
    event = (scope or {}).get("aws.event")
    if not isinstance(event, Mapping) or not isinstance(event.get("requestContext"), Mapping):
        raise _refuse("no API Gateway request context")
    context: Mapping[str, Any] = event["requestContext"]
    if settings.expected_api_id and context.get("apiId") != settings.expected_api_id:
        raise _refuse("the request did not come through this deployment's API",
                      "Invoke the function only through its API Gateway URL.")
    headers = event.get("headers") if isinstance(event.get("headers"), Mapping) else {}
    return context, {str(k).lower(): v for k, v in (headers or {}).items()}


def _mapped(settings: Settings, *principals: str) -> str | None:
    mapping = dict(settings.principal_role_map)
    return next((mapping[p] for p in principals if p in mapping), None)


def claim_iam(context: Mapping[str, Any], settings: Settings) -> Claim:
    """The caller's ARN from the IAM authorizer (HTTP API 2.0) or the request identity (REST v1)."""
    authorizer = context.get("authorizer") if isinstance(context.get("authorizer"), Mapping) else {}
    iam = (authorizer or {}).get("iam") if isinstance((authorizer or {}).get("iam"), Mapping) else None
    identity = context.get("identity") if isinstance(context.get("identity"), Mapping) else None
    arn = (iam or {}).get("userArn") or (identity or {}).get("userArn")
    if not isinstance(arn, str) or not arn.startswith("arn:"):
        raise _refuse("API Gateway named no IAM caller (is the route's authorization AWS_IAM?)")
    assumed = _ASSUMED_ROLE.match(arn)
    if assumed:
        own_role = f"arn:{assumed['partition']}:iam::{assumed['account']}:role/{assumed['role']}"
        session = sts_name(assumed["session"])
        return Claim(principal=arn, role_arn=_mapped(settings, arn, own_role) or own_role, session_name=session,
                     source_identity=session)
    role = _mapped(settings, arn)
    if role is None:
        raise _refuse(f"{arn} is not an assumed role, and no role is configured for it",
                      "Connect with credentials of an IAM role (e.g. through aws sso login or a role profile), or "
                      "ask the operator to map this principal in AWS_DATA_MCP_PRINCIPAL_ROLE_MAP.")
    name = sts_name(arn.rsplit("/", 1)[-1])
    return Claim(principal=arn, role_arn=role, session_name=name, source_identity=name)


def _claim_values(value: Any) -> list[str]:
    """A claim as API Gateway passes it: a list, a string, or an array flattened to "[a b]"."""
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value or "").strip()
    if text.startswith("[") and text.endswith("]"):
        return [v for v in re.split(r"[\s,]+", text[1:-1]) if v]
    return [text] if text else []


def claim_oidc(context: Mapping[str, Any], headers: Mapping[str, Any], settings: Settings) -> Claim:
    """The JWT authorizer's validated claims (HTTP API 2.0, or REST v1 Cognito claims) and the bearer token."""
    authorizer = context.get("authorizer") if isinstance(context.get("authorizer"), Mapping) else {}
    jwt = (authorizer or {}).get("jwt") if isinstance((authorizer or {}).get("jwt"), Mapping) else None
    claims = (jwt or {}).get("claims") or (authorizer or {}).get("claims")
    if not isinstance(claims, Mapping) or not claims.get("sub"):
        raise _refuse("API Gateway passed no validated token claims (is the route's authorizer the JWT one?)")
    scheme, _, token = str(headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _refuse("no bearer token", "Send Authorization: Bearer <token issued for this server>.")
    held = set(_claim_values(claims.get(settings.oidc_role_claim)))
    role = next((arn for value, arn in settings.oidc_role_map if value in held), None) or settings.oidc_role_arn
    if not role:
        raise _refuse(f"no role is configured for this token's {settings.oidc_role_claim!r} claim",
                      "Ask the operator to set AWS_DATA_MCP_OIDC_ROLE_ARN or AWS_DATA_MCP_OIDC_ROLE_MAP.")
    try:
        expiry: float | None = float(claims["exp"]) if claims.get("exp") is not None else None
    except (TypeError, ValueError):
        expiry = None
    subject = str(claims["sub"])
    return Claim(principal=f"{claims.get('iss', '')}#{subject}", role_arn=role, session_name=sts_name(subject),
                 token=token.strip(), token_expiry=expiry)


def trust_statement(settings: Settings, claim: Claim) -> str:
    """The trust-policy statement a caller's role needs so the function may act as its caller."""
    if claim.token is not None:
        statement: dict[str, Any] = {"Effect": "Allow", "Principal": {"Federated": "<the OIDC provider ARN>"},
                                     "Action": "sts:AssumeRoleWithWebIdentity"}
    else:
        statement = {"Effect": "Allow", "Principal": {"AWS": settings.function_role_arn or "<FunctionRoleArn output>"},
                     "Action": ["sts:AssumeRole", "sts:SetSourceIdentity", "sts:TagSession"]}
    return json.dumps(statement)


class _Exchanges:
    """Exchanged callers, per claim, until shortly before their credentials or token expire; bounded, thread-safe.

    One exchange per claim at a time: concurrent first requests of one caller wait for it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, Caller]] = OrderedDict()
        self._flights: dict[str, threading.Lock] = {}

    def get(self, key: str) -> Caller | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None or found[0] <= time.time():
                return None
            self._entries.move_to_end(key)
            return found[1]

    def flight(self, key: str) -> threading.Lock:
        with self._lock:
            return self._flights.setdefault(key, threading.Lock())

    def put(self, key: str, value: Caller, until: float) -> None:
        with self._lock:
            self._entries[key] = (until, value)
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_CACHED_CALLERS:
                dropped, _ = self._entries.popitem(last=False)
                self._flights.pop(dropped, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._flights.clear()


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


def _exchange(claim: Claim, settings: Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    sts = function_session.sts(settings)
    if claim.token is not None:
        answer = sts.assume_role_with_web_identity(RoleArn=claim.role_arn, RoleSessionName=claim.session_name,
                                                   WebIdentityToken=claim.token,
                                                   DurationSeconds=settings.session_duration_seconds)
    else:
        answer = sts.assume_role(RoleArn=claim.role_arn, RoleSessionName=claim.session_name,
                                 SourceIdentity=claim.source_identity or claim.session_name,
                                 DurationSeconds=settings.session_duration_seconds)
    return answer["Credentials"], answer["AssumedRoleUser"]


def _refusal_of(exc: Exception, claim: Claim, settings: Settings) -> ResourceFailure:
    """An STS failure as the caller should see it: no AWS message (it names the function's role)."""
    action = "sts:AssumeRoleWithWebIdentity" if claim.token is not None else "sts:AssumeRole"
    code = exc.response.get("Error", {}).get("Code", "") if isinstance(exc, ClientError) else ""
    if code in ("AccessDenied", "AccessDeniedException"):
        return ResourceFailure(
            ErrorCode.ACCESS_DENIED, f"This server may not act as {claim.principal} through {claim.role_arn}",
            details=[f"Add this statement to the trust policy of {claim.role_arn}: {trust_statement(settings, claim)}",
                     "Then retry; nothing else needs to change."], action=action)
    if code in ("ExpiredTokenException", "InvalidIdentityToken", "IDPRejectedClaim", "IDPCommunicationError"):
        return authentication_required(f"the identity provider's token was refused by STS ({code})")
    if not isinstance(exc, ClientError | BotoCoreError):
        logger.warning("unexpected STS failure", extra={"action": action, "error": type(exc).__name__})
        return authentication_required(f"STS did not exchange the caller's identity ({type(exc).__name__})")
    failure = from_aws_error(exc, action)
    if failure.code in (ErrorCode.THROTTLED, ErrorCode.TIMEOUT, ErrorCode.UPSTREAM_UNAVAILABLE):
        return ResourceFailure(failure.code, f"Exchanging the caller's identity failed: {failure.message}",
                               details=["Retry in a few seconds."])
    return authentication_required(f"STS did not exchange the caller's identity ({code or type(exc).__name__})")


def _caller(claim: Claim, settings: Settings) -> Caller:
    """Exchange the claim for credentials (once per claim until they near expiry) and act as them."""
    cached = exchanges.get(claim.cache_key)
    if cached is not None:
        return cached
    with exchanges.flight(claim.cache_key):
        cached = exchanges.get(claim.cache_key)
        if cached is not None:
            return cached
        try:
            credentials, user = _exchange(claim, settings)
        except Exception as exc:  # whatever STS did, this request acts as nobody
            raise Refused(_refusal_of(exc, claim, settings)) from None
        expiry: datetime = credentials["Expiration"]
        session = boto3.Session(aws_access_key_id=credentials["AccessKeyId"],
                                aws_secret_access_key=credentials["SecretAccessKey"],
                                aws_session_token=credentials["SessionToken"], region_name=settings.region)
        arn = user["Arn"]
        caller = Caller(settings.auth_mode, session, settings.region, principal_arn=arn,
                        account=arn.split(":")[4] or None, user_id=user.get("AssumedRoleId"),
                        credential_expiry=expiry, identity_key=f"{claim.principal}\0{claim.role_arn}")
        until = expiry.timestamp() - REFRESH_MARGIN_SECONDS
        if claim.token_expiry is not None:
            until = min(until, claim.token_expiry - REFRESH_MARGIN_SECONDS)
        exchanges.put(claim.cache_key, caller, until)
        return caller


def resolve(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """The hosted caller of one request, or an unauthenticated one that says why (and made no AWS data call)."""
    try:
        context, headers = _request_context(scope, settings)
        claim = claim_oidc(context, headers, settings) if settings.auth_mode == "oidc" else claim_iam(context, settings)
        return _caller(claim, settings)
    except Refused as refused:
        return Caller(settings.auth_mode, None, settings.region, refused.failure.message, refusal=refused.failure)
