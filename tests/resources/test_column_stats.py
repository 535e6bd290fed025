"""Glue's column statistics shaped for a reader, as plain functions: each statistics type, a negative decimal, a
column without statistics, a refused call."""

from __future__ import annotations

from datetime import UTC, datetime

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.resources.athena.column_stats import column_statistics, describe_statistic, statistics_type

WHEN = datetime(2026, 5, 1, 2, 0, tzinfo=UTC)


def _entry(name: str, kind: str, data: dict[str, object]) -> dict[str, object]:
    key = {"DECIMAL": "Decimal", "DATE": "Date", "STRING": "String", "BOOLEAN": "Boolean", "LONG": "Long"}[kind]
    return {"ColumnName": name, "AnalyzedTime": WHEN, "StatisticsData": {"Type": kind,
                                                                         f"{key}ColumnStatisticsData": data}}


def test_each_type_is_shown_in_a_readers_units() -> None:
    amount = describe_statistic(_entry("amount", "DECIMAL", {
        "MinimumValue": {"UnscaledValue": (-1250).to_bytes(2, "big", signed=True), "Scale": 2},
        "MaximumValue": {"UnscaledValue": (31415).to_bytes(3, "big", signed=True), "Scale": 2},
        "NumberOfNulls": 3, "NumberOfDistinctValues": 900}))
    assert amount == {"type": "DECIMAL", "nulls": 3, "distinct": 900, "min": "-12.50", "max": "314.15",
                      "analyzed": WHEN.isoformat()}
    day = describe_statistic(_entry("day", "DATE", {"MinimumValue": datetime(2026, 1, 1, tzinfo=UTC),
                                                    "MaximumValue": datetime(2026, 4, 30, tzinfo=UTC),
                                                    "NumberOfNulls": 0, "NumberOfDistinctValues": 120}))
    assert (day["min"], day["max"]) == ("2026-01-01", "2026-04-30")
    name = describe_statistic(_entry("name", "STRING", {"MaximumLength": 40, "AverageLength": 12.5,
                                                        "NumberOfNulls": 1, "NumberOfDistinctValues": 10}))
    assert (name["max_length"], name["average_length"], "min" in name) == (40, 12.5, False)
    active = describe_statistic(_entry("active", "BOOLEAN", {"NumberOfTrues": 7, "NumberOfFalses": 2,
                                                             "NumberOfNulls": 0}))
    assert (active["trues"], active["falses"], "distinct" in active) == (7, 2, False)


def test_columns_without_statistics_are_named_with_the_command_and_unsupported_types_apart() -> None:
    call = Call("glue:GetColumnStatisticsForTable", lambda: None)
    found = Outcome(call, {"ColumnStatisticsList": [_entry("n", "LONG", {"MinimumValue": 1, "MaximumValue": 9,
                                                                          "NumberOfNulls": 0,
                                                                          "NumberOfDistinctValues": 9})]})
    answer = column_statistics("sales", "orders", {"n": "int", "city": "string", "at": "timestamp"}, [found])
    assert list(answer["columns"]) == ["n"] and answer["missing"] == ["city"] and answer["not_computed"] == ["at"]
    assert answer["compute"] is not None and "--database-name sales --table-name orders" in answer["compute"]
    assert [statistics_type(t) for t in ("decimal(12,2)", "array<int>", "varchar(10)", "timestamp")] == [
        "DECIMAL", None, "STRING", None]


def test_a_refused_read_is_said_with_its_action() -> None:
    call = Call("glue:GetColumnStatisticsForTable", lambda: None)
    refused = ResourceFailure(ErrorCode.ACCESS_DENIED, "not allowed", action="glue:GetColumnStatisticsForTable")
    answer = column_statistics("sales", "orders", {"n": "int"}, [Outcome(call, None, refused)])
    assert answer["columns"] == {} and answer["error"]["action"] == "glue:GetColumnStatisticsForTable"
    assert "could not be read" in answer["note"]
