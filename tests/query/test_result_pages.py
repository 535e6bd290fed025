"""Pages of an Athena result: typed cells, the row cap and the budget, and a cursor that resumes exactly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.query.result_pages import FIRST_PAGE, Cursor, billed_cost, read_page, typed_value
from aws_data_mcp.server.rendering import to_json

COLUMNS = [{"Name": "id", "Type": "integer"}, {"Name": "name", "Type": "varchar"}]


class FakeResults:
    """GetQueryResults over `total` rows, with the header row on the first page as Athena serves a SELECT."""

    def __init__(self, total: int) -> None:
        self.rows = [[str(i), f"name-{i}"] for i in range(total)]
        self.calls: list[tuple[str | None, int]] = []

    def __call__(self, token: str | None, max_results: int) -> Mapping[str, Any]:
        self.calls.append((token, max_results))
        start = int(token) if token else 0
        header = [] if token else [[c["Name"] for c in COLUMNS]]
        body = self.rows[start:start + max_results - len(header)]
        end = start + len(body)
        page: dict[str, Any] = {"ResultSet": {"ResultSetMetadata": {"ColumnInfo": COLUMNS},
                                              "Rows": [{"Data": [{"VarCharValue": v} for v in row]}
                                                       for row in header + body]}}
        if end < len(self.rows):
            page["NextToken"] = str(end)
        return page


def read_all(results: FakeResults, max_rows: int, budget: int) -> list[list[Any]]:
    cursor: Cursor | None = FIRST_PAGE
    seen: list[list[Any]] = []
    while cursor is not None:
        page = read_page(results, Cursor.decode(cursor.encode()), max_rows=max_rows, char_budget=budget,
                         header_row=True)
        assert page.rows or page.next_cursor is None, "every answer advances"
        assert len(page.rows) <= max_rows
        seen += page.rows
        cursor = page.next_cursor
        if cursor is not None:
            assert cursor.answered == len(seen)
    return seen


@pytest.mark.parametrize(("total", "max_rows", "budget"), [
    (0, 10, 10_000), (1, 10, 10_000), (2500, 1000, 1_000_000), (2500, 999, 1_000_000), (2500, 700, 5_000),
    (1000, 1000, 1_000_000), (1001, 1000, 1_000_000), (300, 7, 60),
])
def test_every_row_once_in_order(total: int, max_rows: int, budget: int) -> None:
    results = FakeResults(total)
    assert read_all(results, max_rows, budget) == [[i, f"name-{i}"] for i in range(total)]


def test_an_uncut_walk_costs_one_call_per_athena_page() -> None:
    results = FakeResults(5000)
    read_all(results, 1000, 10_000_000)
    assert len(results.calls) == 6  # 5000 rows + the header: six pages of at most 1000
    assert all(size <= 1000 for _, size in results.calls)


def test_a_value_longer_than_any_answer_is_cut_marked_and_answered_alone() -> None:
    results = FakeResults(3)
    results.rows[1][1] = "y\n" * 5000  # escaped in JSON: 3 characters each
    first = read_page(results, FIRST_PAGE, max_rows=10, char_budget=400, header_row=True)
    assert first.rows == [[0, "name-0"]] and first.cut_to_budget and not first.truncated
    assert first.next_cursor is not None
    alone = read_page(results, first.next_cursor, max_rows=10, char_budget=400, header_row=True)
    [[row_id, kept]] = alone.rows
    assert row_id == 1 and 0 < len(kept) < 400 and results.rows[1][1].startswith(kept)
    assert alone.truncated == [{"row": 1, "column": "name", "original_length": 10_000, "kept_length": len(kept)}]
    assert len(to_json(alone.rows[0])) + len(to_json(alone.truncated)) <= 400
    assert alone.next_cursor is not None
    last = read_page(results, alone.next_cursor, max_rows=10, char_budget=400, header_row=True)
    assert last.rows == [[2, "name-2"]] and last.next_cursor is None and not last.truncated


def test_rows_larger_than_a_tiny_budget_still_advance() -> None:
    assert [row[0] for row in read_all(FakeResults(3), 10, 1)] == [0, 1, 2]


@pytest.mark.parametrize("cursor", ["x", "e30", "WyJ0IiwtMSwwXQ", "bnVsbA", "W251bGwsdHJ1ZSwwXQ"])
def test_a_cursor_this_server_did_not_issue_is_invalid(cursor: str) -> None:
    with pytest.raises(ResourceFailure) as refused:
        Cursor.decode(cursor)
    assert refused.value.code.value == "invalid_argument"


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("integer", "42", 42), ("bigint", "-9007199254740993", -9007199254740993), ("double", "1.5", 1.5),
    ("double", "NaN", "NaN"), ("double", "Infinity", "Infinity"), ("decimal(38,9)", "12345678901234567.123456789",
                                                                   "12345678901234567.123456789"),
    ("boolean", "true", True), ("boolean", "false", False), ("date", "2024-01-31", "2024-01-31"),
    ("timestamp", "2024-01-31 12:34:56.789", "2024-01-31T12:34:56.789"),
    ("timestamp(3) with time zone", "2024-01-31 12:34:56.789 UTC", "2024-01-31T12:34:56.789 UTC"),
    ("varchar", "", ""), ("varchar", None, None), ("integer", None, None), ("array", "[1, 2]", "[1, 2]"),
    ("map", "{a=1}", "{a=1}"), ("row", "{x=1, y=2}", "{x=1, y=2}"), (None, "x", "x"),
])
def test_typed_values(kind: str | None, text: str | None, value: Any) -> None:
    assert typed_value(kind, text) == value


def test_cost_is_billed_by_the_megabyte_with_athenas_minimum() -> None:
    assert billed_cost(1, 5.0, charged=True)["billed_bytes"] == 10 * (1 << 20)
    assert billed_cost(11 * (1 << 20) + 1, 5.0, charged=True)["billed_bytes"] == 12 * (1 << 20)
    assert billed_cost(1 << 40, 5.0, charged=True)["cost_usd"] == 5.0
    assert billed_cost(1 << 40, 5.0, charged=False) == {
        "data_scanned_bytes": 1 << 40, "billed_bytes": 0, "cost_usd": 0.0, "price_per_tb_usd": 5.0}
