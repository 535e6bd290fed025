"""Paging the list methods (`resources/list`, `resources/templates/list`, `tools/list`, `prompts/list`).

The SDK would answer whole lists, by count at best; here a page holds at most `list_page_size` entries, fewer
where the character budget ends first, behind the same opaque cursors as paged resources.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mcp_types import PaginatedRequestParams
from pydantic import BaseModel

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.server.answers import protocol_error
from aws_data_mcp.server.cursors import InvalidCursor, decode_cursor, encode_cursor

E = TypeVar("E", bound=BaseModel)
LIST_ROOM = 500
"""Characters of a list response besides its entries (the JSON-RPC envelope, `nextCursor`, 2026-07-28's cache
fields and server info), kept from the budget."""


@dataclass(frozen=True)
class ListPage(Generic[E]):
    entries: list[E]
    next_cursor: str | None
    meta: dict[str, Any] | None
    """`over_budget` when one entry alone is larger than the character budget."""


def list_page(entries: Sequence[E], params: PaginatedRequestParams | None, settings: Settings) -> ListPage[E]:
    """One page of a list method: at most `list_page_size` entries, fewer where the character budget ends first.

    A page holds at least one entry so paging always advances, and one entry larger than the budget says so in
    `_meta`, as a resource over it does.
    """
    try:
        offset = decode_cursor(params.cursor if params else None, len(entries))
    except InvalidCursor as exc:
        raise protocol_error(ResourceFailure(ErrorCode.INVALID_ARGUMENT, str(exc), details=[
            "Pass back the nextCursor of the previous page unchanged; omit the cursor for the first page."])) from exc
    room = settings.response_char_budget - LIST_ROOM
    end, used = offset, 0
    for entry in entries[offset:offset + settings.list_page_size]:
        used += len(entry.model_dump_json(by_alias=True, exclude_none=True)) + 1
        if used > room and end > offset:
            break
        end += 1
    meta = None
    if used > room and end == offset + 1:
        meta = {"over_budget": {"budget": settings.response_char_budget, "characters": used + LIST_ROOM,
                                "reason": "one entry is larger than the budget: a page holds at least one entry"}}
    return ListPage(list(entries[offset:end]), encode_cursor(end) if end < len(entries) else None, meta)
