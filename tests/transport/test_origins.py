"""A present `Origin` that is not listed is refused 403 on every HTTP transport, Lambda included; no Origin (what
MCP clients that are not web pages send) and a listed one are served. Through the Lambda handler (API Gateway
events) and the local HTTP server, on both revisions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from aws_data_mcp.config import SettingError, Settings
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, modern, rpc
from support.servers import ServerThread, free_port, lambda_container

LISTED = "https://app.example.com"
FOREIGN = ["https://evil.example", "null", "https://app.example.com.evil.example", "http://app.example.com"]
READ = {"uri": "config://server"}


def event(revision: str, origin: str | None, body: Any = None) -> dict[str, Any]:
    headers = {"origin": origin} if origin is not None else {}
    build = rpc if revision == REVISION_2025 else modern
    return http_api_event(body or build("resources/read", READ, 3), revision=revision, headers=headers)


@pytest.fixture(scope="module")
def listing_lambda() -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda_container(Settings(mode="lambda", allowed_origins=(LISTED,)))


@pytest.fixture(scope="module")
def listing_server() -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port(), allowed_origins=(LISTED,))) as server:
        yield server


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_lambda_refuses_an_unlisted_origin_with_403_before_anything_else(
        lambda_handler: Callable[[Any], dict[str, Any]], listing_lambda: Callable[[dict[str, Any]], dict[str, Any]],
        aws_calls: Counter[str], revision: str) -> None:
    for handler in (lambda_handler, listing_lambda):
        for origin in FOREIGN:
            response = handler(event(revision, origin))
            assert response["statusCode"] == 403, (origin, response)
            error = body_json(response)["error"]
            assert error["code"] == -32600 and "Origin" in error["message"], error
        # Refused before the request is even parsed: a body with a bad id still gets the 403.
        bad_id = '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}'
        assert handler(event(revision, FOREIGN[0], bad_id))["statusCode"] == 403
        assert body_json(handler(event(revision, None)))["id"] == 3, "no Origin: served"
    assert sum(aws_calls.values()) == 0, aws_calls
    served = listing_lambda(event(revision, LISTED))
    assert served["statusCode"] == 200 and body_json(served)["result"]["contents"][0]["uri"] == "config://server"


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_the_local_server_refuses_an_unlisted_origin_and_serves_a_listed_one(
        listing_server: ServerThread, revision: str) -> None:
    build = rpc if revision == REVISION_2025 else modern
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": revision}
    if revision == REVISION_2026:
        headers |= {"mcp-method": "resources/read", "mcp-name": READ["uri"]}
    body = build("resources/read", READ, 4)
    with httpx2.Client(timeout=10) as client:
        for origin in FOREIGN:
            refused = client.post(listing_server.url, json=body, headers={**headers, "origin": origin})
            assert refused.status_code == 403 and refused.json()["error"]["code"] == -32600, origin
        for origin in (LISTED, f"http://127.0.0.1:{listing_server.settings.port}"):
            served = client.post(listing_server.url, json=body, headers={**headers, "origin": origin})
            assert served.status_code == 200 and served.json()["id"] == 4, (origin, served.text[:200])


@pytest.mark.parametrize("value", ["https://*.example.com", "app.example.com"])
def test_an_origin_that_is_not_exact_is_refused_at_start(value: str) -> None:
    with pytest.raises(SettingError, match="ALLOWED_ORIGINS"):
        Settings(mode="lambda", allowed_origins=(value,))
