"""Cognito's managed login (`/oauth2/authorize`, `/oauth2/token`, `/oauth2/revoke`) on loopback,
which moto lacks.

It checks what Cognito checks, against moto's app clients: the client exists, the redirect URI is
one of its callback URLs exactly, PKCE S256, and a code is spent once by its own client and redirect
URI. A person is signed in at once (`user`); the redirect carries `code` and `state` and, like
Cognito's, no `iss`."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit


@dataclass
class Grant:
    client_id: str
    redirect_uri: str
    challenge: str
    resource: str | None


@dataclass
class CognitoLogin:
    """`url` is the pool's domain; `codes` and `tokens` what it issued; `asked` every authorize
    query it got."""

    cognito: Any
    user_pool_id: str
    user: str = "alice@example.com"
    codes: dict[str, Grant] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    """Each access and refresh token issued, and the client it was issued to."""
    asked: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        login = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                if parts.path != "/oauth2/authorize":
                    return self._send(404, {"error": "not_found"})
                status, headers, body = login.authorize(
                    {k: v[0] for k, v in parse_qs(parts.query).items()}
                )
                self._send(status, body, headers)

            def do_POST(self) -> None:
                form = parse_qs(
                    self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                )
                status, body = login.token(
                    urlsplit(self.path).path, {k: v[0] for k, v in form.items()}
                )
                self._send(status, body)

            def _send(
                self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _callbacks(self, client_id: str) -> list[str] | None:
        try:
            return self.cognito.describe_user_pool_client(
                UserPoolId=self.user_pool_id, ClientId=client_id
            )["UserPoolClient"].get("CallbackURLs", [])
        except self.cognito.exceptions.ResourceNotFoundException:
            return None

    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], dict[str, Any]]:
        self.asked.append(query)
        callbacks = self._callbacks(query.get("client_id", ""))
        if callbacks is None or query.get("redirect_uri") not in callbacks:
            return 400, {}, {"error": "redirect_mismatch"}
        if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256":
            return 400, {}, {"error": "invalid_request"}
        code = secrets.token_urlsafe(16)
        self.codes[code] = Grant(
            query["client_id"],
            query["redirect_uri"],
            query["code_challenge"],
            query.get("resource"),
        )
        answer = {"code": code, **({"state": query["state"]} if "state" in query else {})}
        return 302, {"Location": f"{query['redirect_uri']}?{urlencode(answer)}"}, {}

    def _issue(self, client_id: str) -> tuple[int, dict[str, Any]]:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[access] = self.tokens[refresh] = client_id
        return 200, {
            "access_token": access,
            "refresh_token": refresh,
            "token_type": "Bearer",
            "expires_in": 3600,
        }

    def token(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if path == "/oauth2/revoke":
            self.tokens.pop(form.get("token", ""), None)
            return 200, {}
        if form.get("grant_type") == "refresh_token":
            if self.tokens.get(form.get("refresh_token", "")) != form.get("client_id"):
                return 400, {"error": "invalid_grant"}
            return self._issue(form["client_id"])
        grant = self.codes.pop(form.get("code", ""), None)
        verifier = form.get("code_verifier", "").encode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).decode().rstrip("=")
        if grant is None or (grant.client_id, grant.redirect_uri, grant.challenge) != (
            form.get("client_id"),
            form.get("redirect_uri"),
            challenge,
        ):
            return 400, {"error": "invalid_grant"}
        return self._issue(grant.client_id)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
