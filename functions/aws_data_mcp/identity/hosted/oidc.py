"""The oidc mode's claim: the token API Gateway's JWT authorizer validated, and the role its claims map to.

STS exchanges the token (AssumeRoleWithWebIdentity): an exchange, not a passthrough. Everything here
is checked before STS is asked, so a refused request makes no AWS call. The role map reads only what
each role's trust checks again (see `trust`). So the map chooses a role. AWS enforces the same
choice on anyone who calls STS with the token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.claim import Claim, Headers, json_object, refuse, sts_name
from aws_data_mcp.identity.hosted.trust import TAGS_CLAIM

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
    import jwt as pyjwt  # PyJWT (an SDK dependency), imported here: ~45 ms that iam and local modes never need

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


def _role_selector(claims: Mapping[str, Any], settings: Settings) -> str | None:
    """What the role map reads, exactly as STS will set the value the role's trust checks: the principal tag's one
    value (or the subject); None when the token carries none. A tags claim STS would read otherwise is refused."""
    if settings.oidc_role_claim == "sub":
        return str(claims["sub"])
    if settings.oidc_role_claim != "tag":  # no map (a map on another claim is refused at start): the default role
        return None
    if TAGS_CLAIM not in claims:
        return None
    tags = claims[TAGS_CLAIM]
    principal_tags = tags.get("principal_tags") if isinstance(tags, Mapping) else None
    if not isinstance(principal_tags, Mapping):
        raise refuse(f"the bearer token's {TAGS_CLAIM} claim holds no principal_tags object",
                     "The identity provider writes {\"principal_tags\": {\"<tag>\": [\"<value>\"]}} in it.")
    wanted = settings.oidc_role_tag.lower()  # IAM compares tag keys regardless of case
    found = [value for key, value in principal_tags.items() if str(key).lower() == wanted]
    if not found:
        return None
    values = found[0] if isinstance(found[0], list) and len(found) == 1 else found
    if len(values) != 1 or not isinstance(values[0], str) or not values[0]:
        raise refuse(f"the bearer token's principal tag {settings.oidc_role_tag!r} is not one text value",
                     "A session tag has exactly one value: the identity provider sends one role tag per token.")
    return values[0]


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
    selector = _role_selector(claims, settings)
    role = dict(settings.oidc_role_map).get(selector) if selector is not None else None
    role = role or settings.oidc_role_arn
    if not role:
        raise refuse("no role is configured for this token",
                     "Ask the operator to set AWS_DATA_MCP_OIDC_ROLE_ARN or AWS_DATA_MCP_OIDC_ROLE_MAP.")
    subject, issuer = str(claims["sub"]), str(claims["iss"])
    return Claim(principal=f"{issuer}#{subject}", role_arn=role, session_name=sts_name(subject), token=token,
                 token_expiry=_token_expiry(claims), issuer=issuer,
                 audience=" ".join(sorted(_token_audiences(claims.get("aud")))) or None)
