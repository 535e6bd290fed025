"""Reads of Iceberg tables for the demo's Athena: time travel and metadata tables (demo and tests only).

A Glue table with `table_type=ICEBERG` is read from its `metadata_location`, as Athena reads it.
pyiceberg loads that metadata and picks the snapshot the query names, else the current one. It plans
the data files: what the caller must be allowed to read, and the bytes scanned. DuckDB reads them as
Arrow. `"<table>$snapshots"` and its kin are pyiceberg's `inspect` tables. Errors use Trino's words.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa
from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    BooleanExpression,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    LessThan,
    LessThanOrEqual,
    NotEqualTo,
)
from pyiceberg.expressions.visitors import bind
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.table.snapshots import Snapshot
from sqlglot import exp
from sqlglot.dialects import DuckDB

from aws_data_mcp_demo.emulator.iceberg_io import MotoFileIO, io_properties
from aws_data_mcp_demo.engine.failures import QueryFailure, first_identifier, position

METADATA_TABLES: dict[str, Callable[[Any], pa.Table]] = {
    "snapshots": lambda inspect: inspect.snapshots(),
    "history": lambda inspect: inspect.history(),
    "files": lambda inspect: inspect.files(),
    "manifests": lambda inspect: inspect.manifests(),
    "partitions": lambda inspect: inspect.partitions(),
    "refs": lambda inspect: inspect.refs(),
}
"""The metadata tables Athena answers for an Iceberg table (``"t$<name>"``), each pyiceberg's inspect table."""

_INVALID_ARGUMENTS = 1000
_NOT_SUPPORTED = 1000


@dataclass(frozen=True)
class IcebergRead:
    """One read of an Iceberg table (a snapshot's rows) or of one of its metadata tables."""

    name: str
    """The name the query reads it by: the table's, or ``table$snapshots``."""
    definition: dict[str, Any]
    """The Glue definition, its columns those of the rows read."""
    objects: tuple[tuple[tuple[str, ...], str, Any], ...]
    """The data files read: (no partition values, S3 path, moto's object)."""
    rows: int
    arrow: Callable[[], pa.Table]
    """Reads the rows (when the query runs, after the caller's reads are authorised)."""


def is_iceberg(definition: dict[str, Any]) -> bool:
    return str((definition.get("Parameters") or {}).get("table_type", "")).upper() == "ICEBERG"


def glue_name(name: str) -> str:
    """The Glue table a read names: ``orders_iceberg`` for ``orders_iceberg$snapshots`` too."""
    return name.partition("$")[0]


def needs_iceberg(table: exp.Table, definition: dict[str, Any]) -> bool:
    """Whether a read is this module's: an Iceberg table, a metadata table or a time travel."""
    return is_iceberg(definition) or "$" in table.name or table.args.get("version") is not None


def read_iceberg(table: exp.Table, sql: str, schema: str, definition: dict[str, Any], account_id: str,
                 ) -> IcebergRead:
    """The read `table` (a reference in the query `sql`) makes of the Glue table `definition`. Takes the time
    travel clause off `table`: what it reads is settled here."""
    name, _, kind = table.name.lower().partition("$")
    version: exp.Version | None = table.args.get("version")
    where = position(sql, first_identifier(table))
    if not is_iceberg(definition):
        if kind:
            raise QueryFailure(f"TABLE_NOT_FOUND: {where}Table 'awsdatacatalog.{schema}.{table.name.lower()}' does "
                               "not exist", error_type=1000)
        raise QueryFailure(f"NOT_SUPPORTED: {where}This connector does not support versioned tables",
                           error_type=_NOT_SUPPORTED)
    properties = io_properties(account_id)
    iceberg = StaticTable.from_metadata(definition["Parameters"]["metadata_location"], properties)
    table.set("version", None)
    if kind:
        if kind not in METADATA_TABLES:
            raise QueryFailure(f"TABLE_NOT_FOUND: {where}Table 'awsdatacatalog.{schema}.{table.name.lower()}' does "
                               "not exist", error_type=1000)
        if version is not None:
            raise QueryFailure(f"NOT_SUPPORTED: {where}This connector does not support versioned tables",
                               error_type=_NOT_SUPPORTED)
        rows = _athena_typed(METADATA_TABLES[kind](iceberg.inspect))
        return IcebergRead(f"{name}${kind}", _described(definition, rows.schema), (), rows.num_rows, lambda: rows)
    snapshot = _snapshot(iceberg, version, schema, name, where) if version is not None else iceberg.current_snapshot()
    if snapshot is None:  # a table with no snapshot yet: no rows
        empty = iceberg.schema().as_arrow().empty_table()
        return IcebergRead(name, _described(definition, empty.schema), (), 0, lambda: empty)
    scan = iceberg.scan(snapshot_id=snapshot.snapshot_id, row_filter=pruning(table, iceberg.schema()),
                        case_sensitive=False)
    file_io = MotoFileIO(properties)
    objects = tuple(((), task.file.file_path, file_io.key(task.file.file_path)) for task in scan.plan_files())
    total = int(snapshot.summary.get("total-records", 0)) if snapshot.summary is not None else 0
    return IcebergRead(name, _described(definition, iceberg.schema().as_arrow()), objects, total, scan.to_arrow)


_COMPARED = {exp.EQ: EqualTo, exp.NEQ: NotEqualTo, exp.GT: GreaterThan, exp.GTE: GreaterThanOrEqual,
             exp.LT: LessThan, exp.LTE: LessThanOrEqual}


def _literal(node: exp.Expression) -> Any:
    """A plain literal's value (a TIMESTAMP or DATE literal as ISO text, as pyiceberg reads it); else ValueError."""
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        return node.this.this.strip().replace(" ", "T", 1)
    if not isinstance(node, exp.Literal):
        raise ValueError(node)
    return node.this if node.is_string else float(node.this) if "." in node.this else int(node.this)


def pruning(table: exp.Table, schema: Schema) -> BooleanExpression:
    """The WHERE conjuncts of the SELECT that reads the table alone (a column of it against a literal), as the
    scan's filter: pyiceberg prunes manifests and files by partition and column statistics, as Athena does. Any
    other condition reads every file (never fewer rows: the query applies its WHERE anyway)."""
    select = table.find_ancestor(exp.Select)
    where = select.args.get("where") if select is not None else None
    if where is None or select.args.get("joins"):
        return AlwaysTrue()
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    kept: list[BooleanExpression] = []
    for condition in conjuncts:
        try:
            if type(condition) in _COMPARED and isinstance(condition.this, exp.Column):
                found = _COMPARED[type(condition)](condition.this.name, _literal(condition.expression))
            elif isinstance(condition, exp.Between) and isinstance(condition.this, exp.Column):
                name = condition.this.name
                found = And(GreaterThanOrEqual(name, _literal(condition.args["low"])),
                            LessThanOrEqual(name, _literal(condition.args["high"])))
            else:
                continue
            bind(schema, found, case_sensitive=False)  # a column of the table, a value of its type
        except (ValueError, TypeError, KeyError):
            continue
        kept.append(found)
    return And(*kept) if len(kept) > 1 else kept[0] if kept else AlwaysTrue()


def _athena_typed(rows: pa.Table) -> pa.Table:
    """pyiceberg's commit times (naive, in UTC) typed as Athena's metadata tables type them: with time zone."""
    fields = [field.with_type(pa.timestamp(field.type.unit, "UTC"))
              if pa.types.is_timestamp(field.type) and field.type.tz is None else field for field in rows.schema]
    return rows.cast(pa.schema(fields))


def _glue_type(kind: pa.DataType) -> str:
    """An Arrow column's type as Glue names it, so the engine types the query as Athena would."""
    if pa.types.is_decimal(kind):
        return f"decimal({kind.precision},{kind.scale})"
    simple = [(pa.types.is_int64, "bigint"), (pa.types.is_integer, "int"), (pa.types.is_float64, "double"),
              (pa.types.is_floating, "float"), (pa.types.is_boolean, "boolean"), (pa.types.is_timestamp, "timestamp"),
              (pa.types.is_date, "date")]
    return next((name for test, name in simple if test(kind)), "string")


def _described(definition: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """The Glue definition with the columns of what is read (a metadata table's are its own), no partition keys."""
    descriptor = {**definition["StorageDescriptor"], "Columns": [{"Name": field.name, "Type": _glue_type(field.type)}
                                                                for field in schema]}
    return {**definition, "StorageDescriptor": descriptor, "PartitionKeys": []}


def _value(expression: exp.Expression) -> Any:
    """A time travel clause's value, as the engine evaluates it (session time zone UTC)."""
    with duckdb.connect() as connection:
        connection.execute("SET TimeZone = 'UTC'")
        try:
            return connection.execute(f"SELECT {expression.sql(DuckDB)}").fetchone()[0]  # type: ignore[index]
        except duckdb.Error as error:
            raise QueryFailure(f"INVALID_ARGUMENTS: {str(error).splitlines()[0]}", error_type=_INVALID_ARGUMENTS) \
                from None


def _snapshot(iceberg: StaticTable, version: exp.Version, schema: str, name: str, where: str) -> Snapshot:
    """The snapshot ``FOR VERSION AS OF`` / ``FOR TIMESTAMP AS OF`` names, or Trino's error."""
    value = _value(version.expression)
    if version.name.upper() == "VERSION":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise QueryFailure(f"NOT_SUPPORTED: {where}Unsupported type for table version: "
                               f"{type(value).__name__}", error_type=_NOT_SUPPORTED)
        if isinstance(value, str):
            found = iceberg.snapshot_by_name(value)
            if found is None:
                raise QueryFailure(f"INVALID_ARGUMENTS: {where}Cannot find snapshot with reference name: {value}",
                                   error_type=_INVALID_ARGUMENTS)
            return found
        found = iceberg.snapshot_by_id(value)
        if found is None:
            raise QueryFailure(f"INVALID_ARGUMENTS: {where}Iceberg snapshot ID does not exist: {value}",
                               error_type=_INVALID_ARGUMENTS)
        return found
    if not isinstance(value, datetime):
        raise QueryFailure(f"TYPE_MISMATCH: {where}Pointer type for TIMESTAMP AS OF must be a timestamp",
                           error_type=1000)
    moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    at = int(moment.timestamp() * 1000)
    found = iceberg.snapshot_as_of_timestamp(at)
    if found is None:
        instant = moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        raise QueryFailure(f'INVALID_ARGUMENTS: {where}No version history table "{schema}"."{name}" at or before '
                           f"{instant}", error_type=_INVALID_ARGUMENTS)
    return found
