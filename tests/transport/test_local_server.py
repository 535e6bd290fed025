"""The local HTTP server as its owner runs it: `aws-data-mcp serve` asks for its token, binds before it prints,
refuses unusable settings in one line, and bounds what any local client may hold open."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from aws_data_mcp.config import Settings
from aws_data_mcp.transport import limits, local_server
from support.servers import START_GUARD_SECONDS, ServerThread, free_port

TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25"}


class Serve:
    """`python -m aws_data_mcp serve` (or `demo`), with its own state directory and no AWS credentials of the
    shell."""

    def __init__(self, state: Path, *args: str, env: dict[str, str] | None = None,
                 command: str = "aws_data_mcp serve") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.state = state
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "XDG_STATE"))}
        environment.update({"XDG_STATE_HOME": str(state), **(env or {})})
        self.process = subprocess.Popen([sys.executable, "-m", *command.split(), "--port", str(self.port),
                                         *args], env=environment, stderr=subprocess.PIPE, text=True)
        self.banner = self._read_banner()

    @property
    def token_file(self) -> Path:
        return self.state / "aws-data-mcp" / f"serve-{self.port}.token"

    def _read_banner(self) -> str:
        assert self.process.stderr is not None
        lines: list[str] = []
        deadline = time.monotonic() + START_GUARD_SECONDS  # a guard against a serve that never starts
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError("serve exited: " + "".join(lines))
            lines.append(line)
            if line.startswith("Press Ctrl+C"):
                return "".join(lines)
        raise RuntimeError("no banner: " + "".join(lines))

    def stop(self) -> str:
        self.process.terminate()
        _, rest = self.process.communicate(timeout=10)
        return rest


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    server = Serve(tmp_path_factory.mktemp("state"))
    yield server
    server.stop()


def post(url: str, token: str | None = None, headers: dict[str, str] | None = None) -> httpx2.Response:
    auth = {"authorization": f"Bearer {token}"} if token is not None else {}
    return httpx2.post(url, json=TOOLS_LIST, headers={**HEADERS, **auth, **(headers or {})}, timeout=10)


def test_serve_writes_its_token_for_its_owner_only_and_prints_it_in_every_http_configuration(served: Serve) -> None:
    token = served.token_file.read_text().strip()
    assert len(token) >= 32
    assert stat.S_IMODE(served.token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(served.token_file.parent.stat().st_mode) == 0o700
    assert f"Access token (also in {served.token_file}" in served.banner
    assert "It changes at every start unless AWS_DATA_MCP_TOKEN sets it." in served.banner
    assert f'--header "Authorization: Bearer {token}"' in served.banner  # Claude Code
    configurations = re.findall(r"^== (Kiro|Cursor|VS Code)[^\n]*==\n(.*?)\n\n", served.banner, re.M | re.S)
    assert len(configurations) == 3
    for _, text in configurations:
        assert f'"Authorization": "Bearer {token}"' in text
    assert '"AWS_PROFILE"' in served.banner, "Claude Desktop gets no shell environment: the profile is named"


@pytest.mark.anyio
async def test_the_sdk_client_with_the_token_is_served(served: Serve) -> None:
    token = served.token_file.read_text().strip()
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
            Client(streamable_http_client(served.url, http_client=http), mode="legacy") as client:
        config = json.loads((await client.read_resource("config://server")).contents[0].text)
        tools = {tool.name for tool in (await client.list_tools()).tools}
    assert config["deployment_mode"] == "local" and "get_resource" in tools


@pytest.mark.parametrize(("authorization", "challenge"), [
    (None, 'Bearer realm="aws-data-mcp"'),
    ("Bearer wrong-token", 'Bearer realm="aws-data-mcp", error="invalid_token"'),
    ("Bearer", 'Bearer realm="aws-data-mcp", error="invalid_token"'),
])
def test_anyone_without_the_token_gets_a_401_that_says_what_to_send(served: Serve, authorization: str | None,
                                                                     challenge: str) -> None:
    token = served.token_file.read_text().strip()
    answer = post(served.url, headers={"authorization": authorization} if authorization else {})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == challenge
    error = answer.json()["error"]
    assert error["code"] == -32001 and "Authorization: Bearer" in error["message"]
    assert token not in answer.text
    for scheme in (f"Basic {token}", f"Token {token}", token):  # only the bearer scheme carries it
        assert post(served.url, headers={"authorization": scheme}).status_code == 401
    assert post(served.url, token).status_code == 200, "the server keeps serving its owner"


def test_a_busy_port_is_one_line_before_any_banner_and_leaves_the_running_server_alone(served: Serve) -> None:
    token = served.token_file.read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    second = subprocess.run([sys.executable, "-m", "aws_data_mcp", "serve", "--port", str(served.port)],
                            env={**env, "XDG_STATE_HOME": str(served.state)}, capture_output=True, text=True,
                            timeout=60)
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"aws-data-mcp: error: cannot listen on 127.0.0.1:{served.port}: Address already in use "
        f"(another server there?) Choose another port: make serve PORT={served.port + 1}, or --port {served.port + 1}."]
    assert served.token_file.read_text() == token, "the first server's token file is untouched"


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("AWS_DATA_MCP_PORT", "abc", "AWS_DATA_MCP_PORT must be a whole number, not 'abc'"),
    ("AWS_DATA_MCP_CACHE_TTL", "-1", "AWS_DATA_MCP_CACHE_TTL must be at least 0, not '-1'"),
    ("AWS_DATA_MCP_QUERY_MAX_ROWS", "lots", "AWS_DATA_MCP_QUERY_MAX_ROWS must be a whole number, not 'lots'"),
    ("AWS_DATA_MCP_AUTH_MODE", "oidc", "AWS_DATA_MCP_AUTH_MODE='oidc' needs API Gateway in front"),
    ("AWS_DATA_MCP_TOKEN", "short", "AWS_DATA_MCP_TOKEN must be at least 32 characters"),
    ("AWS_DATA_MCP_PRINCIPAL_ROLE_MAP", "[1]", "AWS_DATA_MCP_PRINCIPAL_ROLE_MAP must be a JSON object of strings"),
    ("AWS_DATA_MCP_ALLOWED_HOSTS", "devbox:8000,devbox:*", "AWS_DATA_MCP_ALLOWED_HOSTS takes exact host:port values"),
])
def test_an_unusable_setting_is_one_line_naming_the_variable(tmp_path: Path, variable: str, value: str,
                                                             message: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    result = subprocess.run([sys.executable, "-m", "aws_data_mcp", "serve", "--port", str(free_port())],
                            env={**env, variable: value, "XDG_STATE_HOME": str(tmp_path)}, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not list(tmp_path.rglob("*.token"))


def test_a_configured_token_keeps_client_configurations_stable(tmp_path: Path) -> None:
    fixed = "k" * 40
    server = Serve(tmp_path, env={"AWS_DATA_MCP_TOKEN": fixed})
    try:
        assert post(server.url, fixed).status_code == 200
        assert server.token_file.read_text().strip() == fixed
        assert "It stays the same at every start: AWS_DATA_MCP_TOKEN sets it." in server.banner
        assert "changes at every start" not in server.banner
    finally:
        server.stop()


def test_no_token_serves_anyone_and_says_why_that_is_dangerous(tmp_path: Path) -> None:
    server = Serve(tmp_path, "--no-token")
    try:
        assert post(server.url).status_code == 200
        assert "WARNING: --no-token: any user or process on this machine" in server.banner
        assert "Bearer" not in server.banner and not server.token_file.exists()
    finally:
        server.stop()


def test_the_demo_serves_without_a_token_and_says_a_configured_one_is_ignored(tmp_path: Path) -> None:
    """The demo banner promises no token and prints configurations without one: they must work."""
    configured = "k" * 40
    server = Serve(tmp_path, env={"AWS_DATA_MCP_TOKEN": configured}, command="aws_data_mcp_demo")
    try:
        assert post(server.url).status_code == 200
        ignored = [line for line in server.banner.splitlines() if "AWS_DATA_MCP_TOKEN" in line]
        assert len(ignored) == 1 and "ignored" in ignored[0], server.banner
        assert configured not in server.banner and "Bearer" not in server.banner
        assert not server.token_file.exists()
    finally:
        server.stop()


# --- In-process: the same app and uvicorn limits `serve` uses ------------------------------------------------

@pytest.fixture(scope="module")
def local() -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        yield server


@pytest.mark.parametrize(("header", "value", "status"), [
    ("host", "127.0.0.1:{port}.evil.com", 421),
    ("host", "127.0.0.1:{port}0", 421),
    ("host", "localhost:{port}", 200),
    ("host", "[::1]:{port}", 200),
    ("origin", "http://127.0.0.1:{port}.evil.com", 403),
    ("origin", "http://localhost:{port}@evil.com", 403),
    ("origin", "http://localhost:{port}", 200),
])
def test_host_and_origin_match_exactly(local: ServerThread, header: str, value: str, status: int) -> None:
    answer = post(local.url, headers={header: value.format(port=local.settings.port)})
    assert answer.status_code == status, answer.text
    if status != 200:
        assert answer.json()["error"]["message"]


def test_a_get_stream_is_answered_405_at_once(local: ServerThread) -> None:
    answer = httpx2.get(local.url, headers={"accept": "text/event-stream"}, timeout=5)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST, DELETE"
    assert "POST" in answer.json()["error"]["message"]


def _raw_request(port: int, head: bytes, timeout: float = 10) -> bytes:
    """Send `head` and read the whole answer (headers and the body its content-length announces)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < int(
                re.search(rb"content-length: (\d+)", answer, re.I).group(1)):  # type: ignore[union-attr]
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_half_sent_body_is_answered_408_and_the_server_keeps_serving(local: ServerThread,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "BODY_SECONDS", 0.5)
    port = local.settings.port
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\"").encode()
    answer = _raw_request(port, head, timeout=START_GUARD_SECONDS)  # a guard: the 408 is what ends the wait
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b"not received within 0.5 seconds" in answer
    assert post(local.url).status_code == 200


def test_a_chunked_body_past_the_limit_is_refused_413(local: ServerThread) -> None:
    limit = local.settings.max_request_body_bytes

    def chunks() -> Iterator[bytes]:
        for _ in range(limit // 65536 + 2):
            yield b" " * 65536

    answer = httpx2.post(local.url, content=chunks(), headers=HEADERS, timeout=10)
    assert answer.status_code == 413 and answer.json()["error"]["code"] == -32600


def _trickle(sock: socket.socket, head: bytes, stop: threading.Event, delivered: list[socket.socket]) -> None:
    """Send `head` a byte every 0.1 s, as a slow or hostile client holding its connection does; `delivered` gets
    the socket if the whole head went through."""
    for byte in head:
        if stop.wait(0.1):
            return
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            return  # closed by the server
    delivered.append(sock)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_idle_and_slow_header_connections_are_closed_so_the_owner_is_served_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone on the machine can open sockets before the token is checked (it is a header): each gets a bound
    to deliver its request head, whether it sends nothing, a header byte now and then, or goes quiet after a
    request was served (keep-alive), and once the connection limit is taken the owner gets 503 only until then."""
    monkeypatch.setattr(local_server, "MAX_CONNECTIONS", 4)
    monkeypatch.setattr(local_server, "HEAD_SECONDS", 3.0)
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        port, stop, delivered = server.settings.port, threading.Event(), []
        # a head that takes 400 s to trickle: only the bound can close its connection before it is complete
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Padding: {'a' * 4000}\r\n\r\n").encode()
        served = socket.create_connection(("127.0.0.1", port))
        served.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert served.recv(65536).startswith(b"HTTP/1.1 405 ")
        idle = socket.create_connection(("127.0.0.1", port))
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        trickles = [threading.Thread(target=_trickle, args=(sock, head, stop, delivered)) for sock in (served, *slow)]
        for thread in trickles:
            thread.start()
        try:
            assert post(server.url).status_code == 503, "four connections held: the limit is taken"
            for sock in (idle, *slow, served):
                assert _closed_by_server(sock, within=START_GUARD_SECONDS), "a connection without a head is closed"
            assert delivered == [], "closed by the head bound, before any trickled head was complete"
            assert post(server.url).status_code == 200, "served again, though no attacker closed anything"
        finally:
            stop.set()
            for thread in trickles:
                thread.join()
            for sock in (idle, *slow, served):
                sock.close()


def test_the_bound_is_on_the_head_alone_a_slower_body_is_still_served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_server, "HEAD_SECONDS", 1.0)
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        body = json.dumps(TOOLS_LIST).encode()
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.settings.port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        with socket.create_connection(("127.0.0.1", server.settings.port), timeout=10) as sock:
            sock.sendall(head)
            time.sleep(1.5)  # past the head bound, within the body's (limits.BODY_SECONDS)
            sock.sendall(body)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
