"""Which format a Glue table is in, and what Athena can do with a Delta Lake or Hudi table.

Glue keeps little that says so: the `table_type` parameter (Iceberg, Delta), the input format and SerDe (Hudi's
input formats, Parquet's, ORC's), a crawler's `classification`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

HUDI_REALTIME = "hoodieparquetrealtimeinputformat"
"""The input format of a merge-on-read table's real-time (`_rt`) view: log files merged at read time."""


class DeltaTable(TypedDict):
    time_travel: Literal[False]
    log_location: str | None
    """The transaction log Athena reads the table's current files from (`_delta_log/` under the location)."""
    note: str


class HudiTable(TypedDict):
    table_type: Literal["copy_on_write", "merge_on_read"] | None
    view: Literal["snapshot", "read_optimized"] | None
    """Which of a merge-on-read table's two Glue tables this is: `_rt` (snapshot) or `_ro` (read optimized)."""
    query: str
    """Which table to query for what."""


def table_format(table: Mapping[str, Any]) -> str | None:
    """What a user calls the format: a view, an open table format, Glue's classification, else read off the SerDe
    and input format."""
    if table.get("TableType") == "VIRTUAL_VIEW":
        return "view"
    parameters = table.get("Parameters") or {}
    declared = str(parameters.get("table_type", "")).lower()
    if declared in ("iceberg", "delta"):
        return declared
    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    hints = f"{descriptor.get('InputFormat', '')} {serde.get('SerializationLibrary', '')}".lower()
    if "hudi" in hints:  # HoodieParquetInputFormat: Hudi, though its files are Parquet
        return "hudi"
    if parameters.get("classification"):
        return str(parameters["classification"]).lower()
    for name in ("parquet", "orc", "avro", "json", "delta"):
        if name in hints:
            return name
    if "lazysimpleserde" in hints or "opencsvserde" in hints:
        return "tsv" if (serde.get("Parameters") or {}).get("field.delim") == "\t" else "csv"
    return None


def describe_delta(location: str | None) -> DeltaTable:
    log = f"{location.rstrip('/')}/_delta_log/" if location else None
    return DeltaTable(time_travel=False, log_location=log, note=(
        "Athena reads a Delta Lake table's latest version from its transaction log. It has no time travel for "
        "Delta: FOR VERSION AS OF and FOR TIMESTAMP AS OF fail; an older version needs Spark or another engine."))


def _declared_type(parameters: Mapping[str, Any]) -> str | None:
    """Hudi's own word for the table type, where a writer left it (Hive sync, Spark SQL's `type` property)."""
    for name in ("hoodie.table.type", "hoodie.datasource.write.table.type", "type"):
        value = str(parameters.get(name, "")).lower().replace("-", "_")
        if value in ("cow", "copy_on_write"):
            return "copy_on_write"
        if value in ("mor", "merge_on_read"):
            return "merge_on_read"
    return None


def describe_hudi(table: Mapping[str, Any]) -> HudiTable:
    """Copy-on-write or merge-on-read, and which Glue table answers what: Hive sync registers a merge-on-read table
    twice, `<name>_rt` (the latest data, log files merged as it is read) and `<name>_ro` (compacted files only)."""
    name = str(table.get("Name", ""))
    input_format = str((table.get("StorageDescriptor") or {}).get("InputFormat", "")).lower()
    declared = _declared_type(table.get("Parameters") or {})
    base = name[:-3] if name.endswith(("_rt", "_ro")) else name
    if HUDI_REALTIME in input_format or (name.endswith("_rt") and declared != "copy_on_write"):
        return HudiTable(table_type="merge_on_read", view="snapshot", query=(
            f"Query {name} for the latest data (log files merged as they are read); {base}_ro reads the compacted "
            "files only, faster and older."))
    if name.endswith("_ro") and declared != "copy_on_write":
        return HudiTable(table_type="merge_on_read", view="read_optimized", query=(
            f"{name} reads the compacted files only: changes not yet compacted are missing. Query {base}_rt for "
            "the latest data."))
    if declared == "merge_on_read":
        return HudiTable(table_type="merge_on_read", view=None, query=(
            f"A merge-on-read table registered without its views: query {name}_rt for the latest data, "
            f"{name}_ro for compacted files only, where Hive sync made them."))
    return HudiTable(table_type="copy_on_write" if declared else None, view=None, query=(
        f"Copy-on-write: query {name}; every write rewrites files, so it reads the latest data." if declared else
        f"Query {name}. Glue does not say copy-on-write or merge-on-read; no _rt or _ro table and no real-time "
        "input format here, so it reads as copy-on-write."))
