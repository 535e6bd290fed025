"""One page of an Athena result: typed values, a row cap, the character budget, and this server's cursor.

Why pages and not the result: a result can be millions of rows. Each answer holds at most one page's rows in
memory, read with `GetQueryResults` from where the cursor says, so a whole result is never loaded. The cursor
wraps Athena's `NextToken` with the rows of that page already answered, because the budget may cut a page: the
next answer asks Athena for the same page again and skips what was sent (cheaper than keeping state anywhere,
since any Lambda container may answer the next page).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.server.rendering import to_json

ATHENA_PAGE_ROWS = 1000
"""GetQueryResults' largest page."""
BYTES_PER_MB = 1 << 20
BYTES_PER_TB = 1 << 40
MINIMUM_BILLED_BYTES = 10 * BYTES_PER_MB
"""Athena bills at least 10 MB per query, rounded up to the megabyte."""

_INTEGERS = frozenset({"tinyint", "smallint", "integer", "int", "bigint"})
_FLOATS = frozenset({"double", "float", "real"})


class ResultColumn(TypedDict):
    name: str
    type: str | None


class TruncatedValue(TypedDict):
    """A text value cut to fit the response budget: the whole value is in the query's result file."""

    row: int
    """The row's index in the whole result (as `first_row` counts)."""
    column: str
    original_length: int
    kept_length: int


class Cursor(NamedTuple):
    """Where the next answer starts: Athena's token for a page (None: the first), and rows of it already sent."""

    token: str | None
    skip: int
    answered: int
    """Rows answered before this point, so every answer can say which rows it holds."""

    def encode(self) -> str:
        raw = json.dumps([self.token, self.skip, self.answered], separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str | None) -> Cursor:
        if not text:
            return FIRST_PAGE
        try:
            token, skip, answered = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            if (token is None or isinstance(token, str)) and all(
                    isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (skip, answered)):
                return cls(token, skip, answered)
        except (ValueError, TypeError, binascii.Error):
            pass
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "The cursor is not one this server issued",
                              details=["Pass back next_uri unchanged, or read the query's URI without a cursor "
                                       "for its first page."])


FIRST_PAGE = Cursor(None, 0, 0)


def typed_value(athena_type: str | None, text: str | None) -> Any:
    """A cell as JSON should carry it: integers and floating numbers as numbers, decimals as strings (no float
    rounding), timestamps in ISO 8601, NULL as null; arrays, maps and rows as Athena renders them."""
    if text is None:
        return None
    kind = (athena_type or "varchar").lower().split("(", 1)[0].strip()
    try:
        if kind in _INTEGERS:
            return int(text)
        if kind in _FLOATS:
            number = float(text)
            return number if math.isfinite(number) else text  # NaN and Infinity are not JSON
    except ValueError:
        return text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, text)
    if kind.startswith("timestamp") and " " in text:
        return text.replace(" ", "T", 1)
    return text


@dataclass(frozen=True)
class Page:
    columns: list[ResultColumn]
    rows: list[list[Any]]
    next_cursor: Cursor | None
    cut_to_budget: bool
    """True when the character budget, not the row cap or the result's end, ended this answer."""
    truncated: list[TruncatedValue] = field(default_factory=list)
    """Values of a row too long for any answer, cut so that it fits one."""


def fitted(row: list[Any], names: list[str], index: int, budget: int) -> tuple[list[Any], list[TruncatedValue]]:
    """Row `index` cut to `budget` characters of JSON, its marks included: every text value longer than one length
    cut to it, the longest length that fits (found by bisection), so short values stay whole."""
    texts = [i for i, value in enumerate(row) if isinstance(value, str)]

    def cut(length: int) -> tuple[list[Any], list[TruncatedValue]]:
        cut_row = [value[:length] if i in texts and len(value) > length else value for i, value in enumerate(row)]
        marks = [TruncatedValue(row=index, column=names[i] if i < len(names) else str(i),
                                original_length=len(row[i]), kept_length=length)
                 for i in texts if len(row[i]) > length]
        return cut_row, marks

    low, high = 0, min(max((len(row[i]) for i in texts), default=0), budget)
    while low < high:
        middle = (low + high + 1) // 2
        cut_row, marks = cut(middle)
        if len(to_json(cut_row)) + len(to_json(marks)) <= budget:
            low = middle
        else:
            high = middle - 1
    return cut(low)


def read_page(
    fetch: Callable[[str | None, int], Mapping[str, Any]],
    cursor: Cursor,
    *,
    max_rows: int,
    char_budget: int,
    header_row: bool,
) -> Page:
    """Rows from `cursor` on: at most `max_rows`, and no more than fit in `char_budget` characters of JSON.

    `fetch(token, max_results)` is one GetQueryResults call. Athena pages are read one at a time until the
    answer is full, so memory holds at most one page beyond the rows being answered.
    """
    columns: list[ResultColumn] | None = None
    rows: list[list[Any]] = []
    truncated: list[TruncatedValue] = []
    used = 0
    token, skip = cursor.token, cursor.skip
    while True:
        want = min(ATHENA_PAGE_ROWS, skip + max_rows - len(rows) + (1 if token is None and header_row else 0))
        page = fetch(token, max(want, 1))
        result_set = page.get("ResultSet") or {}
        if columns is None:
            columns = [ResultColumn(name=c.get("Name", ""), type=c.get("Type"))
                       for c in (result_set.get("ResultSetMetadata") or {}).get("ColumnInfo", [])]
        raw_rows: Sequence[Mapping[str, Any]] = result_set.get("Rows", [])
        if token is None and header_row and raw_rows and _cells(raw_rows[0]) == [c["name"] for c in columns]:
            raw_rows = raw_rows[1:]  # a SELECT's first page repeats the column names
        types = [column["type"] for column in columns]
        for index in range(skip, len(raw_rows)):
            cells = raw_rows[index].get("Data", [])
            row = [typed_value(kind, cell.get("VarCharValue")) for kind, cell in zip(types, cells, strict=False)]
            size = len(to_json(row)) + 1
            if rows and used + size > char_budget:
                return Page(columns, rows, Cursor(token, index, cursor.answered + len(rows)), cut_to_budget=True,
                            truncated=truncated)
            if size > char_budget:  # no answer could hold it whole: it comes alone, cut, and the file has it all
                row, truncated = fitted(row, [c["name"] for c in columns], cursor.answered, char_budget)
                size = char_budget
            rows.append(row)
            used += size
            if len(rows) >= max_rows:
                return Page(columns, rows, _after(page, token, index + 1, len(raw_rows), cursor.answered + len(rows)),
                            cut_to_budget=False, truncated=truncated)
        next_token = page.get("NextToken")
        if not next_token:
            return Page(columns, rows, None, cut_to_budget=False, truncated=truncated)
        token, skip = next_token, 0


def _cells(row: Mapping[str, Any]) -> list[str | None]:
    return [cell.get("VarCharValue") for cell in row.get("Data", [])]


def _after(page: Mapping[str, Any], token: str | None, index: int, page_rows: int, answered: int) -> Cursor | None:
    """The cursor after row `index` of a page: within it, or at the start of the next page, or None at the end."""
    if index < page_rows:
        return Cursor(token, index, answered)
    next_token = page.get("NextToken")
    return Cursor(next_token, 0, answered) if next_token else None


def billed_cost(scanned_bytes: int | None, price_per_tb: float, charged: bool) -> dict[str, Any]:
    """What Athena bills for a query at `price_per_tb` (USD): rounded up to the megabyte, 10 MB at least.

    `charged` is False for what Athena does not bill (DDL and utility statements, failed queries)."""
    scanned = scanned_bytes or 0
    billed = max(math.ceil(scanned / BYTES_PER_MB) * BYTES_PER_MB, MINIMUM_BILLED_BYTES) if charged else 0
    return {"data_scanned_bytes": scanned, "billed_bytes": billed,
            "cost_usd": round(billed * price_per_tb / BYTES_PER_TB, 9), "price_per_tb_usd": price_per_tb}
