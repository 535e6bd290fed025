"""The oidc mode's claim: the token API Gateway's JWT authorizer validated, and the role its claims map to.

The token, issued for this server, is what STS exchanges (AssumeRoleWithWebIdentity): a token
exchange, not a passthrough. Everything here is checked before STS is asked, so a request
that is refused makes no AWS call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import jwt as pyjwt  # PyJWT, a dependency of the MCP SDK

from aws_data_mcp.config import Settings
from aws_data_mcp.hosted.claim import Claim, Headers, json_object, refuse, sts_name

MAX_TOKEN_CHARS = 16_384
"""Far above any real token (the HTTP edge refuses a header over 8 KiB anyway): the seam bounds what it decodes."""
_COMPACT_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_BEARER_HELP = "Send Authorization: Bearer <the JWT your identity provider issued for this server>."


def _authorizer_claims(context: Mapping[str, Any]) -> Mapping[str, Any]:
    """The claims the JWT authorizer validated (HTTP API 2.0), or REST v1's Cognito claims: sub and iss at least."""
    authorizer = json_object(context.get("authorizer"))
    claims = json_object(json_object(authorizer.get("jwt")).get("claims")) or json_object(authorizer.get("claims"))
    if not all(isinstance(claims.get(name), str) and claims[name] for name in ("sub", "iss")):
        raise refuse("API Gateway passed no validated token claims (is the route's authorizer the JWT one?)")
    return claims


def _bearer_token(headers: Headers) -> str:
    """The compact JWT of `Authorization: Bearer <token>`; anything else is refused before STS is asked."""
    value = headers.get("authorization")
    if not isinstance(value, str) or not value.strip():
        raise refuse("no bearer token", _BEARER_HELP)
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or len(token) > MAX_TOKEN_CHARS or not _COMPACT_JWS.fullmatch(token):
        raise refuse("the Authorization header is not a bearer JWT (three base64url segments)", _BEARER_HELP)
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
        raise refuse("the bearer token could not be read as a JWT", _BEARER_HELP) from None
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
        raise refuse("the bearer token is not the one API Gateway validated (its sub, iss or aud differ)",
                     _BEARER_HELP)


def _claim_values(value: Any) -> list[str]:
    """A claim's values as the issuer wrote them: each entry of an array, or one string (never split)."""
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if isinstance(v, str | int) and not isinstance(v, bool) and str(v)]


def _token_expiry(token: Mapping[str, Any]) -> float:
    expiry = token.get("exp")
    if not isinstance(expiry, int | float) or isinstance(expiry, bool):
        raise refuse("the bearer token carries no expiry", _BEARER_HELP)
    return float(expiry)


def claim_oidc(context: Mapping[str, Any], headers: Headers, settings: Settings) -> Claim:
    """The JWT authorizer's validated caller, the role the token's own claim values map to, and the token."""
    validated = _authorizer_claims(context)
    token = _bearer_token(headers)
    claims = _token_claims(token)
    _same_token(claims, validated)
    held = set(_claim_values(claims.get(settings.oidc_role_claim)))
    role = next((arn for value, arn in settings.oidc_role_map if value in held), None) or settings.oidc_role_arn
    if not role:
        raise refuse(f"no role is configured for this token's {settings.oidc_role_claim!r} claim",
                     "Ask the operator to set AWS_DATA_MCP_OIDC_ROLE_ARN or AWS_DATA_MCP_OIDC_ROLE_MAP.")
    subject, issuer = str(claims["sub"]), str(claims["iss"])
    return Claim(principal=f"{issuer}#{subject}", role_arn=role, session_name=sts_name(subject), token=token,
                 token_expiry=_token_expiry(claims), issuer=issuer,
                 audience=" ".join(sorted(_token_audiences(claims.get("aud")))) or None)
