"""A first query ready on the table resource: one cheap sample (the newest partition, a few columns, LIMIT 10) and
the `athena_query` call that estimates it (estimate_only: Athena's EXPLAIN (TYPE IO), which reads no data).

The estimate is not run here: a resource read starts no Athena query (it would cost an execution and seconds of
waiting on every read of every table); the agent runs the estimate, then the query, knowing the cost. Built from what
the table read already holds (columns, the caller's readable columns, the newest partition): no AWS call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict
from urllib.parse import quote

SAMPLE_COLUMNS = 5
SAMPLE_ROWS = 10
_NUMBERS = ("tinyint", "smallint", "int", "integer", "bigint", "double", "float", "decimal")


class FirstQuery(TypedDict):
    sql: str
    database: str
    estimate: dict[str, Any]
    """The `athena_query` tool and arguments that estimate the sample's scan without reading data."""
    estimated: str
    """The sub-resource that runs that estimate and answers it (a read of it starts the EXPLAIN)."""
    note: str


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str, glue_type: str | None) -> str:
    kind = (glue_type or "string").lower()
    if kind.startswith(_NUMBERS) and value.lstrip("-").replace(".", "", 1).isdigit():
        return value
    text = "'" + value.replace("'", "''") + "'"
    return f"DATE {text}" if kind == "date" else f"TIMESTAMP {text}" if kind == "timestamp" else text


def first_query(database: str, table: str, columns: Sequence[Mapping[str, Any]], keys: Sequence[Mapping[str, Any]],
                newest: Mapping[str, str] | None) -> FirstQuery | None:
    """The sample: the first readable columns, the partition keys, filtered on the newest partition where known;
    None where the caller may read no column (any query of it answers COLUMN_NOT_FOUND)."""
    readable = [c["name"] for c in columns if c.get("readable", True)][:SAMPLE_COLUMNS]
    shown = [*readable, *(k["name"] for k in keys if k.get("readable", True))] or (["*"] if not columns else [])
    if not shown:
        return None
    types = {k["name"]: k.get("type") for k in keys}
    where = " AND ".join(f"{_quoted(key)} = {_literal(value, types.get(key))}" for key, value in (newest or {}).items())
    sql = (f"SELECT {', '.join(c if c == '*' else _quoted(c) for c in shown)}\nFROM {_quoted(database)}."
           f"{_quoted(table)}" + (f"\nWHERE {where}" if where else "") + f"\nLIMIT {SAMPLE_ROWS}")
    note = ("The newest partition only, so Athena reads one partition's files." if where else
            "No partition to filter on: Athena may read every file of the table (LIMIT stops the rows, not the scan "
            "of text formats)." if not keys else
            "The newest partition is unknown: filter on a partition key before running it.")
    estimated = f"athena://databases/{quote(database, safe='')}/tables/{quote(table, safe='')}/first-query"
    return FirstQuery(sql=sql, database=database, note=note + " Estimate it first (no data read), then run it.",
                      estimated=estimated,
                      estimate={"tool": "athena_query",
                                "arguments": {"sql": sql, "database": database, "estimate_only": True}})
