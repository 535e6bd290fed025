"""The demo's sign-in from the client, as `worker.py signin` runs it in a fresh process: what signing in costs.

The hosted oidc demo (`demo.hosted_front.hosted_demo`: the emulated account, the API Gateway front, the Lambda
handler, the authorization server) serves on a loopback port in this process. Each round, for each demo user:
the SDK's OAuth client, given only the URL, discovers the authorization server, registers, signs the user in
through the sign-in page (posted headless, as a browser posts it) and reads `auth://status`; the baseline is the
same first read by a client holding the banner's static token for that user. Both alternate on the same server
and loop, so what the server's share of the process costs, both pay alike. Counted per variant: the HTTP
requests of the client and of the browser, and the AWS calls (botocore, in this process: the function's).
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse


class _Counted:
    """The requests one httpx client sent."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, request: Any) -> None:
        self.requests += 1


async def _first_read(url: str, user: str, static_token: str | None, aws_calls: Counter[str]) -> dict[str, Any]:
    import httpx2
    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata, OAuthToken

    client_requests, browser_requests = _Counted(), _Counted()
    callback: dict[str, str] = {}
    stored: dict[str, Any] = {}

    async def open_browser(authorization_url: str) -> None:
        async with httpx2.AsyncClient(event_hooks={"request": [browser_requests]}) as browser:
            page = await browser.get(authorization_url, follow_redirects=True)
            request = re.search(r'name="request" value="([^"]+)"', page.text)
            action = re.search(r'action="([^"]+)"', page.text)
            assert request is not None and action is not None, page.text
            chosen = await browser.post(page.url.join(action[1]), data={"request": request[1], "user": user})
            callback.update({k: v[0] for k, v in parse_qs(urlparse(chosen.headers["location"]).query).items()})

    async def redirected() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=callback["code"], state=callback.get("state"), iss=callback.get("iss"))

    class Storage:
        async def get_tokens(self) -> OAuthToken | None:
            return stored.get("tokens")

        async def set_tokens(self, tokens: OAuthToken) -> None:
            stored["tokens"], stored["aws_calls_to_token"] = tokens, sum(aws_calls.values())

        async def get_client_info(self) -> Any:
            return stored.get("client")

        async def set_client_info(self, client_info: Any) -> None:
            stored["client"] = client_info

    metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:33418/callback"], client_name="benchmark",
                                   token_endpoint_auth_method="none",
                                   grant_types=["authorization_code", "refresh_token"])
    options: dict[str, Any] = (
        {"headers": {"authorization": f"Bearer {static_token}"}} if static_token else
        {"auth": OAuthClientProvider(url, metadata, Storage(), open_browser, redirected)})
    aws_calls.clear()
    started = time.perf_counter()
    async with httpx2.AsyncClient(event_hooks={"request": [client_requests]}, timeout=60, **options) as http, \
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        status = json.loads((await client.read_resource("auth://status")).contents[0].text)
        elapsed = time.perf_counter() - started
    if not status["principal_arn"].endswith(f"/{user}"):
        raise AssertionError(f"read as {status['principal_arn']}, not {user}")
    return {"s": elapsed, "client_requests": client_requests.requests, "browser_requests": browser_requests.requests,
            "aws_calls": dict(aws_calls), "aws_calls_to_token": stored.get("aws_calls_to_token")}


def measure(rounds: int) -> dict[str, Any]:
    import botocore.client

    from aws_data_mcp.transport import local_server
    from aws_data_mcp_demo.account.callers import CALLERS
    from aws_data_mcp_demo.front.hosted import hosted_demo

    aws_calls: Counter[str] = Counter()
    original = botocore.client.BaseClient._make_api_call

    def counted(self: Any, operation: str, params: Any) -> Any:
        aws_calls[f"{self.meta.service_model.service_name}:{operation}"] += 1
        return original(self, operation, params)

    botocore.client.BaseClient._make_api_call = counted  # type: ignore[method-assign]
    sock = local_server.bind("127.0.0.1", 0)
    results: dict[str, list[dict[str, Any]]] = {"sign_in": [], "static": []}
    with tempfile.TemporaryDirectory() as state, \
            hosted_demo("oidc", "127.0.0.1", sock.getsockname()[1], Path(state)) as demo:
        server = local_server.server(demo.app)
        threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
        while not server.started:
            time.sleep(0.05)
        for _ in range(rounds):
            for caller in CALLERS:
                results["sign_in"].append(asyncio.run(_first_read(demo.url, caller.name, None, aws_calls)))
                results["static"].append(asyncio.run(_first_read(demo.url, caller.name, demo.token(caller),
                                                                 aws_calls)))
        server.should_exit = True
    return {"rounds": rounds, "users": len(CALLERS), **results}
