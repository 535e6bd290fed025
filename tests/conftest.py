"""Shared fixtures: an isolated AWS environment (moto), the server over HTTP, and the real Lambda handler."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

# Nothing in the suite may reach real AWS or read the developer's own profile.
for _name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL"):
    os.environ.pop(_name, None)
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_REGION="us-east-1",
    AWS_CONFIG_FILE="/dev/null",
    AWS_SHARED_CREDENTIALS_FILE="/dev/null",
    POWERTOOLS_SERVICE_NAME="aws-data-mcp",
)
os.environ.pop("AWS_DATA_MCP_MODE", None)

from moto import mock_aws  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from aws_data_mcp.app import create_http_app  # noqa: E402
from aws_data_mcp.cli import LocalLambdaContext  # noqa: E402
from aws_data_mcp.config import Settings  # noqa: E402
from aws_data_mcp.identity import local_chain  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "events"
REVISION_2025 = "2025-11-25"
REVISION_2026 = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture(scope="session", autouse=True)
def moto_endpoint() -> Iterator[str]:
    """Every boto3 call of the session goes to moto's server on loopback, never to AWS.

    The servers under test run in threads of this process and resolve the local
    credential chain, so `auth://status` through them is answered by moto's STS.
    """
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{server._port}"
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    yield endpoint
    os.environ.pop("AWS_ENDPOINT_URL", None)
    server.stop()


@pytest.fixture(autouse=True)
def _fresh_local_chain() -> Iterator[None]:
    """Each test resolves the local credential chain from its own environment."""
    local_chain.reset()
    yield
    local_chain.reset()


@pytest.fixture
def aws() -> Iterator[None]:
    """moto's in-process AWS for one test."""
    with mock_aws():
        yield


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerThread:
    """uvicorn serving the real app on a loopback port, in a thread, for the SDK's HTTP client."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        config = uvicorn.Config(create_http_app(settings), host="127.0.0.1", port=settings.port, lifespan="off",
                                log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}/mcp"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)


@pytest.fixture(scope="session")
def http_server() -> Iterator[ServerThread]:
    """One local-mode server for the session (the default credential chain: the test's env)."""
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        yield server


@pytest.fixture(scope="session")
def paged_http_server() -> Iterator[ServerThread]:
    """A server with a tiny page size, so cursors are exercised."""
    with ServerThread(Settings(mode="local", port=free_port(), list_page_size=3)) as server:
        yield server


@pytest.fixture(scope="session")
def budget_http_server() -> Iterator[ServerThread]:
    """A server with a small character budget, so large lists are cut into pages."""
    with ServerThread(Settings(mode="local", port=free_port(), response_char_budget=12_000)) as server:
        yield server


# --- The Lambda handler, driven with API Gateway events ---------------------------------------

def load_event(relative: str) -> dict[str, Any]:
    return json.loads((EVENTS / relative).read_text())


def rpc(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def modern(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    """A 2026-07-28 request body: protocol version and client info travel in `_meta`."""
    return rpc(method, {**(params or {}), "_meta": MODERN_META}, request_id)


def http_api_event(
    body: dict[str, Any] | str | None,
    *,
    revision: str = REVISION_2025,
    method: str = "POST",
    stage: str = "$default",
    path: str = "/mcp",
    headers: dict[str, str] | None = None,
    request_id: str = "req-0001",
) -> dict[str, Any]:
    """An HTTP API (payload 2.0) event, shaped like the files in events/http-api-v2/."""
    event = load_event("http-api-v2/resources-read-static.json")
    raw_path = path if stage == "$default" else f"/{stage}{path}"
    base_headers = dict(event["headers"], **{"mcp-protocol-version": revision})
    if revision == REVISION_2026 and isinstance(body, dict):
        base_headers["mcp-method"] = body.get("method", "")
        name = (body.get("params") or {}).get("uri") or (body.get("params") or {}).get("name")
        if name:
            base_headers["mcp-name"] = name
    event["headers"] = {**base_headers, **(headers or {})}
    event["rawPath"] = raw_path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = raw_path
    event["requestContext"]["stage"] = stage
    event["requestContext"]["requestId"] = request_id
    event["body"] = body if isinstance(body, str) or body is None else json.dumps(body)
    return event


@pytest.fixture(scope="session")
def lambda_handler() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The real Lambda entry (`aws_data_mcp.handler.lambda_handler`), one warm container for the session."""
    from aws_data_mcp.handler import lambda_handler as handler

    def invoke(event: dict[str, Any]) -> dict[str, Any]:
        return handler(event, LocalLambdaContext())

    return invoke


def body_json(response: dict[str, Any]) -> Any:
    assert not response.get("isBase64Encoded"), "JSON responses must not come back base64-encoded"
    return json.loads(response["body"])
