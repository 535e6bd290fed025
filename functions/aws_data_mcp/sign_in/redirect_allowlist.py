"""Which redirect URIs a client may register: the operator's allowlist (RegistrationRedirectPatterns).

Patterns are matched part by part, never as one string. Where `*` crossed parts,
`https://*.corp.example/callback` admitted `https://evil.example/.corp.example/callback`.
The pattern language: docs/sign-in.md, redirect-URI patterns.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

SETTING = "RegistrationRedirectPatterns (REGISTRATION_REDIRECT_PATTERNS)"
MAX_REDIRECT_URI_CHARS = 1024
"""Cognito's own limit on one callback URL."""
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
DEFAULT_PORTS = {"http": 80, "https": 443}
_UNSAFE = re.compile(r"[^\x21-\x7e]|[\\#]")
"""Not plain printable ASCII, a backslash (read as `/` by browsers) or a fragment."""
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_IN_SEGMENT = "[A-Za-z0-9._~-]*"
_NOT_A_DOT_SEGMENT = r"(?!\.{0,2}(?:/|$))"
"""Before a segment with a `*`: it is not empty, `.` or `..` (which browsers resolve against the path before it)."""
_ANY_LOOPBACK_PATH = re.compile(rf"(?:/{_NOT_A_DOT_SEGMENT}[A-Za-z0-9._~!$&'()*+,;=:@-]+)*/?")


class PatternError(ValueError):
    """A pattern of the allowlist that could match across the parts of a URI, or is no URI at all."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"{SETTING}: {pattern!r} {reason}")


@dataclass(frozen=True)
class RedirectUri:
    """A redirect URI a client asked for, split and normalised, or None from `parse` if it is not one."""

    scheme: str
    host: str
    """A lower-case DNS name, or an IP address as `ipaddress` writes it."""
    port: int | None
    """The scheme's default where none is written; None for a scheme without one."""
    path: str
    query: str | None
    """None where the URI has no `?` at all."""

    @classmethod
    def parse(cls, uri: str) -> RedirectUri | None:
        if len(uri) > MAX_REDIRECT_URI_CHARS or _UNSAFE.search(uri):
            return None
        try:
            parts = urlsplit(uri)
            port = parts.port
        except ValueError:  # a port that is no number, or out of range; a bracketed host that is no IPv6 address
            return None
        host = _host(parts)
        if not _SCHEME.fullmatch(parts.scheme) or host is None or port == 0:
            return None
        return cls(parts.scheme, host, port or DEFAULT_PORTS.get(parts.scheme), parts.path,
                   parts.query if "?" in uri else None)


def _host(parts: SplitResult) -> str | None:
    """The host of `parts` as a lower-case DNS name or a canonical IP address; None for anything else, a user name
    before it (`https://good.example@evil.example/` goes to evil.example) or a percent sign (an encoded dot, an
    IPv6 zone) included."""
    if "@" in parts.netloc or "%" in parts.netloc or not parts.hostname:
        return None
    try:
        return str(ipaddress.ip_address(parts.hostname))
    except ValueError:
        pass
    if "[" in parts.netloc or not all(_LABEL.fullmatch(label) for label in parts.hostname.split(".")):
        return None
    return parts.hostname


def _path_matcher(pattern: str, path: str, loopback: bool) -> re.Pattern[str]:
    if not path:
        return _ANY_LOOPBACK_PATH if loopback else re.compile("/?")
    segments = []
    for segment in path.split("/"):
        if "*" in segment:
            if "%" in segment:
                raise PatternError(pattern, "has a `*` in a path segment holding a percent-encoded character")
            segment = _NOT_A_DOT_SEGMENT + _IN_SEGMENT.join(re.escape(piece) for piece in segment.split("*"))
        else:
            segment = re.escape(segment)
        segments.append(segment)
    return re.compile("/".join(segments))


@dataclass(frozen=True)
class RedirectPattern:
    """One pattern of the allowlist, split into the parts it matches."""

    text: str
    scheme: str
    host: str
    """The exact host, or with `any_subdomain` the name every host must end in (after one or more labels)."""
    any_subdomain: bool
    port: int | None
    any_port: bool
    path: re.Pattern[str]
    query: str | None

    @classmethod
    def parse(cls, text: str) -> RedirectPattern:
        """The pattern `text` names, or a `PatternError` saying which rule it breaks."""
        if _UNSAFE.search(text):
            raise PatternError(text, "holds a space, a control or non-ASCII character, a backslash or a fragment")
        scheme, separator, _ = text.partition("://")
        if not separator or not _SCHEME.fullmatch(scheme.lower()):
            raise PatternError(text, "is not scheme://host[:port][/path] with a scheme of letters (no `*`)")
        try:
            parts = urlsplit(text)
            any_port = parts.netloc.endswith(":*")
            authority = urlsplit(f"//{parts.netloc.removesuffix(':*')}")
            any_subdomain = authority.netloc.startswith("*.")
            port = authority.port
            host = _host(authority._replace(netloc=authority.netloc.removeprefix("*.")))
        except ValueError:
            raise PatternError(text, "has a port that is no number, or brackets around no IPv6 address") from None
        if "@" in parts.netloc:
            raise PatternError(text, "names a user (`user@`): a URI with one goes to the host after the `@`")
        if host is None or port == 0:
            raise PatternError(text, "has no DNS name or IP address for a host (or port 0): `*` may only be a host's "
                               "whole first label (`*.corp.example`) or a loopback host's port (`http://localhost:*`)")
        if any_subdomain and ("." not in host or host.rpartition(".")[2].isdigit() or ":" in host):
            raise PatternError(text, "puts `*.` before a name of fewer than two labels, or an IP address")
        loopback = host in LOOPBACK_HOSTS
        if any_port and not loopback:
            raise PatternError(text, "has any port (`:*`) on a host that is not loopback (localhost, 127.0.0.1, "
                               "[::1])")
        if "*" in parts.query:
            raise PatternError(text, "has a `*` in its query: a query matches exactly")
        return cls(text, parts.scheme, host, any_subdomain, None if any_port else port or DEFAULT_PORTS.get(
            parts.scheme), any_port, _path_matcher(text, parts.path, loopback), parts.query if "?" in text else None)

    def admits(self, uri: RedirectUri) -> bool:
        host_matches = uri.host.endswith(f".{self.host}") if self.any_subdomain else uri.host == self.host
        return (uri.scheme == self.scheme and host_matches and (self.any_port or uri.port == self.port)
                and self.path.fullmatch(uri.path) is not None and uri.query == self.query)


def allowlist(patterns: Iterable[str]) -> tuple[RedirectPattern, ...]:
    """The patterns, blanks dropped, each checked: the first that breaks a rule raises `PatternError`."""
    return tuple(RedirectPattern.parse(pattern.strip()) for pattern in patterns if pattern.strip())


def allowed(uri: str, patterns: Iterable[RedirectPattern]) -> bool:
    """Whether `uri` is a well-formed redirect URI that one of `patterns` admits."""
    parsed = RedirectUri.parse(uri)
    return parsed is not None and any(pattern.admits(parsed) for pattern in patterns)
