"""Beyond its connection cap the local server (and the demo front, served by the same uvicorn set-up) refuses
with the JSON-RPC error every other refusal is, and says when to retry; uvicorn's own answer was a plain-text
503 with no Retry-After. And the port listens from the moment it is bound, so a client that connects as soon
as the banner is printed is served, not refused."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx2
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.transport import local_server
from support.servers import ServerThread, free_port

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def held_connection(port: int) -> socket.socket:
    """A kept-alive connection that has been served once, so the server counts it (for `HEAD_SECONDS`)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert sock.recv(65536).startswith(b"HTTP/1.1 405 ")
    return sock


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerThread]:
    monkeypatch.setattr(local_server, "MAX_CONNECTIONS", 3)
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        yield server


def test_beyond_the_connection_cap_the_answer_is_a_json_rpc_error_with_retry_after(capped: ServerThread) -> None:
    held = [held_connection(capped.settings.port) for _ in range(2)]
    try:
        refused = httpx2.post(capped.url, json=TOOLS_LIST, headers=HEADERS, timeout=10)
        assert refused.status_code == 503
        assert refused.headers["content-type"] == "application/json"
        assert int(refused.headers["retry-after"]) > 0
        error = refused.json()["error"]
        assert refused.json()["jsonrpc"] == "2.0" and error["code"] == -32603
        assert "connections" in error["message"] and "retry" in error["message"].lower()
    finally:
        for sock in held:
            sock.close()
    served = httpx2.post(capped.url, json=TOOLS_LIST, headers=HEADERS, timeout=10)
    assert served.status_code == 200, "below the cap again, served"


def test_a_client_connecting_once_the_port_is_bound_is_served_not_refused() -> None:
    server = ServerThread(Settings(mode="local", port=free_port()))  # bound, as `serve` is when it prints
    port = server.settings.port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as early:
        early.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        with server:
            assert early.recv(65536).startswith(b"HTTP/1.1 405 ")
