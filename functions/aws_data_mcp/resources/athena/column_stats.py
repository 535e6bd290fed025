"""A table's column statistics, as Glue keeps them (GetColumnStatisticsForTable), on the table resource.

An agent writing SQL guesses less when it knows how many distinct values a column takes, how many are null and
its range. Glue's column statistics task computes these (and Athena's cost-based optimizer reads them); reading
them costs one call per 100 columns (the API's limit), in the table read's one wave, and no query. Absent
statistics are said as such, with the one command that computes them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from functools import partial
from typing import Any, NotRequired, TypedDict

from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, chunks, iso

ACTION = "glue:GetColumnStatisticsForTable"
COLUMNS_PER_CALL = 100
"""GetColumnStatisticsForTable's ColumnNames takes at most 100 names."""


class ColumnStatistic(TypedDict):
    """One column's statistics as Glue computed them; each figure only where Glue keeps it for the column's type."""

    type: str
    """Glue's statistics type: LONG, DOUBLE, DECIMAL, DATE, STRING, BOOLEAN or BINARY."""
    nulls: int | None
    distinct: NotRequired[int]
    """Glue's estimate of the number of distinct values."""
    min: NotRequired[int | float | str]
    """The smallest value (a decimal as exact text, a date as yyyy-MM-dd)."""
    max: NotRequired[int | float | str]
    average_length: NotRequired[float]
    max_length: NotRequired[int]
    trues: NotRequired[int]
    falses: NotRequired[int]
    analyzed: str | None
    """When Glue computed them."""


class ColumnStatistics(TypedDict):
    source: str
    columns: dict[str, ColumnStatistic]
    """Column name -> its statistics, for the columns Glue has them for."""
    missing: list[str]
    """The table's columns of a type Glue computes statistics for, with none."""
    not_computed: list[str]
    """The columns of a type Glue computes no statistics for (timestamps, arrays, maps, structs)."""
    compute: str | None
    """The command that computes the missing ones (Glue's column statistics task; its role reads the table)."""
    note: str
    error: NotRequired[ItemError]


_TYPES = (("tinyint", "LONG"), ("smallint", "LONG"), ("int", "LONG"), ("bigint", "LONG"), ("float", "DOUBLE"),
          ("double", "DOUBLE"), ("decimal", "DECIMAL"), ("date", "DATE"), ("string", "STRING"),
          ("varchar", "STRING"), ("char", "STRING"), ("boolean", "BOOLEAN"), ("binary", "BINARY"))


def statistics_type(glue_type: str | None) -> str | None:
    """The statistics type Glue computes for a column of `glue_type`; None for one it computes none for (timestamps,
    arrays, maps, structs)."""
    head = (glue_type or "").strip().lower().partition("(")[0].partition("<")[0].strip()
    return dict(_TYPES).get(head)


def statistics_calls(glue: Any, database: str, table: str, columns: Sequence[str],
                     catalog_id: str | None = None) -> list[Call[Any]]:
    """One GetColumnStatisticsForTable per 100 of the table's columns (partition keys have theirs per partition)."""
    where = {"CatalogId": catalog_id} if catalog_id else {}
    return [Call(ACTION, partial(glue.get_column_statistics_for_table, DatabaseName=database, TableName=table,
                                 ColumnNames=names, **where))
            for names in chunks(list(columns), COLUMNS_PER_CALL)]


def compute_command(database: str, table: str) -> str:
    return (f"aws glue start-column-statistics-task-run --database-name {database} --table-name {table} "
            "--role <an IAM role Glue assumes that may read the table's data>")


def _decimal(number: Mapping[str, Any] | None) -> str | None:
    """Glue's DecimalNumber (big-endian two's-complement unscaled bytes and a scale) as exact text."""
    if not number:
        return None
    unscaled = number.get("UnscaledValue") or b""
    raw = base64.b64decode(unscaled) if isinstance(unscaled, str) else bytes(unscaled)
    return str(Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-int(number.get("Scale") or 0)))


def _day(value: Any) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    return value.isoformat() if isinstance(value, date) else value


_DATA = {"LONG": "LongColumnStatisticsData", "DOUBLE": "DoubleColumnStatisticsData",
         "DECIMAL": "DecimalColumnStatisticsData", "DATE": "DateColumnStatisticsData",
         "STRING": "StringColumnStatisticsData", "BOOLEAN": "BooleanColumnStatisticsData",
         "BINARY": "BinaryColumnStatisticsData"}
_RANGE = {"DECIMAL": _decimal, "DATE": _day}


def describe_statistic(found: Mapping[str, Any]) -> ColumnStatistic:
    """One ColumnStatistics entry of Glue's answer, shaped for a reader."""
    data = found.get("StatisticsData") or {}
    kind = str(data.get("Type") or "")
    figures = data.get(_DATA.get(kind, ""), {}) or {}
    entry = ColumnStatistic(type=kind, nulls=figures.get("NumberOfNulls"), analyzed=iso(found.get("AnalyzedTime")))
    if "NumberOfDistinctValues" in figures:
        entry["distinct"] = figures["NumberOfDistinctValues"]
    shape = _RANGE.get(kind, lambda value: value)
    for key, field in (("min", "MinimumValue"), ("max", "MaximumValue")):
        if figures.get(field) is not None:
            entry[key] = shape(figures[field])  # type: ignore[literal-required]
    for key, field in (("average_length", "AverageLength"), ("max_length", "MaximumLength"),
                       ("trues", "NumberOfTrues"), ("falses", "NumberOfFalses")):
        if field in figures:
            entry[key] = figures[field]  # type: ignore[literal-required]
    return entry


def column_statistics(database: str, table: str, types: Mapping[str, str | None],
                      outcomes: Sequence[Outcome[Call[Any], Any]]) -> ColumnStatistics:
    """The statistics `statistics_calls` read, by column (`types`: each column shown and its Glue type; the others
    are left out); the columns without any named, with how to compute them."""
    columns = list(types)
    found: dict[str, ColumnStatistic] = {}
    for outcome in outcomes:
        for entry in (outcome.value or {}).get("ColumnStatisticsList") or [] if outcome.error is None else []:
            if entry["ColumnName"] in types:  # only the columns asked about: not those the caller may not read
                found[entry["ColumnName"]] = describe_statistic(entry)
    missing = [name for name in columns if name not in found and statistics_type(types[name])]
    failed = next((outcome.error for outcome in outcomes if outcome.error is not None), None)
    answer = ColumnStatistics(source=ACTION, columns=found, missing=missing,
                              not_computed=[name for name in columns if name not in found and name not in missing],
                              compute=compute_command(database, table) if missing else None, note="")
    if failed is not None:
        answer["error"] = failed.brief()
        answer["note"] = f"Glue's column statistics could not be read: {failed.message}."
    elif not found:
        answer["note"] = ("Glue has no column statistics for this table: `compute` computes them (no query is run "
                          "here for them).")
    else:
        answer["note"] = (f"Glue's statistics for {len(found)} of {len(columns)} columns, as of each column's "
                          "`analyzed`; `distinct` is Glue's estimate." + (" `compute` computes the others."
                                                                         if missing else ""))
    return answer
