"""Load: the local HTTP server holds 50 concurrent clients for thousands of requests with zero errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2

from support.events import REVISION_2025, REVISION_2026, modern, rpc

CLIENTS = 50
REQUESTS_PER_CLIENT = 40
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _request(n: int) -> tuple[dict[str, str], dict[str, Any]]:
    uri = ("config://server", "metadata://templates/dataset", "info://capabilities")[n % 3]
    if n % 2:
        body = modern("resources/read", {"uri": uri}, n)
        return {**HEADERS, "mcp-protocol-version": REVISION_2026, "mcp-method": "resources/read",
                "mcp-name": uri}, body
    return {**HEADERS, "mcp-protocol-version": REVISION_2025}, rpc("resources/read", {"uri": uri}, n)


async def _client(url: str, client_id: int) -> list[str]:
    errors: list[str] = []
    async with httpx2.AsyncClient(timeout=30) as http:
        for i in range(REQUESTS_PER_CLIENT):
            n = client_id * REQUESTS_PER_CLIENT + i
            headers, body = _request(n)
            response = await http.post(url, headers=headers, content=json.dumps(body))
            reply = response.json()
            if response.status_code != 200 or reply.get("id") != n or "result" not in reply:
                errors.append(f"{response.status_code} {reply}")
    return errors


def test_fifty_concurrent_clients_thousands_of_requests_zero_errors(http_server: Any) -> None:
    async def run() -> list[str]:
        results = await asyncio.gather(*(_client(http_server.url, c) for c in range(CLIENTS)))
        return [error for errors in results for error in errors]

    errors = asyncio.run(run())
    assert errors == [], errors[:3]
