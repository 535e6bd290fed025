"""RFC 7591 dynamic client registration for a Cognito user pool, which has none of its own.

Each request makes exactly one public app client, once its redirect URIs pass the allowlist.
Everything is checked before Cognito is called, so a refused request makes no AWS call.
A client gets only a name: signing in still takes a user of the pool.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from aws_data_mcp.sign_in.redirect_allowlist import RedirectPattern, allowed, allowlist

MAX_BODY_BYTES = 16_384
"""Client metadata is a few hundred bytes; anything far larger is refused before it is parsed."""
MAX_REDIRECT_URIS = 10
MAX_CLIENT_NAME_CHARS = 100
MCP_SCOPE = "mcp"
"""The one scope of the pool's resource server, whose identifier is the MCP URL: Cognito names it `<MCP URL>/mcp`."""
MCP_PATH = "/mcp"
CALLBACK_PATH = "/callback"
ACCESS_TOKEN_MINUTES = 60
REFRESH_TOKEN_DAYS = 30
_CLIENT_NAME_CHARS = re.compile(r"[^\w\s+=,.@-]")
"""What Cognito accepts in a ClientName: everything else of a client's chosen name is dropped."""
logger = logging.getLogger("aws_data_mcp.registration")


@dataclass(frozen=True)
class RegistrationPolicy:
    """What the operator decided: the pool, and the redirect URIs clients may register."""

    user_pool_id: str
    redirect_patterns: tuple[RedirectPattern, ...]
    """e.g. `http://localhost:*` or `https://claude.ai/api/mcp/auth_callback` (the language: `redirect_allowlist`)."""

    @classmethod
    def from_env(cls) -> RegistrationPolicy:
        """The policy the template sets in the registration function's environment (not the MCP server's settings:
        this function reads nothing else); a pattern that could match across a URI's parts raises `PatternError`."""
        return cls(user_pool_id=os.environ["REGISTRATION_USER_POOL_ID"],
                   redirect_patterns=allowlist(os.environ["REGISTRATION_REDIRECT_PATTERNS"].split(",")))


@dataclass(frozen=True)
class Answer:
    """An HTTP status and the JSON body RFC 7591 prescribes for it."""

    status: int
    body: Mapping[str, Any]


class Refusal(Exception):
    """Client metadata this endpoint will not register, as RFC 7591 section 3.2.2 names the error."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.answer = Answer(400, {"error": error, "error_description": description})


def _metadata(body: bytes) -> Mapping[str, Any]:
    if len(body) > MAX_BODY_BYTES:
        raise Refusal("invalid_client_metadata", f"the client metadata exceeds {MAX_BODY_BYTES} bytes")
    try:
        metadata = json.loads(body)
    except (ValueError, RecursionError):
        raise Refusal("invalid_client_metadata", "the body is not JSON client metadata") from None
    if not isinstance(metadata, dict):
        raise Refusal("invalid_client_metadata", "the client metadata must be a JSON object")
    return metadata


def check_redirect_uris(metadata: Mapping[str, Any], patterns: tuple[RedirectPattern, ...]) -> list[str]:
    uris = metadata.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(isinstance(uri, str) for uri in uris):
        raise Refusal("invalid_redirect_uri", "redirect_uris must be a non-empty array of URIs")
    if len(uris) > MAX_REDIRECT_URIS:
        raise Refusal("invalid_redirect_uri", f"at most {MAX_REDIRECT_URIS} redirect_uris")
    for uri in uris:
        if not allowed(uri, patterns):
            raise Refusal("invalid_redirect_uri",
                          f"redirect URI {uri[:200]!r} is not one this server allows (ask its operator: "
                          "RegistrationRedirectPatterns)")
    return list(dict.fromkeys(uris))


def check_grants(metadata: Mapping[str, Any]) -> None:
    """Only what a client signing a person in needs: the code grant (and refresh) and the code response.

    A client asking for a secret (`token_endpoint_auth_method` client_secret_post or _basic) is not refused: it
    is registered public, and the answer says `none`, as RFC 7591 section 3.2.1 lets a server replace a value. A
    secret would sit in every desktop install; PKCE protects the code instead.
    """
    grants = metadata.get("grant_types", ["authorization_code"])
    responses = metadata.get("response_types", ["code"])
    if not isinstance(grants, list) or not set(grants) <= {"authorization_code", "refresh_token"} \
            or "authorization_code" not in grants:
        raise Refusal("invalid_client_metadata", "grant_types must be authorization_code (and refresh_token)")
    if responses != ["code"]:
        raise Refusal("invalid_client_metadata", "response_types must be [\"code\"]")


def client_name(metadata: Mapping[str, Any]) -> str:
    name = metadata.get("client_name")
    chosen = _CLIENT_NAME_CHARS.sub("", name).strip() if isinstance(name, str) else ""
    return f"mcp {chosen or 'client'}"[:MAX_CLIENT_NAME_CHARS]


def cognito_refused(error: ClientError) -> Answer:
    """What Cognito's refusal means for the client: its metadata (400), the pool's app-client quota (503), a
    throttle (429); Cognito's own message says which value, and never holds a secret."""
    code = error.response.get("Error", {}).get("Code", "")
    message = str(error.response.get("Error", {}).get("Message", ""))[:300]
    if code == "InvalidParameterException":
        return Answer(400, {"error": "invalid_client_metadata", "error_description": f"Cognito refused it: {message}"})
    if code == "LimitExceededException":
        return Answer(503, {"error": "temporarily_unavailable", "error_description":
                            "the user pool holds as many app clients as Cognito allows: ask the operator"})
    if code in ("TooManyRequestsException", "ThrottlingException"):
        return Answer(429, {"error": "temporarily_unavailable", "error_description": "too many registrations: retry"})
    return Answer(502, {"error": "server_error", "error_description": f"Cognito answered {code or 'an error'}"})


def _forget(cognito: Any, user_pool_id: str, client_id: str) -> None:
    """Delete a client registration could not finish; one Cognito would not delete is named in the log for the
    operator (the client that asked is told the first failure either way)."""
    try:
        cognito.delete_user_pool_client(UserPoolId=user_pool_id, ClientId=client_id)
    except ClientError as error:
        logger.warning("app client %s was left in the pool without its style (%s): delete it",
                       client_id, error.response.get("Error", {}).get("Code", "an error"))


def create_public_client(cognito: Any, user_pool_id: str, name: str, callback_urls: list[str],
                         scopes: tuple[str, ...]) -> Mapping[str, Any]:
    """One public app client of the pool (code grant, PKCE, no secret) with its managed-login style; a client
    whose style fails is deleted again, and Cognito's `ClientError` raised."""
    created = cognito.create_user_pool_client(
        UserPoolId=user_pool_id, ClientName=name, GenerateSecret=False,
        AllowedOAuthFlowsUserPoolClient=True, AllowedOAuthFlows=["code"], AllowedOAuthScopes=list(scopes),
        CallbackURLs=callback_urls, SupportedIdentityProviders=["COGNITO"],
        ExplicitAuthFlows=["ALLOW_REFRESH_TOKEN_AUTH"], EnableTokenRevocation=True,
        PreventUserExistenceErrors="ENABLED", AccessTokenValidity=ACCESS_TOKEN_MINUTES,
        IdTokenValidity=ACCESS_TOKEN_MINUTES, RefreshTokenValidity=REFRESH_TOKEN_DAYS,
        TokenValidityUnits={"AccessToken": "minutes", "IdToken": "minutes", "RefreshToken": "days"},
    )["UserPoolClient"]
    try:  # managed login (version 2) shows a client its pages only with a style of its own
        cognito.create_managed_login_branding(UserPoolId=user_pool_id, ClientId=created["ClientId"],
                                              UseCognitoProvidedValues=True)
    except ClientError:
        _forget(cognito, user_pool_id, created["ClientId"])
        raise
    return created


def facade_callback(mcp_url: str) -> str:
    """Where Cognito sends the browser back: this API's `/callback`, which adds RFC 9207's `iss`."""
    return mcp_url.removesuffix(MCP_PATH) + CALLBACK_PATH


def client_scopes(mcp_url: str) -> tuple[str, ...]:
    """What every registered client may ask for: the resource server's scope (and openid)."""
    return "openid", f"{mcp_url}/{MCP_SCOPE}"


def register(body: bytes, policy: RegistrationPolicy, cognito: Any, mcp_url: str) -> Answer:
    """Register the client `body` describes as one public app client of the pool, or say why not (a refusal of
    the metadata makes no AWS call). `mcp_url` is the MCP endpoint, the resource server's identifier."""
    scopes = client_scopes(mcp_url)
    try:
        metadata = _metadata(body)
        redirect_uris = check_redirect_uris(metadata, policy.redirect_patterns)
        check_grants(metadata)
    except Refusal as refusal:
        return refusal.answer
    try:
        created = create_public_client(cognito, policy.user_pool_id, client_name(metadata),
                                       [*redirect_uris, facade_callback(mcp_url)], scopes)
    except ClientError as error:
        return cognito_refused(error)
    client_id = created["ClientId"]
    return Answer(201, {
        "client_id": client_id, "client_id_issued_at": int(time.time()), "client_name": created["ClientName"],
        "redirect_uris": redirect_uris, "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "token_endpoint_auth_method": "none", "scope": " ".join(scopes),
    })
