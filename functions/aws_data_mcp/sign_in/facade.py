"""This API's authorize, callback, token and revoke endpoints, in front of Cognito's managed login.

Cognito fetches no metadata document and sends no RFC 9207 `iss`. So the facade maps a document's
URL to an app client, sends Cognito's redirect to its own `/callback`, and adds `iss` there. The
client's redirect URI and state ride in Cognito's `state`, checked again on the way back: a Lambda
keeps nothing between requests."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from botocore.exceptions import ClientError

from aws_data_mcp.sign_in.client_documents import (
    ClientDocument,
    ClientDocuments,
    DocumentRefused,
    fetch,
    is_document_url,
)
from aws_data_mcp.sign_in.document_clients import (
    DEFAULT_MAX_DOCUMENT_CLIENTS,
    DocumentClients,
    TooManyDocumentClients,
)
from aws_data_mcp.sign_in.registration import (
    MCP_PATH,
    Refusal,
    RegistrationPolicy,
    check_grants,
    check_redirect_uris,
    client_scopes,
    cognito_refused,
    facade_callback,
)

COGNITO_SECONDS = 8.0
"""For Cognito's token endpoint, within the function's 10 s."""
MAX_FORM_BYTES = 16_384
_JSON = {"content-type": "application/json", "cache-control": "no-store"}
_UNKNOWN_CLIENT = ("ResourceNotFoundException", "InvalidParameterException")
_COGNITO_CLIENT_ID = re.compile(r"[\w+]{1,128}")
"""Cognito's pattern for a ClientId: anything else is no client, and costs no call."""


@dataclass(frozen=True)
class FacadePolicy:
    """The pool, its managed-login domain, the redirect allowlist, the cap on document clients."""

    registration: RegistrationPolicy
    sign_in_domain: str
    """e.g. `https://<prefix>.auth.<region>.amazoncognito.com`."""
    max_document_clients: int = DEFAULT_MAX_DOCUMENT_CLIENTS

    @classmethod
    def from_env(cls) -> FacadePolicy:
        return cls(
            RegistrationPolicy.from_env(),
            os.environ["SIGN_IN_DOMAIN"].rstrip("/"),
            int(os.environ.get("SIGN_IN_MAX_DOCUMENT_CLIENTS", DEFAULT_MAX_DOCUMENT_CLIENTS)),
        )


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: str = ""

    @classmethod
    def error(cls, status: int, error: str, description: str) -> Reply:
        return cls(status, _JSON, json.dumps({"error": error, "error_description": description}))


class Refused(Exception):
    """A request answered with an error, never a redirect: its redirect URI is not yet known to be
    the client's."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.reply = Reply.error(status, error, description)

    @classmethod
    def by_cognito(cls, error: ClientError) -> Refused:
        answer = cognito_refused(error)
        return cls(answer.status, answer.body["error"], answer.body["error_description"])


@dataclass(frozen=True)
class Route:
    """How one client signs in through Cognito: its app client, its redirect URIs, and whether via
    `/callback`."""

    cognito_client_id: str
    redirect_uris: tuple[str, ...]
    via_facade: bool


Poster = Callable[[str, bytes], tuple[int, str, str]]
"""POSTs a form to a URL: the status, content type and body of the answer."""


def post_form(url: str, form: bytes) -> tuple[int, str, str]:
    """Cognito's answer, an error status included (its body says what OAuth error)."""
    request = urllib.request.Request(
        url, form, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    try:
        with urllib.request.urlopen(request, timeout=COGNITO_SECONDS) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("Content-Type", ""), answer.read().decode()
    except (urllib.error.URLError, TimeoutError):
        failed = {"error": "temporarily_unavailable", "error_description": "Cognito did not answer"}
        return 503, "application/json", json.dumps(failed)


def parameters(text: str) -> dict[str, str]:
    """A query or form as one value a name; a name sent twice is refused (RFC 6749 section 3.1)."""
    parsed = parse_qs(text, keep_blank_values=True)
    if any(len(values) > 1 for values in parsed.values()):
        raise Refused(400, "invalid_request", "a parameter was sent more than once")
    return {name: values[0] for name, values in parsed.items()}


def pack_state(client_id: str, redirect_uri: str, state: str | None) -> str:
    return (
        base64.urlsafe_b64encode(json.dumps([client_id, redirect_uri, state]).encode())
        .decode()
        .rstrip("=")
    )


def unpack_state(packed: str) -> tuple[str, str, str | None]:
    try:
        client_id, redirect_uri, state = json.loads(
            base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        )
    except (ValueError, TypeError, binascii.Error):
        client_id = redirect_uri = state = None
    if not isinstance(client_id, str) or not isinstance(redirect_uri, str) \
            or not isinstance(state, str | None):
        raise Refused(400, "invalid_request", "this sign-in's state is not one this server sent")
    return client_id, redirect_uri, state


def _redirect(url: str) -> Reply:
    return Reply(302, {"location": url, "cache-control": "no-store"})


def _with_query(uri: str, values: Mapping[str, str]) -> str:
    return uri + ("&" if "?" in uri else "?") + urlencode(values)


@dataclass
class Facade:
    """The endpoints, given the pool, a Cognito client and the fetcher of documents (the deployed
    one by default: no private or loopback address)."""

    policy: FacadePolicy
    cognito: Any
    documents: ClientDocuments = field(default_factory=lambda: ClientDocuments(fetch))
    post: Poster = post_form
    clients: DocumentClients = field(init=False)

    def __post_init__(self) -> None:
        self.clients = DocumentClients(
            self.cognito, self.policy.registration.user_pool_id, self.policy.max_document_clients
        )

    def _document(self, url: str) -> ClientDocument:
        """The document at `url`, its redirect URIs and grants held to the registration's rules."""
        try:
            document = self.documents.get(url)
            check_grants(
                {
                    "grant_types": list(document.grant_types),
                    "response_types": list(document.response_types),
                }
            )
            check_redirect_uris(
                {"redirect_uris": list(document.redirect_uris)},
                self.policy.registration.redirect_patterns,
            )
        except DocumentRefused as refusal:
            raise Refused(400, "invalid_request", str(refusal)) from None
        except Refusal as refusal:
            raise Refused(400, "invalid_request", f"the client id document: {refusal}") from None
        return document

    def _registered(self, client_id: str, mcp_url: str) -> Route:
        """A registered client's route; one made before the facade goes straight to Cognito."""
        if not _COGNITO_CLIENT_ID.fullmatch(client_id):
            raise Refused(400, "invalid_client", "client_id is no client of this server")
        try:
            described = self.cognito.describe_user_pool_client(
                UserPoolId=self.policy.registration.user_pool_id, ClientId=client_id
            )["UserPoolClient"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _UNKNOWN_CLIENT:
                raise Refused(
                    400, "invalid_client", "client_id is no client of this server"
                ) from None
            raise Refused.by_cognito(error) from None
        callbacks, own = described.get("CallbackURLs") or [], facade_callback(mcp_url)
        return Route(client_id, tuple(uri for uri in callbacks if uri != own), own in callbacks)

    def _document_route(self, url: str, redirect_uri: str, mcp_url: str) -> Route:
        document = self._document(url)
        if redirect_uri not in document.redirect_uris:
            raise Refused(
                400,
                "invalid_request",
                "redirect_uri is not one of the client id document's "
                "redirect_uris (they must match exactly)",
            )
        try:
            client_id = self.clients.ensure(
                document,
                [*document.redirect_uris, facade_callback(mcp_url)],
                client_scopes(mcp_url),
            )
        except TooManyDocumentClients as full:
            raise Refused(503, "temporarily_unavailable", str(full)) from None
        except ClientError as error:
            raise Refused.by_cognito(error) from None
        return Route(client_id, document.redirect_uris, True)

    def authorize(self, query: str, api_url: str) -> Reply:
        """GET /authorize: on to Cognito's, as the client's app client, back via `/callback`."""
        mcp_url = api_url + MCP_PATH
        try:
            asked = parameters(query)
            client_id, redirect_uri = asked.get("client_id", ""), asked.get("redirect_uri", "")
            if not client_id or not redirect_uri:
                raise Refused(400, "invalid_request", "client_id and redirect_uri are required")
            if asked.get("code_challenge_method") != "S256" or not asked.get("code_challenge"):
                raise Refused(
                    400, "invalid_request", "PKCE with code_challenge_method=S256 is required"
                )
            if is_document_url(client_id):
                route = self._document_route(client_id, redirect_uri, mcp_url)
            else:
                route = self._registered(client_id, mcp_url)
                if redirect_uri not in route.redirect_uris:
                    raise Refused(
                        400, "invalid_request", "redirect_uri is not one this client registered"
                    )
        except Refused as refused:
            return refused.reply
        forwarded = {**asked, "client_id": route.cognito_client_id}
        if route.via_facade:
            forwarded |= {
                "redirect_uri": facade_callback(mcp_url),
                "state": pack_state(client_id, redirect_uri, asked.get("state")),
            }
        return _redirect(f"{self.policy.sign_in_domain}/oauth2/authorize?{urlencode(forwarded)}")

    def callback(self, query: str, api_url: str) -> Reply:
        """GET /callback: Cognito's answer, on to the client's redirect URI with RFC 9207 `iss`."""
        try:
            answered = parameters(query)
            client_id, redirect_uri, state = unpack_state(answered.get("state", ""))
            allowed = (
                self._document(client_id).redirect_uris
                if is_document_url(client_id)
                else self._registered(client_id, api_url + MCP_PATH).redirect_uris
            )
            if redirect_uri not in allowed:
                raise Refused(
                    400, "invalid_request", "this sign-in's redirect_uri is not its client's"
                )
        except Refused as refused:
            return refused.reply
        values = {
            name: answered[name]
            for name in ("code", "error", "error_description")
            if name in answered
        }
        return _redirect(
            _with_query(
                redirect_uri,
                {**values, **({"state": state} if state is not None else {}), "iss": api_url},
            )
        )

    def token(self, form: bytes, api_url: str, endpoint: str = "token") -> Reply:
        """POST /token (or /revoke): on to Cognito's, as the client's app client."""
        try:
            if len(form) > MAX_FORM_BYTES:
                raise Refused(400, "invalid_request", f"the form exceeds {MAX_FORM_BYTES} bytes")
            sent = parameters(form.decode(errors="replace"))
            client_id = sent.get("client_id", "")
            if not client_id:
                raise Refused(
                    401,
                    "invalid_client",
                    "client_id is required (a public client sends it in the body)",
                )
            forwarded = {**sent, "client_id": self._token_client(client_id)}
            if sent.get("grant_type") == "authorization_code" and (
                is_document_url(client_id)
                or self._registered(client_id, api_url + MCP_PATH).via_facade
            ):
                forwarded["redirect_uri"] = facade_callback(api_url + MCP_PATH)
        except Refused as refused:
            return refused.reply
        status, content_type, body = self.post(
            f"{self.policy.sign_in_domain}/oauth2/{endpoint}", urlencode(forwarded).encode()
        )
        return Reply(
            status,
            {"content-type": content_type or "application/json", "cache-control": "no-store"},
            body,
        )

    def _token_client(self, client_id: str) -> str:
        if not is_document_url(client_id):
            return client_id
        found = self.clients.find(client_id)
        if found is None:
            raise Refused(401, "invalid_client", "this client id document has not signed in here")
        return found
