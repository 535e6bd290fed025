"""One opaque cursor format, for list methods (`resources/list`) and for resource URIs (`?cursor=`)."""

from __future__ import annotations

import base64
import binascii
import json


class InvalidCursor(ValueError):
    """A cursor this server did not issue, or one past the end of the list."""


_NOT_OURS = "Invalid cursor: pass back a cursor this server returned, unchanged"


def encode_cursor(offset: int, account: str | None = None) -> str:
    """A cursor to `offset`, bound to the `account` whose list it pages (None: the caller's home account)."""
    position: dict[str, object] = {"offset": offset} | ({"account": account} if account else {})
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, length: int, account: str | None = None) -> int:
    """The offset a cursor points at; 0 for no cursor. A cursor issued for another account's list is refused:
    an offset into one account's results means nothing in another's.

    Anything else a client can put in a cursor (`Infinity`, `1e999`, a string, a deeply nested list) is an
    `InvalidCursor`, never a server error.
    """
    if not cursor:
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        decoded = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, RecursionError, binascii.Error) as exc:
        raise InvalidCursor(_NOT_OURS) from exc
    offset = decoded.get("offset") if isinstance(decoded, dict) else None
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise InvalidCursor(_NOT_OURS)
    if decoded.get("account") != account:
        raise InvalidCursor("Invalid cursor: it pages another account's results")
    if not 0 <= offset <= length:
        raise InvalidCursor("Invalid cursor: it points past the end of the list")
    return offset
