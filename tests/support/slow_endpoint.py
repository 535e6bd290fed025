"""A slow endpoint: a proxy in front of moto that holds chosen operations before answering, so an endpoint slower
than the request's remaining time is met at the socket, where botocore's timeouts apply."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

import pytest


class SlowEndpoint:
    """A proxy to moto's server that holds the requests of chosen operations `seconds` (or until `release()`)
    before relaying them; `answered` counts the held requests it has relayed, so "the caller did not wait for the
    endpoint" is a count, not a timer.

    Point one service at it with `AWS_ENDPOINT_URL_<SERVICE>` (see `route`). An operation is recognised by its
    JSON target header (Athena, Glue, SSO Admin) or its query-protocol `Action=` (IAM, STS).
    """

    def __init__(self, target: str) -> None:
        self.target = urlparse(target)
        self.delays: dict[str, float] = {}
        self.held = 0
        self.answered = 0
        self.released = threading.Event()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Relay)
        self.server.daemon_threads = True
        self.server.endpoint = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def slow(self, operation: str, seconds: float) -> None:
        self.delays[operation] = seconds

    def route(self, monkeypatch: pytest.MonkeyPatch, service: str) -> None:
        """Send `service`'s calls (e.g. "IAM", "GLUE") here; clients made after this use it."""
        monkeypatch.setenv(f"AWS_ENDPOINT_URL_{service}", self.url)

    def delay_for(self, headers: Any, body: bytes) -> float:
        operation = str(headers.get("X-Amz-Target") or "").rsplit(".", 1)[-1]
        for name, seconds in self.delays.items():
            if operation == name or f"Action={name}&".encode() in body + b"&":
                with self._lock:
                    self.held += 1
                return seconds
        return 0.0

    def release(self) -> None:
        """Relay every held request now (and the ones still to come without holding them)."""
        self.released.set()

    def count_answer(self) -> None:
        with self._lock:
            self.answered += 1


class _Relay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def relay(self) -> None:
        endpoint: SlowEndpoint = self.server.endpoint  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        delay = endpoint.delay_for(self.headers, body)
        if delay and not endpoint.released.wait(delay):
            endpoint.count_answer()
        upstream = http.client.HTTPConnection(endpoint.target.hostname, endpoint.target.port, timeout=30)
        try:
            upstream.request(self.command, self.path, body=body or None, headers=dict(self.headers))
            answer = upstream.getresponse()
            content = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(content)
        except OSError:
            pass  # the client gave up first (its read timed out): that is the point
        finally:
            upstream.close()

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = relay

    def log_message(self, *_: Any) -> None:
        pass
