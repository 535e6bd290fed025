"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose `client_id` is an
HTTPS URL is registered by the JSON document at that URL, fetched when it first signs in.

MCP 2026-07-28 prefers them to dynamic registration: Claude Code, VS Code and Codex send one where the authorization
server's metadata says `client_id_metadata_document_supported`. Fetching a URL a stranger chose is a server-side
request on their behalf, so every fetch is bounded: HTTPS only, no redirects, `200` only, at most `MAX_BYTES` within
`FETCH_SECONDS` in all (a slow sender is cut off, not waited for), and never to a private, link-local or reserved
address (each address the name resolves to is checked, then the connection is made to that very address, so a
second resolution cannot point elsewhere). Loopback is allowed only where the caller says so (the demo, whose
clients run on the same machine). A document is kept as long as its `Cache-Control` allows, within bounds.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

MAX_BYTES = 5 * 1024
"""The draft's recommended limit: a client's metadata is a few hundred bytes."""
FETCH_SECONDS = 5.0
"""For the whole fetch (resolve, connect, TLS, headers, body), while a person waits on the sign-in."""
DEFAULT_CACHE_SECONDS = 300
MAX_CACHE_SECONDS = 24 * 3600
MAX_CACHED_DOCUMENTS = 256
_SECRET_FIELDS = ("client_secret", "client_secret_expires_at")
_SECRET_METHODS = ("client_secret_post", "client_secret_basic", "client_secret_jwt")


class DocumentRefused(Exception):
    """The document cannot register its client; the message says why, in words a client's developer can act on."""


@dataclass(frozen=True)
class ClientDocument:
    """What a document registers: its own URL as the client id, a name, and the only redirect URIs it may use."""

    client_id: str
    client_name: str | None
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    response_types: tuple[str, ...]
    scope: str | None


def is_document_url(client_id: str) -> bool:
    """A client id that names a metadata document: an HTTPS URL with a path (the draft's rule; DCR's ids are not)."""
    return client_id.startswith("https://")


def check_url(url: str) -> tuple[str, int, str]:
    """The host, port and request target of a client id URL, or `DocumentRefused` for one the draft forbids."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise DocumentRefused("a client id document URL must be https://host/path")
    if parts.username is not None or parts.password is not None or parts.fragment or "#" in url:
        raise DocumentRefused("a client id document URL must not hold credentials or a fragment")
    segments = parts.path.split("/")
    if parts.path in ("", "/") or "." in segments or ".." in segments:
        raise DocumentRefused("a client id document URL needs a path, without . or .. segments")
    try:
        port = parts.port or 443
    except ValueError:
        raise DocumentRefused("the client id document URL's port is not a number") from None
    return parts.hostname, port, parts.path + (f"?{parts.query}" if parts.query else "")


def permitted_addresses(host: str, port: int, allow_loopback: bool) -> list[str]:
    """Every address `host` resolves to, once each is known to be public (or loopback where allowed): one private
    address among them refuses the lot, as an attacker's name may resolve to both."""
    try:
        resolved = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise DocumentRefused(f"the client id document's host {host} does not resolve") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in resolved))
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if ip.is_loopback and allow_loopback:
            continue
        if not ip.is_global or ip.is_multicast:
            raise DocumentRefused(f"the client id document's host {host} resolves to a private or reserved "
                                  f"address ({address}): it is not fetched")
    return addresses


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to the address already checked, with the URL's host for SNI and the certificate's name."""

    def __init__(self, host: str, port: int, address: str, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._address = address
        self._tls = context

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


def _body_within_limits(response: http.client.HTTPResponse, sock: socket.socket, deadline: float) -> bytes:
    """The body, refused once it passes `MAX_BYTES` or the deadline (each read waits only for what time is left)."""
    declared = response.getheader("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BYTES:
        raise DocumentRefused(f"the client id document is larger than {MAX_BYTES} bytes")
    body = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        sock.settimeout(remaining)
        chunk = response.read1(MAX_BYTES + 1 - len(body))
        if not chunk:
            return body
        body += chunk
        if len(body) > MAX_BYTES:
            raise DocumentRefused(f"the client id document is larger than {MAX_BYTES} bytes")


@dataclass(frozen=True)
class Fetched:
    body: bytes
    cache_control: str


def fetch(url: str, *, allow_loopback: bool = False, context: ssl.SSLContext | None = None,
          seconds: float = FETCH_SECONDS) -> Fetched:
    """The document's bytes and caching header, within every bound above (`seconds` for the whole fetch);
    `DocumentRefused` otherwise."""
    host, port, target = check_url(url)
    addresses = permitted_addresses(host, port, allow_loopback)
    deadline = time.monotonic() + seconds
    connection = _PinnedHTTPS(host, port, addresses[0], seconds, context or ssl.create_default_context())
    try:
        connection.request("GET", target, headers={"Accept": "application/json", "User-Agent": "aws-data-mcp"})
        sock = connection.sock  # the response keeps reading it once the connection lets go (HTTP/1.0, close)
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        response = connection.getresponse()
        if response.status != 200:
            raise DocumentRefused(f"the client id document URL answered HTTP {response.status} (only 200 is "
                                  "accepted; redirects are not followed)")
        return Fetched(_body_within_limits(response, sock, deadline), response.getheader("Cache-Control") or "")
    except TimeoutError:
        raise DocumentRefused(f"the client id document took longer than {seconds:g} s to arrive") from None
    except ssl.SSLError as failure:
        raise DocumentRefused(f"the client id document's TLS failed ({failure.reason or 'certificate'})") from None
    except (OSError, http.client.HTTPException):
        raise DocumentRefused("the client id document could not be fetched") from None
    finally:
        connection.close()


def _strings(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DocumentRefused(f"the client id document's {name} must be a list of strings")
    return tuple(value)


def parse(url: str, body: bytes) -> ClientDocument:
    """The document as its client's registration, checked as the draft says: its `client_id` is exactly the URL it
    was fetched from (no normalising), it has redirect URIs, and it holds no shared secret."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise DocumentRefused("the client id document is not JSON") from None
    if not isinstance(document, dict):
        raise DocumentRefused("the client id document must be a JSON object")
    if document.get("client_id") != url:
        raise DocumentRefused("the client id document's client_id is not the URL it was fetched from")
    if any(name in document for name in _SECRET_FIELDS) or document.get("token_endpoint_auth_method") in \
            _SECRET_METHODS:
        raise DocumentRefused("a client id document must not use a client secret (anyone can read it)")
    redirect_uris = _strings(document.get("redirect_uris"), "redirect_uris")
    if not redirect_uris:
        raise DocumentRefused("the client id document names no redirect_uris")
    name, scope = document.get("client_name"), document.get("scope")
    return ClientDocument(
        client_id=url, client_name=name if isinstance(name, str) else None, redirect_uris=redirect_uris,
        grant_types=_strings(document.get("grant_types", ["authorization_code"]), "grant_types"),
        response_types=_strings(document.get("response_types", ["code"]), "response_types"),
        scope=scope if isinstance(scope, str) else None)


def cache_seconds(cache_control: str) -> int:
    """How long a document may be kept: `no-store`/`no-cache` not at all, else its `max-age` within bounds."""
    directives = {part.strip().split("=", 1)[0].lower(): part.strip().partition("=")[2]
                  for part in cache_control.split(",") if part.strip()}
    if "no-store" in directives or "no-cache" in directives:
        return 0
    age = directives.get("max-age", "").strip('"')
    return min(int(age), MAX_CACHE_SECONDS) if age.isdigit() else DEFAULT_CACHE_SECONDS


Fetcher = Callable[[str], Fetched]


@dataclass
class ClientDocuments:
    """Documents fetched and parsed, each kept for its cache lifetime; the oldest dropped beyond a bound, so a
    stream of made-up URLs cannot grow memory."""

    fetcher: Fetcher
    _kept: OrderedDict[str, tuple[float, ClientDocument]] = field(default_factory=OrderedDict, init=False)

    def get(self, url: str) -> ClientDocument:
        kept = self._kept.get(url)
        if kept is not None and kept[0] > time.monotonic():
            return kept[1]
        fetched = self.fetcher(url)
        document = parse(url, fetched.body)
        seconds = cache_seconds(fetched.cache_control)
        self._kept.pop(url, None)
        if seconds:
            self._kept[url] = (time.monotonic() + seconds, document)
            while len(self._kept) > MAX_CACHED_DOCUMENTS:
                self._kept.popitem(last=False)
        return document


def client_information(document: ClientDocument) -> Mapping[str, Any]:
    """The document as RFC 7591 client information: a public client (no secret), its URL as its id."""
    return {"client_id": document.client_id, "client_name": document.client_name,
            "redirect_uris": list(document.redirect_uris), "grant_types": list(document.grant_types),
            "response_types": list(document.response_types), "scope": document.scope,
            "token_endpoint_auth_method": "none"}
