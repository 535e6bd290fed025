"""Why STS would not exchange a claim, told as what to fix: a table of STS error codes, one refusal each.

The two modes read a few codes differently (ExpiredToken is the caller's bearer token in oidc, the
function's own credentials in iam), so each mode has its table; a code in neither is retried when it
looks transient, else reported by the code alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    NoCredentialsError,
    ParamValidationError,
    PartialCredentialsError,
)

from aws_data_mcp.caller import retry_later
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure, from_aws_error
from aws_data_mcp.hosted.claim import Claim, refuse
from aws_data_mcp.observability import logger

Refusal = Callable[[str, Claim, Settings], ResourceFailure]
"""The failure for one STS error code, given the code, the claim STS refused and the settings."""


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


def _action(claim: Claim) -> str:
    return "sts:AssumeRoleWithWebIdentity" if claim.token is not None else "sts:AssumeRole"


def _not_exchanged(reason: str, *details: str) -> ResourceFailure:
    return refuse(reason, *details).failure


def _untrusted(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    details = [f"Add this statement to the trust policy of {claim.role_arn}: {trust_statement(settings, claim)}"]
    if claim.token is None:  # AssumeRole also needs the function's own grant, which CallerRoleArnPattern scopes
        details.append(f"If the trust policy has it already, {claim.role_arn} is outside the roles the server may "
                       "assume: the operator adds it to the stack's CallerRoleArnPattern parameter (by default "
                       "only roles of the deployment's own account).")
    return ResourceFailure(ErrorCode.ACCESS_DENIED,
                           f"This server may not act as {claim.principal} through {claim.role_arn}",
                           details=[*details, "Then retry."], action=_action(claim))


def _token_expired(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged(f"STS found the bearer token expired or no longer valid ({code})",
                          "Sign in again for a fresh token, then retry.")


def _own_credentials_refused(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return retry_later(f"STS refused this server's own credentials ({code})",
                       "If it persists, the operator checks the function's execution role.")


def _no_identity_provider(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged(
        "STS could not validate the bearer token with the account's OIDC identity provider (InvalidIdentityToken)",
        f"The operator checks that an IAM OIDC identity provider exists for {claim.issuer} and lists the token's "
        f"audience ({claim.audience or 'aud'}) as a client ID; then sign in again.")


def _claims_rejected(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged("the identity provider rejected the bearer token's claims (IDPRejectedClaim)",
                          "Sign in again for a fresh token; a revoked or expired sign-in cannot be exchanged.")


def _identity_provider_unreachable(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return retry_later("STS could not reach the identity provider to check the bearer token "
                       "(IDPCommunicationError)")


def _region_disabled(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged(f"STS is not activated in {settings.region} for this account ({code})",
                          "An account administrator activates the region's STS endpoint (IAM console, Account "
                          "settings, Security Token Service endpoints).")


def _not_a_role_arn(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged("STS refused the exchange's parameters (ValidationError)",
                          f"The operator checks that {claim.role_arn} is a role ARN as IAM writes it (a "
                          "PrincipalRoleMap entry).")


def _longer_than_the_role_allows(code: str, claim: Claim, settings: Settings) -> ResourceFailure:
    return _not_exchanged(
        "STS refused the exchange's parameters (ValidationError)",
        f"Most often the session duration ({settings.session_duration_seconds} s, SessionDurationSeconds) exceeds "
        f"the maximum session duration of {claim.role_arn}: raise the role's, or lower the parameter.")


_IAM_REFUSALS: dict[str, Refusal] = {
    "AccessDenied": _untrusted,
    "AccessDeniedException": _untrusted,
    "ExpiredToken": _own_credentials_refused,
    "ExpiredTokenException": _own_credentials_refused,
    "InvalidClientTokenId": _own_credentials_refused,
    "SignatureDoesNotMatch": _own_credentials_refused,
    "UnrecognizedClientException": _own_credentials_refused,
    "InvalidIdentityToken": _no_identity_provider,
    "IDPRejectedClaim": _claims_rejected,
    "IDPCommunicationError": _identity_provider_unreachable,
    "RegionDisabled": _region_disabled,
    "RegionDisabledException": _region_disabled,
    "ValidationError": _not_a_role_arn,  # iam asks for at most the hour every role allows: not the duration
}
_OIDC_REFUSALS: dict[str, Refusal] = {
    **_IAM_REFUSALS,
    "ExpiredToken": _token_expired,
    "ExpiredTokenException": _token_expired,
    "ValidationError": _longer_than_the_role_allows,
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
