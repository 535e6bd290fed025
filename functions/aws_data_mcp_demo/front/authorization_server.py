"""The demo issuer as an OAuth 2.1 authorization server, so an MCP client given the demo URL signs in in a browser.

The endpoints are the MCP SDK's authorization-server handlers (metadata, RFC 8414; dynamic registration,
RFC 7591; authorization with PKCE S256; token; revocation, RFC 7009): this module is only the provider
behind them and the sign-in page where a person picks a demo user. A client may also name itself by a Client ID
Metadata Document (`client_documents`), as MCP 2026-07-28 prefers: the metadata says so, and the document's redirect
URIs are held to the same rule as a registration's. What it issues is the demo issuer's
own JWT, signed with the key its JWKS publishes, so the front's JWT authorizer checks a signed-in user's
token exactly as it checks the banner's static tokens. Clients, codes and refresh tokens live in memory,
as a demo's may. Demo and development only: this module never ships in the Lambda package.
"""

from __future__ import annotations

import html
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import anyio.to_thread
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, ConfigDict, TypeAdapter
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, Router
from starlette.types import ASGIApp

from aws_data_mcp.sign_in.client_documents import (
    ClientDocuments,
    DocumentRefused,
    client_information,
    fetch,
    is_document_url,
)
from aws_data_mcp_demo.account.callers import CALLERS, DemoCaller
from aws_data_mcp_demo.front.gateway import DemoIssuer

SIGN_IN_PATH = "/sign-in"
ACCESS_TOKEN_LIFETIME_SECONDS = 15 * 60
"""Short, because API Gateway's JWT authorizer cannot ask whether a token was revoked: it holds until it expires."""
REFRESH_TOKEN_LIFETIME_SECONDS = 12 * 3600
SIGN_IN_SECONDS = 10 * 60
"""How long a person has to choose a user once the client sent them to the sign-in page."""
CODE_SECONDS = 60
LOOPBACK_REDIRECT = re.compile(r"http://(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?(/[^?#]*)?(\?[^#]*)?")
"""The redirect URIs a client may register: loopback (RFC 8252 §7.3), where desktop clients and CLIs listen..."""
HOSTED_CALLBACKS = frozenset({"https://vscode.dev/redirect"})
"""...and the web relays a desktop client registers beside its loopback URI (VS Code). A client whose server side
receives the code (claude.ai connectors) cannot reach a laptop's token endpoint, so none is listed."""

Mint = Callable[[DemoCaller, int], str]
"""The demo issuer's token for a caller, valid for so many seconds."""

_ISSUER_URL = TypeAdapter(AnyHttpUrl, config=ConfigDict(url_preserve_empty_path=True))


@dataclass(frozen=True)
class _PendingSignIn:
    client_id: str
    params: AuthorizationParams
    expires_at: float


class _Code(AuthorizationCode):
    grant: str


class _Refresh(RefreshToken):
    grant: str


class _Access(AccessToken):
    grant: str


@dataclass
class DemoAuthorizationServer:
    """The provider (`OAuthAuthorizationServerProvider`) the SDK's handlers call, and the sign-in page.

    A grant is one sign-in: the code it yields, and every refresh and access token issued from it since.
    Revoking any of them, or presenting its code or a rotated refresh token a second time (someone else holds a
    copy), ends the grant (RFC 6749 §4.1.2, RFC 7009 §2.1, OAuth 2.1 §4.3.1): its refresh tokens are refused from
    then on.
    """

    issuer: DemoIssuer
    resource: str
    """The MCP URL: the one resource (RFC 8707) this server issues tokens for."""
    mint: Mint
    access_token_lifetime: int = ACCESS_TOKEN_LIFETIME_SECONDS
    documents: ClientDocuments = field(default_factory=lambda: ClientDocuments(partial(fetch, allow_loopback=True)))
    """Client ID Metadata Documents, fetched on loopback too: the demo's clients run on the person's machine."""
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict, init=False)
    _pending: dict[str, _PendingSignIn] = field(default_factory=dict, init=False)
    _codes: dict[str, _Code] = field(default_factory=dict, init=False)
    _refresh: dict[str, _Refresh] = field(default_factory=dict, init=False)
    _access: dict[str, _Access] = field(default_factory=dict, init=False)
    _spent: dict[str, str] = field(default_factory=dict, init=False)
    """Codes and refresh tokens already used once -> their grant."""
    _ended_grants: set[str] = field(default_factory=set, init=False)

    # ----------------------------------------------------------------------- registration (RFC 7591)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if not is_document_url(client_id):
            return self.clients.get(client_id)
        try:
            return await self.document_client(client_id)
        except DocumentRefused:
            return None

    async def document_client(self, url: str) -> OAuthClientInformationFull:
        """The client a metadata document registers (fetched off the event loop); `DocumentRefused` says why not."""
        document = await anyio.to_thread.run_sync(self.documents.get, url)
        outside = _outside_redirects(document.redirect_uris)
        if outside:
            raise DocumentRefused(_redirects_refused(outside))
        return OAuthClientInformationFull.model_validate(client_information(document))

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        outside = _outside_redirects([str(uri) for uri in client_info.redirect_uris or []])
        if outside:
            raise RegistrationError("invalid_redirect_uri", _redirects_refused(outside))
        self.clients[client_info.client_id or ""] = client_info

    # ----------------------------------------------------------------------- authorization, then the sign-in page

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Check the resource indicator (a client that sends none gets the only one), then send the person to the
        sign-in page for this request."""
        if params.resource is not None and params.resource != self.resource:
            raise AuthorizeError("invalid_target", f"this server issues tokens for {self.resource} only")
        request = secrets.token_urlsafe(32)
        self._pending[request] = _PendingSignIn(client.client_id or "", params, time.time() + SIGN_IN_SECONDS)
        return construct_redirect_uri(f"{self.issuer.url}{SIGN_IN_PATH}", request=request)

    async def sign_in_page(self, request: Request) -> Response:
        pending = self._pending.get(request.query_params.get("request", ""))
        if pending is None or pending.expires_at < time.time():
            return _page("This sign-in has expired or was already used. Start again from your client.", 400)
        client = await self.get_client(pending.client_id)
        if client is None:  # a document that no longer registers its client since the sign-in started
            return _page("This client can no longer sign in. Start again from your client.", 400)
        buttons = "".join(
            f'<button name="user" value="{c.name}"><b>{c.name}</b><br>{c.role}: {html.escape(c.rights)}</button>'
            for c in CALLERS)
        return _page(f"<p><b>{html.escape(client.client_name or 'An MCP client')}</b> asks to act for you on "
                     f"{html.escape(self.resource)}. Sign in as:</p>"
                     f'<form method="post" action="{SIGN_IN_PATH}">'
                     f'<input type="hidden" name="request" value="{html.escape(request.query_params["request"])}">'
                     f'{buttons}<button name="user" value="">Cancel</button></form>')

    async def sign_in(self, request: Request) -> Response:
        """The person chose a user (or cancelled): back to the client's redirect URI with a code (or access_denied)."""
        form = await request.form()
        pending = self._pending.pop(str(form.get("request", "")), None)
        if pending is None or pending.expires_at < time.time():
            return _page("This sign-in has expired or was already used. Start again from your client.", 400)
        params = pending.params
        caller = next((c for c in CALLERS if c.name == form.get("user")), None)
        if caller is None:
            answer = {"error": "access_denied", "error_description": "the person cancelled the sign-in"}
        else:
            code = secrets.token_urlsafe(32)
            self._codes[code] = _Code(
                code=code, scopes=params.scopes or [], expires_at=time.time() + CODE_SECONDS,
                client_id=pending.client_id, code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
                redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
                resource=self.resource, subject=caller.name, grant=secrets.token_urlsafe(16))
            answer = {"code": code}
        location = construct_redirect_uri(str(params.redirect_uri), **answer, state=params.state, iss=self.issuer.url)
        return RedirectResponse(location, status_code=303, headers={"Cache-Control": "no-store"})

    # ----------------------------------------------------------------------- tokens

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> _Code | None:
        self._end_if_spent(authorization_code)
        return self._codes.get(authorization_code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: _Code) -> OAuthToken:
        self._spend(self._codes.pop(authorization_code.code))
        return self._tokens(authorization_code.client_id, authorization_code.subject or "", authorization_code.scopes,
                            authorization_code.grant)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> _Refresh | None:
        self._end_if_spent(refresh_token)
        found = self._refresh.get(refresh_token)
        return None if found is None or found.grant in self._ended_grants else found

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: _Refresh,
                                     scopes: list[str]) -> OAuthToken:
        self._spend(self._refresh.pop(refresh_token.token))  # rotated: a refresh token works once
        return self._tokens(refresh_token.client_id, refresh_token.subject or "", scopes, refresh_token.grant)

    async def load_access_token(self, token: str) -> _Access | None:
        return self._access.get(token)

    async def revoke_token(self, token: _Access | _Refresh) -> None:
        self._ended_grants.add(token.grant)

    def _spend(self, used: _Code | _Refresh) -> None:
        self._spent[used.code if isinstance(used, _Code) else used.token] = used.grant

    def _end_if_spent(self, presented: str) -> None:
        """A code or refresh token presented again was copied: end what it granted, whoever presents it."""
        grant = self._spent.get(presented)
        if grant is not None:
            self._ended_grants.add(grant)

    def _tokens(self, client_id: str, subject: str, scopes: list[str], grant: str) -> OAuthToken:
        caller = next(c for c in CALLERS if c.name == subject)
        access = self.mint(caller, self.access_token_lifetime)
        refresh = secrets.token_urlsafe(32)
        now = int(time.time())
        common = {"client_id": client_id, "scopes": scopes, "resource": self.resource, "subject": subject,
                  "grant": grant}
        self._access[access] = _Access(token=access, expires_at=now + self.access_token_lifetime, **common)
        self._refresh[refresh] = _Refresh(token=refresh, expires_at=now + REFRESH_TOKEN_LIFETIME_SECONDS, **common)
        return OAuthToken(access_token=access, expires_in=self.access_token_lifetime, refresh_token=refresh,
                          scope=" ".join(scopes) or None)

    # ----------------------------------------------------------------------- the routes

    async def authorize_request(self, request: Request) -> Response:
        """The SDK's authorization endpoint, after a metadata document's client id is fetched: a document that
        cannot register its client is refused here in words (the SDK would only say the client is not found)."""
        client_id = (request.query_params if request.method == "GET" else await request.form()).get("client_id")
        if isinstance(client_id, str) and is_document_url(client_id):
            try:
                await self.document_client(client_id)
            except DocumentRefused as refused:
                return JSONResponse({"error": "invalid_request", "error_description": str(refused)}, 400,
                                    headers={"Cache-Control": "no-store"})
        return await AuthorizationHandler(self).handle(request)

    def routes(self) -> list[Route]:
        """The SDK's authorization-server routes for this issuer (its metadata saying that metadata documents are
        supported; authorization through `authorize_request`), and the sign-in page."""
        issuer = _ISSUER_URL.validate_python(self.issuer.url)
        registration, revocation = ClientRegistrationOptions(enabled=True), RevocationOptions(enabled=True)
        metadata = build_metadata(issuer, None, registration, revocation)
        metadata.client_id_metadata_document_supported = True
        ours = {"/.well-known/oauth-authorization-server": Route(
                    "/.well-known/oauth-authorization-server", methods=["GET", "OPTIONS"],
                    endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])),
                "/authorize": Route("/authorize", self.authorize_request, methods=["GET", "POST"])}
        sdk = create_auth_routes(self, issuer, client_registration_options=registration, revocation_options=revocation)
        return [*(ours.get(route.path, route) for route in sdk),
                Route(SIGN_IN_PATH, self.sign_in_page, methods=["GET"]),
                Route(SIGN_IN_PATH, self.sign_in, methods=["POST"])]


def _outside_redirects(uris: list[str] | tuple[str, ...]) -> list[str]:
    return [uri for uri in uris if not LOOPBACK_REDIRECT.fullmatch(uri) and uri not in HOSTED_CALLBACKS]


def _redirects_refused(outside: list[str]) -> str:
    return (f"redirect URIs must be loopback (http://127.0.0.1, http://localhost or http://[::1], any port): "
            f"not {', '.join(outside)}")


def with_sign_in(front: ASGIApp, server: DemoAuthorizationServer) -> ASGIApp:
    """The authorization server's routes before the front: every other request is the front's (API Gateway's)."""
    return Router(routes=server.routes(), default=front, redirect_slashes=False)


def _page(body: str, status: int = 200) -> HTMLResponse:
    """A page of the demo's sign-in: never cached, never framed (a framed sign-in could be clicked unseen)."""
    return HTMLResponse(f"<!doctype html><html><head><title>aws-data-mcp demo: sign in</title>"
                        f"<style>body{{font-family:sans-serif;max-width:40em;margin:3em auto}}"
                        f"button{{display:block;width:100%;margin:.5em 0;padding:.8em;text-align:left}}</style>"
                        f"</head><body><h1>aws-data-mcp demo</h1>{body}</body></html>", status_code=status,
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "Content-Security-Policy": "frame-ancestors 'none'"})
