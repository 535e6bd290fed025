"""Why STS would not exchange a claim, told as what to fix: one refusal per STS error code.

The two modes read a few codes differently. ExpiredToken is the caller's bearer token in oidc. In
iam it is the function's own credentials. So each mode has its table. A code in neither is retried
when it looks transient. Else it is reported by the code alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    NoCredentialsError,
    ParamValidationError,
    PartialCredentialsError,
)

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, from_aws_error
from aws_data_mcp.identity.caller import retry_later
from aws_data_mcp.identity.hosted.claim import Claim, refuse
from aws_data_mcp.identity.hosted.trust import iam_trust, oidc_trust
from aws_data_mcp.observability import logger

Refusal = Callable[[str, Claim, Settings], ResourceFailure]
"""The failure for one STS error code, given the code, the claim STS refused and the settings."""


def trust_statement(settings: Settings, claim: Claim) -> str:
    """What the trust policy of a caller's role needs so the function may act as its caller: the function role's
    statement (iam), or the statements that admit exactly the tokens the role map sends to the role (oidc)."""
    if claim.token is not None:
        return json.dumps(oidc_trust(settings, claim.role_arn, claim.issuer, claim.audience))
    return json.dumps(iam_trust(settings))


def _action(claim: Claim) -> str:
    return "sts:AssumeRoleWithWebIdentity" if claim.token is not None else "sts:AssumeRole"


def _not_exchanged(reason: str, *details: str) -> ResourceFailure:
    return refuse(reason, *details).failure


def _untrusted(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    what = "these statements" if claim.token is not None else "this statement"
    details = [f"Add {what} to the trust policy of {claim.role_arn}: {trust_statement(settings, claim)}"]
    if claim.token is None:  # AssumeRole also needs the function's own grant, which CallerRoleArnPattern scopes
        details.append(f"If the trust policy has it already, {claim.role_arn} is outside the roles the server may "
                       "assume: the operator adds it to the stack's CallerRoleArnPattern parameter.")
    return ResourceFailure(ErrorCode.ACCESS_DENIED,
                           f"This server may not act as {claim.principal} through {claim.role_arn}",
                           details=[*details, "Then retry."], action=_action(claim))


@dataclass(frozen=True)
class _Said:
    """A refusal in fixed words but for the fields they name: {code}, {role_arn}, {issuer}, {audience}, {region},
    {duration}. `retry` when asking again may cure it (nothing the caller or operator must change)."""

    reason: str
    advice: str | None = None
    retry: bool = False

    def __call__(self, code: str, claim: Claim, settings: Settings) -> ResourceFailure:
        fields = {"code": code, "role_arn": claim.role_arn, "issuer": claim.issuer,
                  "audience": claim.audience or "aud", "region": settings.region,
                  "duration": settings.session_duration_seconds}
        reason, details = self.reason.format(**fields), [self.advice.format(**fields)] if self.advice else []
        return retry_later(reason, *details) if self.retry else _not_exchanged(reason, *details)


_OWN_CREDENTIALS_REFUSED = _Said("STS refused this server's own credentials ({code})",
                                 "If it persists, the operator checks the function's execution role.", retry=True)
_REGION_DISABLED = _Said("STS is not activated in {region} for this account ({code})",
                         "An account administrator activates the region's STS endpoint (IAM console, Account "
                         "settings, Security Token Service endpoints).")
_TOKEN_EXPIRED = _Said("STS found the bearer token expired or no longer valid ({code})",
                       "Sign in again for a fresh token, then retry.")

_IAM_REFUSALS: dict[str, Refusal] = {
    "AccessDenied": _untrusted,
    "AccessDeniedException": _untrusted,
    "ExpiredToken": _OWN_CREDENTIALS_REFUSED,
    "ExpiredTokenException": _OWN_CREDENTIALS_REFUSED,
    "InvalidClientTokenId": _OWN_CREDENTIALS_REFUSED,
    "SignatureDoesNotMatch": _OWN_CREDENTIALS_REFUSED,
    "UnrecognizedClientException": _OWN_CREDENTIALS_REFUSED,
    "InvalidIdentityToken": _Said(
        "STS could not validate the bearer token with the account's OIDC identity provider (InvalidIdentityToken)",
        "The operator checks that an IAM OIDC identity provider exists for {issuer} and lists the token's "
        "audience ({audience}) as a client ID; then sign in again."),
    "IDPRejectedClaim": _Said("the identity provider rejected the bearer token's claims (IDPRejectedClaim)",
                              "Sign in again for a fresh token; a revoked or expired sign-in cannot be exchanged."),
    "IDPCommunicationError": _Said("STS could not reach the identity provider to check the bearer token "
                                   "(IDPCommunicationError)", retry=True),
    "RegionDisabled": _REGION_DISABLED,
    "RegionDisabledException": _REGION_DISABLED,
    # iam asks for at most the hour every role allows: not the duration
    "ValidationError": _Said("STS refused the exchange's parameters (ValidationError)",
                             "The operator checks that {role_arn} is a role ARN as IAM writes it (a "
                             "PrincipalRoleMap entry)."),
}
_OIDC_REFUSALS: dict[str, Refusal] = {
    **_IAM_REFUSALS,
    "ExpiredToken": _TOKEN_EXPIRED,
    "ExpiredTokenException": _TOKEN_EXPIRED,
    "ValidationError": _Said(
        "STS refused the exchange's parameters (ValidationError)",
        "Most often the session duration ({duration} s, SessionDurationSeconds) exceeds the maximum session "
        "duration of {role_arn}: raise the role's, or lower the parameter."),
}
"""An oidc exchange's expired token is the caller's bearer token, and its duration is what the role may refuse."""


def refusal_of(exc: Exception, claim: Claim, settings: Settings) -> ResourceFailure:
    """An STS failure as the caller should see it: what to fix, never the AWS message (it names the function's
    role); the function role's ARN appears only inside the trust statement a refused iam caller must add."""
    if not isinstance(exc, ClientError | BotoCoreError):
        logger.warning("unexpected STS failure", extra={"action": _action(claim), "error": type(exc).__name__})
        return _not_exchanged(f"STS did not exchange the caller's identity ({type(exc).__name__})")
    code = str(exc.response.get("Error", {}).get("Code", "")) if isinstance(exc, ClientError) else ""
    refusal = (_OIDC_REFUSALS if claim.token is not None else _IAM_REFUSALS).get(code)
    if refusal is not None:
        return refusal(code, claim, settings)
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
