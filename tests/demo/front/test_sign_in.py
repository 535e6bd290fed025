"""Sign in from the client: the MCP SDK's OAuth client, given only the demo's URL, finds the demo's authorization
server, registers, signs a person in through the sign-in page (posted headless, as a browser posts it), reads
as that person and refreshes; and every request the specifications refuse is refused, with no AWS call."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from aws_data_mcp.config import Settings
from aws_data_mcp.sign_in.client_documents import (
    DEFAULT_CACHE_SECONDS,
    MAX_BYTES,
    MAX_CACHE_SECONDS,
    ClientDocuments,
    cache_seconds,
    fetch,
)
from aws_data_mcp_demo.account.callers import CALLERS
from aws_data_mcp_demo.front.authorization_server import SIGN_IN_PATH, DemoAuthorizationServer, with_sign_in
from aws_data_mcp_demo.front.gateway import ApiGatewayFront, DemoIssuer
from aws_data_mcp_demo.front.hosted import caller_token
from support.document_host import DocumentHost, Page
from support.servers import lambda_container

pytestmark = pytest.mark.anyio
CALLBACK = "http://127.0.0.1:33418/callback"
ROLES = {c.name: c.role for c in CALLERS}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sign_in_demo(oidc_demo_banner: tuple[str, str]) -> str:
    url, banner = oidc_demo_banner
    assert f"Add {url} to your MCP client as an HTTP server and sign in in the browser" in banner
    assert len(re.findall(r"^Authorization: Bearer ", banner, re.M)) == len(CALLERS)  # the static tokens stay
    return url


class Person:
    """The browser the client opens: follows the authorization request to the sign-in page and chooses a user.

    Keeps what the client's redirect URI received, as the client's loopback listener would.
    """

    def __init__(self, http: httpx2.AsyncClient, user: str, tamper_state: bool = False) -> None:
        self.http, self.user, self.tamper_state = http, user, tamper_state
        self.signed_in: list[str] = []
        self.callback: dict[str, str] = {}

    async def open(self, authorization_url: str) -> None:
        page = await self.http.get(authorization_url, follow_redirects=True)
        assert page.status_code == 200 and urlparse(str(page.url)).path == SIGN_IN_PATH, page.text
        action, request = re.search(r'action="([^"]+)"', page.text), re.search(r'name="request" value="([^"]+)"',
                                                                                   page.text)
        assert action is not None and request is not None and f'value="{self.user}"' in page.text
        chosen = await self.http.post(page.url.join(action[1]), data={"request": request[1], "user": self.user})
        assert chosen.status_code == 303
        self.signed_in.append(self.user)
        self.callback = {k: v[0] for k, v in parse_qs(urlparse(chosen.headers["location"]).query).items()}

    async def redirected(self) -> AuthorizationCodeResult:
        state = "forged" if self.tamper_state else self.callback.get("state")
        return AuthorizationCodeResult(code=self.callback["code"], state=state, iss=self.callback.get("iss"))


class Keychain:
    """The client's token storage, keeping every token it was given and when."""

    def __init__(self) -> None:
        self.tokens: list[tuple[float, OAuthToken]] = []
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens[-1][1] if self.tokens else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens.append((time.time(), tokens))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def oauth(url: str, person: Person, keychain: Keychain, redirect_uri: str = CALLBACK,
          document_url: str | None = None) -> OAuthClientProvider:
    """The SDK's OAuth client for the MCP URL alone, as a desktop client configures it (public, loopback); with
    `document_url`, a client that names itself by that Client ID Metadata Document where the server supports it."""
    metadata = OAuthClientMetadata(redirect_uris=[redirect_uri], client_name="sign-in test",
                                   token_endpoint_auth_method="none",
                                   grant_types=["authorization_code", "refresh_token"])
    return OAuthClientProvider(url, metadata, keychain, person.open, person.redirected,
                               client_metadata_url=document_url)


class Sent(list[tuple[str, str]]):
    """Every request a client sent: method and path, and the grant type of token requests."""

    async def __call__(self, request: httpx2.Request) -> None:
        grant = parse_qs(request.content.decode()).get("grant_type", [""])[0] if request.url.path == "/token" else ""
        self.append((request.method, request.url.path + (f" {grant}" if grant else "")))


async def read(client: Client, uri: str) -> dict[str, Any]:
    return json.loads((await client.read_resource(uri)).contents[0].text)


# --------------------------------------------------------------------------- the whole chain, against the demo


@pytest.mark.parametrize(("mode", "user"), [("legacy", "alice"), ("2026-07-28", "carol")])
async def test_an_oauth_client_given_the_url_signs_in_reads_as_that_person_and_refreshes(
        sign_in_demo: str, mode: str, user: str) -> None:
    url = sign_in_demo
    sent, keychain = Sent(), Keychain()
    async with httpx2.AsyncClient(timeout=30) as browser:
        person = Person(browser, user)
        async with httpx2.AsyncClient(auth=oauth(url, person, keychain), event_hooks={"request": [sent]},
                                      timeout=30) as http, \
                Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            status = await read(client, "auth://status")
            assert status["principal_arn"].endswith(f"assumed-role/{ROLES[user]}/{user}")
            assert [path for _, path in sent[:5]] == [
                "/mcp", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server",
                "/register", "/token authorization_code"]
            received, first = keychain.tokens[-1]
            await anyio.sleep(max(0.0, received + (first.expires_in or 0) + 1 - time.time()))
            refused = await browser.post(url, json={}, headers={"authorization": f"Bearer {first.access_token}"})
            assert refused.status_code == 401  # the front's JWT authorizer: expired
            again = await read(client, "auth://status")
    assert again["principal_arn"] == status["principal_arn"]
    assert ("POST", "/token refresh_token") in sent and person.signed_in == [user]  # refreshed, not signed in again
    assert keychain.tokens[-1][1].access_token != first.access_token


# --------------------------------------------------------------------------- refusals, before any AWS call

ISSUER = "http://127.0.0.1:9999"
RESOURCE = f"{ISSUER}/mcp"


class Demo:
    """The demo's app in this process: the authorization server before the front, the real function behind it."""

    def __init__(self, documents: ClientDocuments | None = None) -> None:
        self.issuer = DemoIssuer(ISSUER)
        handler = lambda_container(Settings(mode="lambda", auth_mode="oidc", oidc_issuer=ISSUER))
        self.front = ApiGatewayFront(lambda event, _context: handler(event), "oidc", "us-east-1", self.issuer)
        self.server = DemoAuthorizationServer(self.issuer, RESOURCE, partial(caller_token, self.issuer), 60)
        if documents is not None:
            self.server.documents = documents
        self.app = with_sign_in(self.front, self.server)
        self.http = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=self.app), base_url=ISSUER)

    async def register(self, *redirect_uris: str) -> httpx2.Response:
        return await self.http.post("/register", json={
            "redirect_uris": list(redirect_uris or [CALLBACK]), "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"], "client_name": "test"})

    async def authorize(self, client_id: str, **overrides: str) -> httpx2.Response:
        return await self.http.get(authorization_url(client_id, **overrides))

    async def sign_in(self, user: str = "alice") -> tuple[str, str]:
        """A registered public client and the code alice's sign-in gave it."""
        client_id = (await self.register()).json()["client_id"]
        person = Person(self.http, user)
        await person.open(authorization_url(client_id))
        return client_id, person.callback["code"]

    async def token(self, client_id: str, **form: str) -> httpx2.Response:
        return await self.http.post("/token", data={"client_id": client_id, **form})

    async def exchange(self, client_id: str, code: str, verifier: str | None = None) -> httpx2.Response:
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "resource": RESOURCE}
        return await self.token(client_id, **form, **({"code_verifier": verifier} if verifier else {}))


VERIFIER = secrets.token_urlsafe(48)


def authorization_url(client_id: str, **overrides: str) -> str:
    """Where a client sends the person: S256 PKCE, state and this resource, but for `overrides` ("" drops one)."""
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "state": "s1",
              "code_challenge": challenge(VERIFIER), "code_challenge_method": "S256", "resource": RESOURCE}
    return f"{ISSUER}/authorize?{urlencode({k: v for k, v in (params | overrides).items() if v})}"


def challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def redirected_with(answer: httpx2.Response) -> dict[str, str]:
    """The authorization server's redirect back to the client (RFC 6749 §4.1.2.1): its query."""
    assert answer.status_code in (302, 303) and answer.headers["location"].startswith(CALLBACK), answer.text
    return {k: v[0] for k, v in parse_qs(urlparse(answer.headers["location"]).query).items()}


@pytest.fixture
def demo(aws_calls: Counter[str]) -> Iterator[Demo]:
    demo = Demo()
    yield demo
    assert sum(aws_calls.values()) == 0, aws_calls
    reached = {event["routeKey"] for event in demo.front.recorded}
    assert reached <= {"GET /.well-known/oauth-protected-resource/mcp"}  # nothing else got past the front


async def test_a_redirect_uri_outside_the_loopback_allowlist_is_refused_at_registration(demo: Demo) -> None:
    for uri in ("https://attacker.example/callback", "http://127.0.0.1.attacker.example/cb", "myapp://callback"):
        refused = await demo.register(uri)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri", uri
        refused = await demo.register(CALLBACK, uri)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri", uri
    assert demo.server.clients == {}
    assert (await demo.register("http://localhost:51234/callback")).status_code == 201  # Claude Code's form
    assert (await demo.register("http://127.0.0.1:33418", "https://vscode.dev/redirect")).status_code == 201  # VS Code


async def test_an_unregistered_redirect_uri_gets_an_error_page_never_a_redirect(demo: Demo) -> None:
    client_id = (await demo.register()).json()["client_id"]
    refused = await demo.authorize(client_id, redirect_uri="http://127.0.0.1:40000/elsewhere")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"
    assert "location" not in refused.headers


async def test_an_authorization_request_without_s256_pkce_is_refused(demo: Demo) -> None:
    client_id = (await demo.register()).json()["client_id"]
    without = redirected_with(await demo.authorize(client_id, code_challenge=""))
    plain = redirected_with(await demo.authorize(client_id, code_challenge_method="plain"))
    assert without["error"] == plain["error"] == "invalid_request" and without["state"] == "s1"


async def test_a_person_who_cancels_sends_the_client_access_denied_and_a_sign_in_is_posted_once(demo: Demo) -> None:
    client_id = (await demo.register()).json()["client_id"]
    page = await demo.http.get(authorization_url(client_id), follow_redirects=True)
    request = re.search(r'name="request" value="([^"]+)"', page.text)
    assert request is not None
    cancelled = redirected_with(await demo.http.post(SIGN_IN_PATH, data={"request": request[1], "user": ""}))
    assert cancelled["error"] == "access_denied" and cancelled["state"] == "s1" and "code" not in cancelled
    again = await demo.http.post(SIGN_IN_PATH, data={"request": request[1], "user": "bob"})
    assert again.status_code == 400 and "location" not in again.headers


async def test_a_code_needs_its_own_pkce_verifier(demo: Demo) -> None:
    client_id, code = await demo.sign_in()
    missing = await demo.exchange(client_id, code)
    wrong = await demo.exchange(client_id, code, secrets.token_urlsafe(48))
    assert (missing.status_code, missing.json()["error"]) == (400, "invalid_request")
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
    assert (await demo.exchange(client_id, code, VERIFIER)).status_code == 200


async def test_a_code_used_twice_is_refused_and_ends_what_it_granted(demo: Demo) -> None:
    client_id, code = await demo.sign_in()
    tokens = (await demo.exchange(client_id, code, VERIFIER)).json()
    replayed = await demo.exchange(client_id, code, VERIFIER)
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")
    refresh = await demo.token(client_id, grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert (refresh.status_code, refresh.json()["error"]) == (400, "invalid_grant")


async def test_a_rotated_refresh_token_used_again_is_refused_and_ends_the_sign_in(demo: Demo) -> None:
    client_id, code = await demo.sign_in()
    first = (await demo.exchange(client_id, code, VERIFIER)).json()
    second = (await demo.token(client_id, grant_type="refresh_token", refresh_token=first["refresh_token"])).json()
    for refresh_token in (first["refresh_token"], second["refresh_token"]):  # the copy, then the rightful holder's
        refused = await demo.token(client_id, grant_type="refresh_token", refresh_token=refresh_token)
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")


async def test_the_client_refuses_a_redirect_whose_state_is_not_its_own(demo: Demo) -> None:
    sent, person = Sent(), Person(demo.http, "alice", tamper_state=True)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=demo.app), base_url=ISSUER,
                                  auth=oauth(RESOURCE, person, Keychain()), event_hooks={"request": [sent]}) as http:
        with pytest.raises(OAuthFlowError, match="State parameter mismatch"):
            await http.post("/mcp", json={})
    assert not any(path.startswith("/token") for _, path in sent)  # the code was never exchanged


async def test_tokens_for_another_resource_are_never_issued_nor_accepted(demo: Demo) -> None:
    client_id = (await demo.register()).json()["client_id"]
    elsewhere = redirected_with(await demo.authorize(client_id, resource="https://elsewhere.example/mcp"))
    assert elsewhere["error"] == "invalid_target" and elsewhere["state"] == "s1"
    other_audience = DemoIssuer(ISSUER, audience="https://elsewhere.example/mcp", key=demo.issuer.key)
    refused = await demo.http.post("/mcp", json={}, headers={
        "authorization": f"Bearer {other_audience.token('alice', ['analysts'])}"})
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["www-authenticate"]


async def test_expired_and_revoked_tokens_are_refused(demo: Demo) -> None:
    expired = demo.server.mint(CALLERS[0], -60)
    refused = await demo.http.post("/mcp", json={}, headers={"authorization": f"Bearer {expired}"})
    assert refused.status_code == 401 and 'error="invalid_token"' in refused.headers["www-authenticate"]
    for revoked_kind in ("refresh_token", "access_token"):
        client_id, code = await demo.sign_in()
        tokens = (await demo.exchange(client_id, code, VERIFIER)).json()
        revoked = await demo.http.post("/revoke", data={"client_id": client_id, "token": tokens[revoked_kind],
                                                          "client_secret": ""})  # the SDK asks a public client for it
        assert revoked.status_code == 200
        refresh = await demo.token(client_id, grant_type="refresh_token", refresh_token=tokens["refresh_token"])
        assert (refresh.status_code, refresh.json()["error"]) == (400, "invalid_grant"), revoked_kind


# --------------------------------------------------------------------------- Client ID Metadata Documents


def client_document(url: str, **overrides: object) -> Page:
    """An honest document for `url` (a public loopback client), but for `overrides`."""
    document = {"client_id": url, "client_name": "document client", "redirect_uris": [CALLBACK],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": "none"} | overrides
    return Page(json.dumps(document).encode(), headers={"Content-Type": "application/json",
                                                        "Cache-Control": "max-age=600"})


async def test_an_oauth_client_named_by_its_metadata_document_signs_in_without_registering(
        sign_in_demo: str, document_host: DocumentHost) -> None:
    url, document_url = sign_in_demo, document_host.url("/clients/desktop.json")
    document_host.pages["/clients/desktop.json"] = client_document(document_url)
    sent, keychain = Sent(), Keychain()
    async with httpx2.AsyncClient(timeout=30) as browser:
        metadata = (await browser.get(url.replace("/mcp", "/.well-known/oauth-authorization-server"))).json()
        assert metadata["client_id_metadata_document_supported"] is True
        assert metadata["registration_endpoint"].endswith("/register")  # DCR stays, for clients without documents
        person = Person(browser, "carol")
        async with httpx2.AsyncClient(auth=oauth(url, person, keychain, document_url=document_url),
                                      event_hooks={"request": [sent]}, timeout=30) as http, \
                Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
            status = await read(client, "auth://status")
    assert status["principal_arn"].endswith(f"assumed-role/{ROLES['carol']}/carol")
    assert "/register" not in [path for _, path in sent] and keychain.client is not None
    assert keychain.client.client_id == document_url
    assert document_host.requests.count("/clients/desktop.json") == 1  # fetched once, then kept (max-age)


LIES = {
    "wrong-redirect": ({"redirect_uris": ["http://127.0.0.1:1/elsewhere"]}, "redirect"),
    "other-client-id": ({"client_id": "https://attacker.example/client.json"}, "client_id is not the URL"),
    "with-secret": ({"client_secret": "s3cret", "token_endpoint_auth_method": "client_secret_post"},
                    "must not use a client secret"),
    "web-redirect": ({"redirect_uris": [CALLBACK, "https://attacker.example/callback"]}, "must be loopback"),
}


@pytest.fixture(scope="module")
def lying_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentHost]:
    host = DocumentHost(tmp_path_factory.mktemp("lying"))
    for name, (overrides, _) in LIES.items():
        host.pages[f"/{name}.json"] = client_document(host.url(f"/{name}.json"), **overrides)
    host.pages["/oversized.json"] = client_document(host.url("/oversized.json"), client_name="x" * MAX_BYTES)
    host.pages["/slow.json"] = replace_dribbling(client_document(host.url("/slow.json")))
    host.pages["/moved.json"] = Page(b"", status=302, headers={"Location": host.url("/with-secret.json")})
    yield host
    host.close()


def replace_dribbling(page: Page) -> Page:
    page.dribble_seconds = 0.05
    return page


def documents_demo(host: DocumentHost) -> Demo:
    """The demo in this process, trusting the host's certificate; a fetch gets one second (the slow page needs 15)."""
    return Demo(ClientDocuments(partial(fetch, allow_loopback=True, context=host.trusting(), seconds=1)))


@pytest.mark.parametrize(("page", "reason"), [
    *((f"/{name}.json", reason) for name, (_, reason) in LIES.items() if name != "wrong-redirect"),
    ("/oversized.json", f"larger than {MAX_BYTES} bytes"), ("/slow.json", "took longer than 1 s"),
    ("/moved.json", "HTTP 302"), ("/absent.json", "HTTP 404")])
async def test_a_document_that_cannot_register_its_client_is_refused_in_words_and_gets_no_code(
        lying_host: DocumentHost, page: str, reason: str) -> None:
    demo = documents_demo(lying_host)
    answer = await demo.authorize(lying_host.url(page))
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"
    assert reason in answer.json()["error_description"]
    assert "location" not in answer.headers  # never sent back to a redirect URI the document names
    token = await demo.token(lying_host.url(page), grant_type="authorization_code", code="guess",
                             redirect_uri=CALLBACK, code_verifier=VERIFIER)
    assert token.status_code in (400, 401) and "access_token" not in token.text


async def test_a_document_s_redirect_uris_are_the_only_ones_its_client_may_use(lying_host: DocumentHost) -> None:
    answer = await documents_demo(lying_host).authorize(lying_host.url("/wrong-redirect.json"))
    assert answer.status_code == 400 and "redirect" in answer.json()["error_description"].lower()
    assert "location" not in answer.headers


@pytest.mark.parametrize("client_id", [
    "https://10.0.0.7/client.json", "https://169.254.169.254/latest/meta-data/client.json",
    "https://[fd00::1]/client.json", "https://192.168.1.1:8443/client.json"])
async def test_a_document_at_a_private_address_is_never_fetched(lying_host: DocumentHost, client_id: str) -> None:
    answer = await documents_demo(lying_host).authorize(client_id)
    assert answer.status_code == 400
    assert "private or reserved address" in answer.json()["error_description"]


async def test_loopback_documents_are_the_demo_s_alone() -> None:
    from aws_data_mcp.sign_in.client_documents import DocumentRefused

    with pytest.raises(DocumentRefused, match="private or reserved address"):
        fetch("https://127.0.0.1:9/client.json")  # the default: no loopback, as on a server


@pytest.mark.parametrize(("header", "seconds"), [
    ("max-age=600", 600), ("public, max-age=\"60\"", 60), ("no-store", 0), ("no-cache, max-age=600", 0),
    ("", DEFAULT_CACHE_SECONDS), ("max-age=99999999", MAX_CACHE_SECONDS)])
def test_a_document_is_kept_as_long_as_its_cache_control_says_within_bounds(header: str, seconds: int) -> None:
    assert cache_seconds(header) == seconds
