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

What requestContext is worth: API Gateway writes it, but anyone allowed
`lambda:InvokeFunction` on the function can invoke it directly with a requestContext of
their own, naming any caller, this API's id and its stage (both are in every URL). The
function cannot tell such an event from API Gateway's; the defence is who may invoke it
(its resource policy admits only this API; no identity policy should grant the action).
The API id and stage checks below only refuse events meant for somewhere else.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import boto3
import botocore.session
import jwt as pyjwt  # PyJWT, a dependency of the MCP SDK
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    NoCredentialsError,
    ParamValidationError,
    PartialCredentialsError,
)
from botocore.loaders import Loader

from aws_data_mcp.aws import client
from aws_data_mcp.caller import Caller, retry_later
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required, from_aws_error
from aws_data_mcp.observability import logger

Headers = Mapping[str, Any]
REFRESH_MARGIN_SECONDS = 60
MAX_CACHED_CALLERS = max(32, int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE") or 1024) // 8)
"""Exchanged callers kept: 128 in the template's default 1024 MB. Each holds its boto3 session and clients (measured:
0.15 MB, 1.5 MB with four clients, 2.5 MB with a client of every service read), so a full cache stays within about
a third of the function's memory."""
MAX_TOKEN_CHARS = 16_384
"""Far above any real token (the HTTP edge refuses a header over 8 KiB anyway): the seam bounds what it decodes."""
ROLE_CHAINING_MAX_SECONDS = 3600
"""The longest session AssumeRole grants to assumed-role credentials (role chaining), whatever the role allows:
the function's own credentials are its execution role's session, so every iam exchange is chained."""
# ASCII only, as STS means \w: a Unicode letter (josé) would pass and STS would refuse the name.
_SESSION_NAME_UNSAFE = re.compile(r"[^\w+=,.@-]", re.ASCII)
_ASSUMED_ROLE = re.compile(r"^arn:(?P<partition>[\w-]+):sts::(?P<account>\d{12}):assumed-role/(?P<role>[\w+=,.@-]+)"
                           r"/(?P<session>[\w+=,.@-]+)$", re.ASCII)
_ROLE_WITH_PATH = re.compile(r"^(?P<prefix>arn:[\w-]+:iam::\d{12}:role/)(?:[\w+=,.@-]+/)+(?P<name>[\w+=,.@-]+)$",
                             re.ASCII)
_COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_BEARER_HELP = "Send Authorization: Bearer <the JWT your identity provider issued for this server>."


def sts_name(value: str, fallback: str = "caller") -> str:
    """A RoleSessionName / SourceIdentity STS accepts: [\\w+=,.@-], 2 to 64 characters."""
    cleaned = _SESSION_NAME_UNSAFE.sub("-", value)[:64]
    return cleaned if len(cleaned) >= 2 else fallback


def _now() -> float:
    """Wall-clock seconds, as credential and token expiries are: one seam, so tests can move time."""
    return time.time()


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


def _refuse(reason: str, *details: str) -> Refused:
    failure = authentication_required(reason)
    failure.details = [*details, *failure.details]
    return Refused(failure)


def _mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty one: a malformed context reads as an absent one."""
    return value if isinstance(value, Mapping) else {}


def _request_context(scope: Mapping[str, Any] | None, settings: Settings) -> tuple[Mapping[str, Any], Headers]:
    event = (scope or {}).get("aws.event")
    if not isinstance(event, Mapping) or not isinstance(event.get("requestContext"), Mapping):
        raise _refuse("no API Gateway request context")
    context: Mapping[str, Any] = event["requestContext"]
    _check_origin(context, settings)
    headers = _mapping(event.get("headers"))
    return context, {str(k).lower(): v for k, v in headers.items()}


def _check_origin(context: Mapping[str, Any], settings: Settings) -> None:
    """The event names this deployment's API and stage, or it is refused.

    This refuses events meant for somewhere else (another API or stage wired to the function by
    mistake, a test event replayed against production). It is no defence against a forged direct
    invoke: the API id and stage are public, so a forger writes the right ones. That defence is
    who may call lambda:InvokeFunction on the function (see the module docstring).
    """
    if settings.expected_api_id and context.get("apiId") != settings.expected_api_id:
        raise _refuse("the request did not come through this deployment's API",
                      "Invoke the function only through its API Gateway URL.")
    if settings.expected_api_stage and context.get("stage") != settings.expected_api_stage:
        raise _refuse("the request did not come through this deployment's API stage",
                      "Invoke the function only through its API Gateway URL (output McpUrl).")


def _without_path(arn: str) -> str:
    """A role ARN as a session ARN names it: a session of role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_X
    is assumed-role/AWSReservedSSO_X/<session> (a role's name is unique in its account, whatever its path)."""
    match = _ROLE_WITH_PATH.match(arn)
    return match["prefix"] + match["name"] if match else arn


def _mapped(settings: Settings, *principals: str) -> str | None:
    """The role configured for the first of `principals` that PrincipalRoleMap names (a role's key with or without
    its path, as the operator copied it from IAM)."""
    mapping: dict[str, str] = {}
    for key, role in settings.principal_role_map:
        mapping.setdefault(_without_path(key), role)  # first entry wins, as documented
    return next((mapping[p] for p in principals if p in mapping), None)


def claim_iam(context: Mapping[str, Any], settings: Settings) -> Claim:
    """The caller's ARN from the IAM authorizer (HTTP API 2.0) or the request identity (REST v1)."""
    iam = _mapping(_mapping(context.get("authorizer")).get("iam"))
    arn = iam.get("userArn") or _mapping(context.get("identity")).get("userArn")
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


# --------------------------------------------------------------------------- oidc


def _authorizer_claims(context: Mapping[str, Any]) -> Mapping[str, Any]:
    """The claims the JWT authorizer validated (HTTP API 2.0), or REST v1's Cognito claims: sub and iss at least."""
    authorizer = _mapping(context.get("authorizer"))
    claims = _mapping(_mapping(authorizer.get("jwt")).get("claims")) or _mapping(authorizer.get("claims"))
    if not all(isinstance(claims.get(name), str) and claims[name] for name in ("sub", "iss")):
        raise _refuse("API Gateway passed no validated token claims (is the route's authorizer the JWT one?)")
    return claims


def _bearer_token(headers: Headers) -> str:
    """The compact JWT of `Authorization: Bearer <token>`; anything else is refused before STS is asked."""
    value = headers.get("authorization")
    if not isinstance(value, str) or not value.strip():
        raise _refuse("no bearer token", _BEARER_HELP)
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or len(token) > MAX_TOKEN_CHARS or not _COMPACT_JWS.fullmatch(token):
        raise _refuse("the Authorization header is not a bearer JWT (three base64url segments)", _BEARER_HELP)
    return token


def _token_claims(token: str) -> Mapping[str, Any]:
    """The token's payload as its issuer wrote it (arrays as arrays), read without checking the signature.

    Safe here, and only here: API Gateway's JWT authorizer verified this very header's token (signature,
    issuer, audience, expiry) before the function was invoked, and `_same_token` refuses a payload whose
    sub, iss or aud differ from what the authorizer vouched for. The payload is read because the
    authorizer passes array claims flattened to a string ("[a b]"), which cannot be split back safely
    (a group named "not admins" would read as "not" and "admins"). Nothing is trusted that STS does not
    check again: AssumeRoleWithWebIdentity verifies the signature itself, so a forged token, whatever
    role its claims select, gets no credentials.
    """
    try:
        claims = pyjwt.decode(token, options={"verify_signature": False})
    except (pyjwt.PyJWTError, ValueError):
        raise _refuse("the bearer token could not be read as a JWT", _BEARER_HELP) from None
    return claims


def _token_audiences(value: Any) -> frozenset[str]:
    values = value if isinstance(value, list) else [] if value is None else [value]
    return frozenset(str(v) for v in values)


def _authorizer_audiences(value: Any) -> frozenset[str]:
    """The authorizer's `aud`: one string, or an array flattened to "[a b]" (audiences hold no spaces)."""
    if isinstance(value, list):
        return frozenset(str(v) for v in value)
    text = "" if value is None else str(value)
    if text.startswith("[") and text.endswith("]"):
        return frozenset(text[1:-1].split())
    return frozenset({text}) if text else frozenset()


def _same_token(token: Mapping[str, Any], validated: Mapping[str, Any]) -> None:
    """The bearer token is the one the authorizer validated: same subject, issuer and audience."""
    same = all(token.get(name) == validated.get(name) for name in ("sub", "iss"))
    if ("aud" in token or "aud" in validated) and \
            _token_audiences(token.get("aud")) != _authorizer_audiences(validated.get("aud")):
        same = False
    if not same:
        raise _refuse("the bearer token is not the one API Gateway validated (its sub, iss or aud differ)",
                      _BEARER_HELP)


def _claim_values(value: Any) -> list[str]:
    """A claim's values as the issuer wrote them: each entry of an array, or one string (never split)."""
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if isinstance(v, str | int) and not isinstance(v, bool) and str(v)]


def _token_expiry(token: Mapping[str, Any]) -> float:
    expiry = token.get("exp")
    if not isinstance(expiry, int | float) or isinstance(expiry, bool):
        raise _refuse("the bearer token carries no expiry", _BEARER_HELP)
    return float(expiry)


def claim_oidc(context: Mapping[str, Any], headers: Mapping[str, Any], settings: Settings) -> Claim:
    """The JWT authorizer's validated caller, the role the token's own claim values map to, and the token."""
    validated = _authorizer_claims(context)
    token = _bearer_token(headers)
    claims = _token_claims(token)
    _same_token(claims, validated)
    held = set(_claim_values(claims.get(settings.oidc_role_claim)))
    role = next((arn for value, arn in settings.oidc_role_map if value in held), None) or settings.oidc_role_arn
    if not role:
        raise _refuse(f"no role is configured for this token's {settings.oidc_role_claim!r} claim",
                      "Ask the operator to set AWS_DATA_MCP_OIDC_ROLE_ARN or AWS_DATA_MCP_OIDC_ROLE_MAP.")
    subject, issuer = str(claims["sub"]), str(claims["iss"])
    return Claim(principal=f"{issuer}#{subject}", role_arn=role, session_name=sts_name(subject), token=token,
                 token_expiry=_token_expiry(claims), issuer=issuer,
                 audience=" ".join(sorted(_token_audiences(claims.get("aud")))) or None)


# --------------------------------------------------------------------------- STS and its refusals


def trust_statement(settings: Settings, claim: Claim) -> str:
    """The trust-policy statement a caller's role needs so the function may act as its caller."""
    if claim.token is not None:
        parts = claim.role_arn.split(":")
        partition, account = (parts[1], parts[4]) if len(parts) > 4 else ("aws", "<account>")
        provider = (claim.issuer or "<issuer>").removeprefix("https://").rstrip("/")
        statement: dict[str, Any] = {
            "Effect": "Allow", "Principal": {"Federated": f"arn:{partition}:iam::{account}:oidc-provider/{provider}"},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {f"{provider}:aud": claim.audience or "<audience>"}}}
    else:
        statement = {"Effect": "Allow", "Principal": {"AWS": settings.function_role_arn or "<FunctionRoleArn output>"},
                     "Action": ["sts:AssumeRole", "sts:SetSourceIdentity"]}
    return json.dumps(statement)


def _not_exchanged(reason: str, *details: str) -> ResourceFailure:
    return _refuse(reason, *details).failure


def _refusal_of(exc: Exception, claim: Claim, settings: Settings) -> ResourceFailure:
    """An STS failure as the caller should see it: what to fix, never the AWS message (it names the function's
    role); the function role's ARN appears only inside the trust statement a refused iam caller must add."""
    oidc = claim.token is not None
    action = "sts:AssumeRoleWithWebIdentity" if oidc else "sts:AssumeRole"
    if not isinstance(exc, ClientError | BotoCoreError):
        logger.warning("unexpected STS failure", extra={"action": action, "error": type(exc).__name__})
        return _not_exchanged(f"STS did not exchange the caller's identity ({type(exc).__name__})")
    code = str(exc.response.get("Error", {}).get("Code", "")) if isinstance(exc, ClientError) else ""
    if code in ("AccessDenied", "AccessDeniedException"):
        details = [f"Add this statement to the trust policy of {claim.role_arn}: {trust_statement(settings, claim)}"]
        if not oidc:  # AssumeRole also needs the function's own grant, which CallerRoleArnPattern scopes
            details.append(f"If the trust policy has it already, {claim.role_arn} is outside the roles the server may "
                           "assume: the operator adds it to the stack's CallerRoleArnPattern parameter (by default "
                           "only roles of the deployment's own account).")
        return ResourceFailure(ErrorCode.ACCESS_DENIED,
                               f"This server may not act as {claim.principal} through {claim.role_arn}",
                               details=[*details, "Then retry."], action=action)
    if code in ("ExpiredToken", "ExpiredTokenException") and oidc:
        return _not_exchanged(f"STS found the bearer token expired or no longer valid ({code})",
                              "Sign in again for a fresh token, then retry.")
    if code in ("ExpiredToken", "ExpiredTokenException", "InvalidClientTokenId", "SignatureDoesNotMatch",
                "UnrecognizedClientException"):
        return retry_later(f"STS refused this server's own credentials ({code})",
                           "If it persists, the operator checks the function's execution role.")
    if code == "InvalidIdentityToken":
        return _not_exchanged(
            "STS could not validate the bearer token with the account's OIDC identity provider (InvalidIdentityToken)",
            f"The operator checks that an IAM OIDC identity provider exists for {claim.issuer} and lists the token's "
            f"audience ({claim.audience or 'aud'}) as a client ID; then sign in again.")
    if code == "IDPRejectedClaim":
        return _not_exchanged("the identity provider rejected the bearer token's claims (IDPRejectedClaim)",
                              "Sign in again for a fresh token; a revoked or expired sign-in cannot be exchanged.")
    if code == "IDPCommunicationError":
        return retry_later("STS could not reach the identity provider to check the bearer token "
                           "(IDPCommunicationError)")
    if code in ("RegionDisabled", "RegionDisabledException"):
        return _not_exchanged(f"STS is not activated in {settings.region} for this account ({code})",
                              "An account administrator activates the region's STS endpoint (IAM console, Account "
                              "settings, Security Token Service endpoints).")
    if code == "ValidationError" and oidc:
        return _not_exchanged(
            "STS refused the exchange's parameters (ValidationError)",
            f"Most often the session duration ({settings.session_duration_seconds} s, SessionDurationSeconds) exceeds "
            f"the maximum session duration of {claim.role_arn}: raise the role's, or lower the parameter.")
    if code == "ValidationError":  # iam asks for at most the hour every role allows: not the duration
        return _not_exchanged("STS refused the exchange's parameters (ValidationError)",
                              f"The operator checks that {claim.role_arn} is a role ARN as IAM writes it (a "
                              "PrincipalRoleMap entry).")
    if _transient(exc):
        return retry_later(f"STS was busy or out of reach while exchanging the caller's identity "
                           f"({code or type(exc).__name__})")
    return _not_exchanged(f"STS did not exchange the caller's identity ({code or type(exc).__name__})",
                          "If it persists, tell the operator this error code.")


def _transient(exc: ClientError | BotoCoreError) -> bool:
    """Throttling, a 5xx, a timeout or a connection failure: STS may well answer the next try."""
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return from_aws_error(exc, "sts").code is ErrorCode.THROTTLED or int(status) >= 500
    return not isinstance(exc, NoCredentialsError | PartialCredentialsError | ParamValidationError)


# --------------------------------------------------------------------------- the exchanges


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


def _exchange(claim: Claim, settings: Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    sts = function_session.sts(settings)
    if claim.token is not None:  # not chained: the token, not the function's session, is the source
        answer = sts.assume_role_with_web_identity(RoleArn=claim.role_arn, RoleSessionName=claim.session_name,
                                                   WebIdentityToken=claim.token,
                                                   DurationSeconds=settings.session_duration_seconds)
    else:
        answer = sts.assume_role(RoleArn=claim.role_arn, RoleSessionName=claim.session_name,
                                 SourceIdentity=claim.source_identity or claim.session_name,
                                 DurationSeconds=min(settings.session_duration_seconds, ROLE_CHAINING_MAX_SECONDS))
    return answer["Credentials"], answer["AssumedRoleUser"]


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
        session = _session_of(credentials, settings.region)
        arn = user["Arn"]
        caller = Caller(settings.auth_mode, session, settings.region, principal_arn=arn,
                        account=arn.split(":")[4] or None, user_id=user.get("AssumedRoleId"),
                        credential_expiry=expiry, identity_key=f"{claim.principal}\0{claim.role_arn}")
        exchanges.put(claim.cache_key, caller, cached_until(expiry, claim.token_expiry))
        return caller


def resolve(scope: Mapping[str, Any] | None, settings: Settings) -> Caller:
    """The hosted caller of one request, or an unauthenticated one that says why (and made no AWS data call)."""
    try:
        context, headers = _request_context(scope, settings)
        claim = claim_oidc(context, headers, settings) if settings.auth_mode == "oidc" else claim_iam(context, settings)
        return _caller(claim, settings)
    except Refused as refused:
        return Caller(settings.auth_mode, None, settings.region, refused.failure.message, refusal=refused.failure)
