"""Shared fixtures: an isolated AWS environment (moto), the server over HTTP, and the real Lambda handler."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.awsrequest import AWSResponse

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
from aws_data_mcp.config import Settings  # noqa: E402
from aws_data_mcp.demo.lambda_context import LocalLambdaContext  # noqa: E402
from aws_data_mcp.demo.moto_extensions import install_moto_extensions  # noqa: E402
from aws_data_mcp.identity import local_chain  # noqa: E402
from aws_data_mcp.transport import local_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "events"
REVISION_2025 = "2025-11-25"
REVISION_2026 = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, as the servers under test do."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def moto_endpoint() -> Iterator[str]:
    """Every boto3 call of the session goes to moto's server on loopback, never to AWS.

    The servers under test run in threads of this process and resolve the local
    credential chain, so `auth://status` through them is answered by moto's STS.
    """
    install_moto_extensions()  # what moto lacks of Athena (BatchGetQueryExecution, paging), as the demo has it
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
    """The real app served as `serve` serves it (uvicorn with its limits, on a loopback port), in a thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server = local_server.server(create_http_app(settings))
        sock = local_server.bind("127.0.0.1", settings.port)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)

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


def in_container(handler: Callable[[Any, Any], dict[str, Any]]) -> Callable[[Any], dict[str, Any]]:
    """`handler` invoked as a Lambda container invokes it: always on one thread with one event loop of its own, so
    async tests may call it too and no test's loop (or lack of one) leaks into it."""
    container = ThreadPoolExecutor(max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop()))

    def invoke(event: Any) -> dict[str, Any]:
        return container.submit(handler, event, LocalLambdaContext()).result()

    return invoke


@pytest.fixture(scope="session")
def lambda_handler() -> Callable[[Any], dict[str, Any]]:
    """The real Lambda entry (`aws_data_mcp.handler.lambda_handler`), one warm container for the session."""
    from aws_data_mcp.handler import lambda_handler as handler

    return in_container(handler)


def lambda_container(settings: Settings) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Mangum around the app built for `settings`, in a container of its own."""
    from mangum import Mangum

    return in_container(Mangum(create_http_app(settings), lifespan="off"))


@pytest.fixture(scope="session")
def local_lambda_handler() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The event -> Mangum -> app path with the local credential chain, for resources that read AWS.

    Hosted mode refuses every AWS read until a caller is resolved from API Gateway's context.
    """
    event_host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    return lambda_container(Settings(mode="local", allowed_hosts=(event_host,)))


def body_json(response: dict[str, Any]) -> Any:
    assert not response.get("isBase64Encoded"), "JSON responses must not come back base64-encoded"
    return json.loads(response["body"])


# --- Faults and call counting, injected into the caller's own boto3 session --------------------

class _RawBody:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._body


def _error_response(protocol: str, status: int, code: str, message: str) -> AWSResponse:
    """An AWS error exactly as the service's wire protocol carries it, so botocore parses and retries it."""
    if protocol == "json":
        body = json.dumps({"__type": code, "message": message}).encode()
        headers = {"x-amzn-errortype": code, "content-type": "application/x-amz-json-1.1"}
    elif protocol == "query":
        body = (f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message>"
                "</Error><RequestId>fault</RequestId></ErrorResponse>").encode()
        headers = {"content-type": "text/xml"}
    else:  # rest-xml (S3)
        body = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
        headers = {"content-type": "application/xml"}
    return AWSResponse("https://fault.invalid/", status, headers, _RawBody(body))


class AwsFaults:
    """Faults per AWS operation in the local caller's session, below botocore's retry logic.

    `fail("athena.GetWorkGroup", "AccessDeniedException", when=lambda r: b"finance" in r.body)` fails the
    matching attempts; `times=2` only the first two (throttling then success); `delay(...)` sleeps before
    the real call. `calls` counts every attempt by "service.Operation", so a test can assert that a
    cached read or a refused caller made no AWS call at all. One `before-send` hook is registered before
    any client exists (clients copy the session's hooks when they are made); rules may be added any time.
    """

    def __init__(self, session: Any) -> None:
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._rules: list[tuple[str, Callable[[Any], AWSResponse | None]]] = []
        session.events.register("before-send", self._dispatch)

    def _dispatch(self, event_name: str, request: Any, **_: Any) -> AWSResponse | None:
        operation = event_name.split(".", 1)[1]
        with self._lock:
            self.calls[operation] += 1
            rules = list(self._rules)
        for target, rule in rules:
            if operation == target or operation.startswith(target + "."):
                answer = rule(request)
                if answer is not None:
                    return answer
        return None

    def total(self, prefix: str = "") -> int:
        return sum(count for name, count in self.calls.items() if name.startswith(prefix))

    def fail(self, operation: str, code: str, *, status: int = 400, message: str = "injected fault",
             when: Callable[[Any], bool] | None = None, times: int | None = None) -> None:
        service = operation.split(".", 1)[0]
        protocol = botocore.session.get_session().get_service_model(service).protocol
        remaining = [times]

        def respond(request: Any) -> AWSResponse | None:
            if when is not None and not when(request):
                return None
            with self._lock:
                if remaining[0] is not None:
                    if remaining[0] <= 0:
                        return None
                    remaining[0] -= 1
            return _error_response(protocol, status, code, message)

        self._rules.append((operation, respond))

    def throttle(self, operation: str, *, times: int | None = None) -> None:
        code = "SlowDown" if operation.startswith("s3.") else "ThrottlingException"
        self.fail(operation, code, status=503 if operation.startswith("s3.") else 400, times=times)

    def delay(self, operation: str, seconds: float) -> None:
        """`operation` may be "service.Operation" or a bare service name ("athena") for all its operations."""
        def wait(request: Any) -> None:
            time.sleep(seconds)

        self._rules.append((operation, wait))


@pytest.fixture
def aws_faults() -> AwsFaults:
    """Faults and call counts for the local credential chain's session (the one every local read uses)."""
    return AwsFaults(local_chain.session())


@pytest.fixture
def aws_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every AWS API call made in the process from now on, by operation: data calls and STS alike."""
    import botocore.client

    seen: Counter[str] = Counter()
    original = botocore.client.BaseClient._make_api_call

    def counted(self: Any, operation: str, params: Any) -> Any:
        seen[f"{self.meta.service_model.service_name}:{operation}"] += 1
        return original(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counted)
    return seen


# --- Log records of the whole process ---------------------------------------------------------

class RecordKeeper(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(record is kept for kept in self.records):
            self.records.append(record)

    def at_least(self, level: int) -> list[logging.LogRecord]:
        return [r for r in self.records if r.levelno >= level]


@pytest.fixture
def log_records() -> Iterator[RecordKeeper]:
    """Every log record of the server's own logger, of the libraries it routes through it (which no longer reach
    the root logger) and of every other library (root), while the test runs."""
    from aws_data_mcp.observability import LIBRARY_LOGGERS, logger

    keeper = RecordKeeper()
    targets = [logger._logger, logging.getLogger(), *(logging.getLogger(name) for name in LIBRARY_LOGGERS)]
    for target in targets:
        target.addHandler(keeper)
    try:
        yield keeper
    finally:
        for target in targets:
            target.removeHandler(keeper)
