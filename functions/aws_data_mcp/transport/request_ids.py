"""A request whose `id` is neither a string nor an integer is refused -32600, on every revision.

MCP requires a request id to be a string or an integer, never null. The SDK's 2025-11-25 transport
takes another id (`1.5`, `null`, `{}`) for a notification. It answers 202 with nothing, and the
client waits forever. Its 2026-07-28 transport answers -32600. This edge answers -32600 (`id: null`,
HTTP 400) on both, before the SDK sees the request.
"""

from __future__ import annotations

from typing import Any

from mcp_types import INVALID_REQUEST
from pydantic_core import from_json
from starlette.types import Send

from aws_data_mcp.transport.json_errors import send_error

INVALID_ID = "Invalid Request: a request's id must be a string or an integer"


def _valid_id(value: Any) -> bool:
    """A string or an integer as JSON writes it: `7.0` is a number with a fraction (the SDK's models refuse it
    too, and would take the request for a notification), and JSON's `true` is no integer."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def has_invalid_id(body: bytes) -> bool:
    """Whether `body` is one request (a `method` and an `id` member) whose id is not a string or an integer.

    A body that does not parse is left to the SDK's parse error; an object without `id` is a notification."""
    if b'"id"' not in body:  # cheap test first: a notification, or no object at all
        return False
    try:  # pydantic's parser: the standard library's result (NaN, big integers, the last of duplicate keys) sooner
        message = from_json(body)
    except ValueError:  # not JSON, not UTF-8, or nested past the parser's limit
        return False
    return is_request_with_invalid_id(message)


def is_request_with_invalid_id(message: Any) -> bool:
    """`has_invalid_id` for a message already parsed."""
    return isinstance(message, dict) and "method" in message and "id" in message and not _valid_id(message["id"])


async def refuse_invalid_id(send: Send) -> None:
    await send_error(send, 400, INVALID_REQUEST, INVALID_ID)
