"""The deployed sign-in facade, driven as a client drives it: the MCP SDK's OAuth client, given the
MCP URL and a Client ID Metadata Document URL, signs in through this API's Lambda entries, moto's
user pool and a stand-in for Cognito's managed login; registered (DCR) clients sign in as before.
Every redirect back carries RFC 9207's `iss`, and documents that lie are refused in words, with no
code, no token and no Cognito call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from aws_data_mcp.config import Settings
from aws_data_mcp.sign_in import lambda_entries
from aws_data_mcp.sign_in.client_documents import MAX_BYTES, ClientDocuments, fetch
from aws_data_mcp.sign_in.document_clients import client_name
from aws_data_mcp.sign_in.facade import Facade, FacadePolicy, pack_state
from support.cognito_login import CognitoLogin
from support.document_host import DocumentHost, Page
from support.events import http_api_event, load_event
from support.servers import lambda_container

from .conftest import API_URL, FACADE_CALLBACK, MCP_URL, Pool

pytestmark = pytest.mark.anyio
CALLBACK = "http://127.0.0.1:33418/callback"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def document(url: str, **overrides: object) -> Page:
    honest = {
        "client_id": url,
        "client_name": "document client",
        "redirect_uris": [CALLBACK],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    } | overrides
    return Page(
        json.dumps(honest).encode(),
        headers={"Content-Type": "application/json", "Cache-Control": "max-age=600"},
    )


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentHost]:
    served = DocumentHost(tmp_path_factory.mktemp("documents"))
    for name in ("desktop", "second"):
        served.pages[f"/{name}.json"] = document(served.url(f"/{name}.json"))
    served.pages["/wrong-redirect.json"] = document(
        served.url("/wrong-redirect.json"), redirect_uris=["http://127.0.0.1:1/elsewhere"]
    )
    served.pages["/oversized.json"] = document(
        served.url("/oversized.json"), client_name="x" * MAX_BYTES
    )
    served.pages["/slow.json"] = document(served.url("/slow.json"))
    served.pages[
        "/slow.json"
    ].dribble_seconds = 0.05  # about 15 s for the whole document; a fetch gets 1
    yield served
    served.close()


class Stack:
    """This API as API Gateway passes it to its functions: the facade, registration and the MCP
    function's metadata; `/mcp` answers 401 but to a token the managed login issued (API Gateway's
    JWT authorizer)."""

    def __init__(self, pool: Pool, login: CognitoLogin, facade: Facade) -> None:
        self.pool, self.login, self.facade = pool, login, facade
        self.mcp = lambda_container(
            Settings(
                mode="lambda",
                auth_mode="oidc",
                sign_in_domain=login.url,
                oidc_issuer="https://cognito-idp.us-east-1.amazonaws.com/pool",
                oidc_role_arn="arn:aws:iam::123456789012:role/DataAnalyst",
                expected_api_stage="$default",
            )
        )
        self.sent: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        self.sent.append(f"{request.method} {path}")
        if path == "/mcp":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            if token in self.login.tokens:
                return httpx2.Response(200, json={"signed_in_as": self.login.user})
            return httpx2.Response(401, headers={"www-authenticate": "Bearer"})
        if path.startswith("/.well-known/"):
            answer = self.mcp(http_api_event(None, method="GET", path=path))
        else:
            event = load_event("http-api-v2/resources-read-static.json")
            event.update(
                routeKey=f"{request.method} {path}",
                rawPath=path,
                rawQueryString=request.url.query.decode(),
                body=request.content.decode(),
                isBase64Encoded=False,
            )
            event["requestContext"]["http"].update(method=request.method, path=path)
            handler = (
                lambda_entries.register_handler
                if path == "/register"
                else lambda_entries.facade_handler
            )
            answer = handler(event, None)
        return httpx2.Response(
            answer["statusCode"], headers=answer["headers"], content=answer["body"]
        )

    def browser(self) -> httpx2.AsyncClient:
        """The person's browser: this API through its functions, the managed login over loopback
        HTTP."""
        return httpx2.AsyncClient(mounts={API_URL: httpx2.MockTransport(self)}, timeout=10)

    def clients(self) -> list[dict[str, Any]]:
        listed = self.pool.client.list_user_pool_clients(
            UserPoolId=self.pool.policy.user_pool_id, MaxResults=60
        )
        return [
            self.pool.client.describe_user_pool_client(
                UserPoolId=self.pool.policy.user_pool_id, ClientId=c["ClientId"]
            )["UserPoolClient"]
            for c in listed["UserPoolClients"]
        ]


def make_stack(
    pool: Pool, host: DocumentHost, monkeypatch: pytest.MonkeyPatch, limit: int = 100
) -> Iterator[Stack]:
    login = CognitoLogin(pool.client, pool.policy.user_pool_id)
    documents = ClientDocuments(
        partial(fetch, allow_loopback=True, context=host.trusting(), seconds=1)
    )
    facade = Facade(FacadePolicy(pool.policy, login.url, limit), pool.client, documents)
    monkeypatch.setattr(lambda_entries, "facade", lambda: facade)
    monkeypatch.setattr(lambda_entries, "cognito_client", lambda: pool.client)
    monkeypatch.setattr(lambda_entries, "policy", lambda: pool.policy)
    yield Stack(pool, login, facade)
    login.close()


@pytest.fixture(name="stack")
def stack_fixture(
    pool: Pool, host: DocumentHost, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Stack]:
    yield from make_stack(pool, host, monkeypatch)


class Person:
    """Follows the authorization request through the facade and the managed login to the client's
    redirect URI, and keeps what that URI received, as the client's loopback listener would."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.callback: dict[str, str] = {}
        self.hops: list[str] = []

    async def open(self, url: str) -> None:
        async with self.stack.browser() as browser:
            while not url.startswith(CALLBACK):
                answer = await browser.get(url)
                assert answer.status_code == 302, answer.text
                self.hops.append(urlsplit(url).netloc + urlsplit(url).path)
                url = answer.headers["location"]
        self.callback = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}

    async def redirected(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(
            code=self.callback["code"],
            state=self.callback.get("state"),
            iss=self.callback.get("iss"),
        )


class Keychain:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def sign_in(
    stack: Stack, document_url: str | None = None
) -> tuple[httpx2.Response, Person, Keychain]:
    """The SDK's OAuth client, given the MCP URL (and a document URL), reading /mcp until it is let
    in."""
    person, keychain = Person(stack), Keychain()
    metadata = OAuthClientMetadata(
        redirect_uris=[CALLBACK],
        client_name="facade test",
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
    )
    auth = OAuthClientProvider(
        MCP_URL,
        metadata,
        keychain,
        person.open,
        person.redirected,
        client_metadata_url=document_url,
    )
    async with httpx2.AsyncClient(
        transport=httpx2.MockTransport(stack), auth=auth, timeout=10
    ) as client:
        answer = await client.get(MCP_URL)
    return answer, person, keychain


async def test_a_client_named_by_its_document_signs_in_through_one_app_client_of_its_own(
    stack: Stack, host: DocumentHost
) -> None:
    url = host.url("/desktop.json")
    answer, person, keychain = await sign_in(stack, url)

    assert answer.status_code == 200 and answer.json() == {"signed_in_as": stack.login.user}
    assert keychain.client is not None and keychain.client.client_id == url
    assert "POST /register" not in stack.sent
    assert person.callback["iss"] == API_URL  # RFC 9207: this API, the issuer its metadata names
    (made,) = stack.clients()
    assert made["ClientName"] == client_name(url) and made["CallbackURLs"] == [
        CALLBACK,
        FACADE_CALLBACK,
    ]
    assert "ClientSecret" not in made and made["AllowedOAuthScopes"] == ["openid", f"{MCP_URL}/mcp"]
    (asked,) = (
        stack.login.asked
    )  # Cognito saw its own client id and sent the browser back to the facade
    assert asked["client_id"] == made["ClientId"] and asked["redirect_uri"] == FACADE_CALLBACK
    assert (
        asked["resource"] == MCP_URL
        and stack.login.tokens[keychain.tokens.access_token] == made["ClientId"]
    )

    again, _, _ = await sign_in(
        stack, url
    )  # another install of the same client: the same app client
    assert again.status_code == 200 and len(stack.clients()) == 1
    assert host.requests.count("/desktop.json") == 1  # kept for its max-age


async def test_a_registered_client_signs_in_as_before_and_gets_iss_too(stack: Stack) -> None:
    answer, person, keychain = await sign_in(stack)

    assert answer.status_code == 200
    assert "POST /register" in stack.sent and keychain.client is not None
    assert keychain.client.client_id == stack.clients()[0]["ClientId"]  # DCR: Cognito's own id
    assert person.callback["iss"] == API_URL
    assert person.hops[0].endswith("/authorize") and person.hops[-1].endswith("/callback")


async def test_a_client_registered_before_the_facade_signs_in_straight_at_cognito(
    stack: Stack,
) -> None:
    """Its app client lists no facade callback, so Cognito could not send it there: nothing changes
    for it."""
    pool_id = stack.pool.policy.user_pool_id
    old = stack.pool.client.create_user_pool_client(
        UserPoolId=pool_id,
        ClientName="mcp old",
        CallbackURLs=[CALLBACK],
        AllowedOAuthFlows=["code"],
    )["UserPoolClient"]["ClientId"]
    async with stack.browser() as browser:
        answer = await browser.get(f"{API_URL}/authorize?" + urlencode(authorization(old)))
    assert answer.status_code == 302
    sent = parse_qs(urlsplit(answer.headers["location"]).query)
    assert sent["redirect_uri"] == [CALLBACK] and sent["state"] == ["client-state"]


def authorization(client_id: str, **overrides: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CALLBACK,
        "state": "client-state",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
        "resource": MCP_URL,
    } | overrides


async def refused(stack: Stack, client_id: str, status: int = 400) -> tuple[str, list[str]]:
    """The facade's answer to authorizing `client_id` (an error in words, never a redirect, and no
    token for a guessed code after it), and the Cognito calls the authorization request made."""
    async with stack.browser() as browser:
        answer = await browser.get(f"{API_URL}/authorize?" + urlencode(authorization(client_id)))
        calls = list(stack.pool.calls)
        token = await browser.post(
            f"{API_URL}/token",
            data={
                "grant_type": "authorization_code",
                "code": "guess",
                "client_id": client_id,
                "redirect_uri": CALLBACK,
                "code_verifier": "v" * 43,
            },
        )
    assert answer.status_code == status and "location" not in answer.headers, answer.text
    assert token.status_code in (400, 401) and "access_token" not in token.text
    return str(answer.json()["error_description"]), calls


@pytest.mark.parametrize(
    ("page", "reason"),
    [
        (
            "/wrong-redirect.json",
            "redirect_uri is not one of the client id document's redirect_uris",
        ),
        ("/oversized.json", f"larger than {MAX_BYTES} bytes"),
        ("/slow.json", "took longer than 1 s"),
    ],
)
async def test_a_document_that_lies_is_refused_in_words_with_no_cognito_call(
    stack: Stack, host: DocumentHost, page: str, reason: str
) -> None:
    said, calls = await refused(stack, host.url(page))
    assert reason in said
    assert (
        calls == [] and stack.login.asked == [] and stack.clients() == []
    )  # no app client, no managed login


@pytest.mark.parametrize(
    "client_id",
    [
        "https://10.0.0.7/client.json",
        "https://169.254.169.254/latest/client.json",
        "https://[fd00::1]/client.json",
        "https://127.0.0.1:9/client.json",
    ],
)
async def test_the_deployed_facade_fetches_no_private_or_loopback_address(
    pool: Pool, monkeypatch: pytest.MonkeyPatch, client_id: str
) -> None:
    login = CognitoLogin(pool.client, pool.policy.user_pool_id)
    deployed = Facade(FacadePolicy(pool.policy, login.url), pool.client)  # the Lambda's own fetcher
    monkeypatch.setattr(lambda_entries, "facade", lambda: deployed)
    try:
        reason, calls = await refused(Stack(pool, login, deployed), client_id)
    finally:
        login.close()
    assert "private or reserved address" in reason and calls == []


async def test_past_the_cap_a_new_document_is_refused_and_registered_clients_still_sign_in(
    pool: Pool, host: DocumentHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    for stack in make_stack(pool, host, monkeypatch, limit=1):
        assert (await sign_in(stack, host.url("/desktop.json")))[0].status_code == 200
        reason, _ = await refused(stack, host.url("/second.json"), status=503)
        assert "already holds 1 app clients made for client metadata documents" in reason
        assert "SignInDocumentClientLimit" in reason and len(stack.clients()) == 1
        assert (await sign_in(stack, host.url("/desktop.json")))[
            0
        ].status_code == 200  # the one it has
        assert (await sign_in(stack))[0].status_code == 200  # DCR is not capped by it


@pytest.mark.parametrize("forged", [True, False])
async def test_a_callback_sends_the_code_only_to_a_redirect_uri_of_its_client(
    stack: Stack, host: DocumentHost, forged: bool
) -> None:
    # A state naming the client but another redirect URI, or no state this server sent at all.
    state = (
        pack_state(host.url("/desktop.json"), "https://attacker.example/callback", "client-state")
        if forged
        else "not-a-state-this-server-sent"
    )
    async with stack.browser() as browser:
        answer = await browser.get(
            f"{API_URL}/callback?" + urlencode({"code": "stolen", "state": state})
        )
    assert answer.status_code == 400 and "location" not in answer.headers


async def test_a_client_that_checks_iss_refuses_a_redirect_from_another_issuer(
    stack: Stack, host: DocumentHost
) -> None:
    """The SDK client compares `iss` with the issuer it discovered (RFC 9207), so `iss` must be this
    API's."""

    async def elsewhere(url: str) -> None:
        await person.open(url)
        person.callback["iss"] = "https://cognito-idp.us-east-1.amazonaws.com/pool"

    person, keychain = Person(stack), Keychain()
    metadata = OAuthClientMetadata(redirect_uris=[CALLBACK], token_endpoint_auth_method="none")
    auth = OAuthClientProvider(
        MCP_URL,
        metadata,
        keychain,
        elsewhere,
        person.redirected,
        client_metadata_url=host.url("/desktop.json"),
    )
    async with httpx2.AsyncClient(
        transport=httpx2.MockTransport(stack), auth=auth, timeout=10
    ) as client:
        with pytest.raises(OAuthFlowError, match="iss mismatch"):
            await client.get(MCP_URL)
    assert keychain.tokens is None


async def test_a_document_client_refreshes_and_revokes_by_its_url(
    stack: Stack, host: DocumentHost
) -> None:
    _, _, keychain = await sign_in(stack, host.url("/desktop.json"))
    assert keychain.tokens is not None and keychain.tokens.refresh_token is not None
    form = {"client_id": host.url("/desktop.json"), "refresh_token": keychain.tokens.refresh_token}
    async with stack.browser() as browser:
        refreshed = await browser.post(
            f"{API_URL}/token", data={"grant_type": "refresh_token", **form}
        )
        revoked = await browser.post(
            f"{API_URL}/revoke", data={"token": keychain.tokens.refresh_token, **form}
        )
    assert refreshed.status_code == 200 and refreshed.json()["access_token"] in stack.login.tokens
    assert refreshed.headers["cache-control"] == "no-store"
    assert revoked.status_code == 200 and keychain.tokens.refresh_token not in stack.login.tokens


async def test_a_person_who_declines_sends_the_client_cognitos_error_with_iss(
    stack: Stack, host: DocumentHost
) -> None:
    state = pack_state(host.url("/desktop.json"), CALLBACK, "client-state")
    async with stack.browser() as browser:
        answer = await browser.get(
            f"{API_URL}/callback?" + urlencode({"error": "access_denied", "state": state})
        )
    assert answer.status_code == 302
    sent = parse_qs(urlsplit(answer.headers["location"]).query)
    assert answer.headers["location"].startswith(CALLBACK + "?")
    assert sent == {"error": ["access_denied"], "state": ["client-state"], "iss": [API_URL]}


@pytest.mark.parametrize(
    "query",
    [
        urlencode(authorization("https://example.com/client.json", code_challenge_method="plain")),
        urlencode(
            {
                k: v
                for k, v in authorization("https://example.com/client.json").items()
                if k != "code_challenge"
            }
        ),
        urlencode(authorization("https://example.com/client.json"))
        + "&redirect_uri=https%3A%2F%2Fattacker.example",
        urlencode({"response_type": "code"}),
    ],
)
async def test_a_request_without_pkce_or_with_a_parameter_twice_is_refused_before_any_fetch(
    stack: Stack, host: DocumentHost, query: str
) -> None:
    async with stack.browser() as browser:
        answer = await browser.get(f"{API_URL}/authorize?{query}")
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"
    assert "location" not in answer.headers and stack.pool.calls == []


def test_the_lambda_entry_reads_the_templates_environment_and_knows_its_four_routes(
    pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "REGISTRATION_USER_POOL_ID": pool.policy.user_pool_id,
        "REGISTRATION_REDIRECT_PATTERNS": "http://127.0.0.1:*",
        "SIGN_IN_DOMAIN": "https://acme.auth.us-east-1.amazoncognito.com/",
        "SIGN_IN_MAX_DOCUMENT_CLIENTS": "7",
    }.items():
        monkeypatch.setenv(name, value)
    policy = FacadePolicy.from_env()
    assert (policy.sign_in_domain, policy.max_document_clients) == (
        "https://acme.auth.us-east-1.amazoncognito.com",
        7,
    )
    event = load_event("http-api-v2/resources-read-static.json")
    private = event | {
        "routeKey": "GET /authorize",
        "rawQueryString": urlencode(authorization("https://10.0.0.7/client.json")),
    }
    lambda_entries.facade.cache_clear()
    try:
        answers = [
            lambda_entries.facade_handler(private, None),
            lambda_entries.facade_handler(event | {"routeKey": "GET /elsewhere"}, None),
        ]
    finally:
        lambda_entries.facade.cache_clear()
    assert [answer["statusCode"] for answer in answers] == [400, 400]
    assert "private or reserved address" in json.loads(answers[0]["body"])["error_description"]
    assert json.loads(answers[1]["body"])["error"] == "invalid_request"


@pytest.mark.parametrize("client_id", ["x" * 129, "no/such client", "unknown0client"])
async def test_a_client_id_that_is_no_app_client_is_refused_as_such(stack: Stack, client_id: str) -> None:
    async with stack.browser() as browser:
        answer = await browser.get(f"{API_URL}/authorize?" + urlencode(authorization(client_id)))
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_client"
    assert "location" not in answer.headers
    assert stack.pool.calls == ([] if len(client_id) > 128 or " " in client_id else ["DescribeUserPoolClient"])
