"""One opaque cursor format, for list methods (`resources/list`) and for resource URIs (`?cursor=`)."""

from __future__ import annotations

import base64
import binascii
import json


class InvalidCursor(ValueError):
    """A cursor this server did not issue, or one past the end of the list."""


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None, length: int) -> int:
    """The offset a cursor points at; 0 for no cursor."""
    if not cursor:
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        offset = int(json.loads(base64.urlsafe_b64decode(padded.encode()))["offset"])
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise InvalidCursor("Invalid cursor: pass back a cursor this server returned, unchanged") from exc
    if not 0 <= offset <= length:
        raise InvalidCursor("Invalid cursor: it points past the end of the list")
    return offset
