"""One Athena query run over the emulated account's own data lake (demo and tests only).

sqlglot transpiles Athena's SQL to DuckDB. DuckDB runs it over views of the objects Glue names. Each
table read prunes its partitions and counts its bytes, as Athena does (docs/demo.md). Dialects are
named by class, never by string. A string is imported on first use. Two threads' first uses would
race on the half-imported module.
"""

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import duckdb
import sqlglot
from duckdb.sqltypes import DuckDBPyType
from moto.glue.models import FakeTable, glue_backends
from sqlglot import exp
from sqlglot.dialects import Athena
from sqlglot.errors import ParseError

from aws_data_mcp_demo.engine.columns import READ_INDEX, columns_read, scanned_bytes
from aws_data_mcp_demo.engine.failures import QueryFailure, first_identifier, position
from aws_data_mcp_demo.engine.files import Source, create_view, local_path, objects_under, sql_string
from aws_data_mcp_demo.engine.iceberg import glue_name, needs_iceberg, read_iceberg
from aws_data_mcp_demo.engine.partition_pruning import partition_filter
from aws_data_mcp_demo.engine.projection import is_projected, projected_partitions
from aws_data_mcp_demo.engine.resource_links import follow_link
from aws_data_mcp_demo.engine.s3_tables import is_s3_table, is_s3_tables_catalog, s3_table_definition
from aws_data_mcp_demo.engine.trino_semantics import (
    TrinoRefusal,
    annotate,
    duckdb_sql,
    not_supported,
    refuse,
    rewrite,
    syntax_refusal,
    unknown_function,
)
from aws_data_mcp_demo.engine.views import expand_views, reader

_CATALOG = "awsdatacatalog"
_EXPLAIN_IO = re.compile(r"^\s*EXPLAIN\s*\((?P<options>[^()]*)\)(?P<query>.*)$", re.IGNORECASE | re.DOTALL)
_IO_OPTIONS = re.compile(r"^\s*TYPE\s+IO\s*(?:,\s*FORMAT\s+JSON\s*)?$|^\s*FORMAT\s+JSON\s*,\s*TYPE\s+IO\s*$",
                         re.IGNORECASE)
_UNKNOWN_ESTIMATE = {name: "NaN" for name in ("outputRowCount", "outputSizeInBytes", "cpuCost", "maxMemory",
                                              "networkCost")}
"""Trino's estimate of a plan node without table statistics: every figure unknown (and of the query's output, which
the demo does not estimate)."""
_TEXT_INPUTS = ("TextInputFormat",)
_QUALIFIED_MISSING = re.compile(r'"([^"]+)" does not have a column named "([^"]+)"')
"""DuckDB's binder on a qualified column its table (alias) lacks: ``Values list "x" does not have a column ...``."""
_NO_MATCH = re.compile(r"No function matches the given name and argument types '(\w+)\(")
_READS_SCHEMA = "lake_reads"
"""The DuckDB schema of the views a statement reads through, one per table reference."""


class Access(Protocol):
    """What Athena checks as the query's caller before it reads (``athena_access.CallerAccess``); each check raises
    QueryFailure with Athena's words when the caller may not."""

    def catalog(self, database: str, table: str, partitioned: bool) -> None:
        """Glue's reads of the table's definition (and partitions)."""

    def data_catalog_view(self, database: str, view: str, definition: dict[str, Any]) -> None:
        """A Data Catalog view's own check: the caller's Lake Formation SELECT on it."""

    def columns(self, database: str, table: str, definition: dict[str, Any]) -> frozenset[str] | None:
        """The columns Lake Formation lets the caller read; None where it does not govern the table's location."""

    def read(self, source: Source) -> None:
        """The caller's reads of the table's files (outside Lake Formation)."""

    def row_filter(self, database: str, table: str) -> str | None:
        """The rows Lake Formation lets the caller read (a data cells filter's expression); None: every row."""

    def shared(self, database: str, link: str, target: dict[str, Any], definition: dict[str, Any]) -> frozenset[str]:
        """A resource link's checks (DESCRIBE on it, SELECT on its target): the target's readable columns."""

    def s3_table(self, catalog: str, database: str, table: str, bucket_arn: str, table_arn: str) -> None:
        """Glue's reads in an S3 table bucket's catalog and S3 Tables' of the table (``engine.s3_tables``)."""


class ScanLimitExceeded(Exception):
    """The query would read more than the workgroup's BytesScannedCutoffPerQuery."""

    def __init__(self, scanned: int) -> None:
        super().__init__(scanned)
        self.scanned = scanned


@dataclass(frozen=True)
class ColumnInfo:
    """One result column as Athena's ResultSetMetadata describes it."""

    name: str
    type: str
    precision: int
    scale: int

    def as_dict(self) -> dict[str, Any]:
        return {"CatalogName": "hive", "SchemaName": "", "TableName": "", "Name": self.name, "Label": self.name,
                "Type": self.type, "Precision": self.precision, "Scale": self.scale, "Nullable": "UNKNOWN",
                "CaseSensitive": self.type == "varchar"}


@dataclass
class QueryResult:
    """Where a finished query's rows are kept, and what describes them."""

    path: Path
    columns: tuple[ColumnInfo, ...]
    row_count: int
    scanned_bytes: int
    header_row: bool = True
    """Whether GetQueryResults' first page starts with the column names: a query's result does, EXPLAIN's not."""
    _reader: duckdb.DuckDBPyConnection | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def rows(self, start: int, stop: int) -> list[tuple[str | None, ...]]:
        """Rows ``start`` (inclusive) to ``stop`` (exclusive), as Athena's text values (None for NULL)."""
        with self._lock:  # one reader per result, kept open: a page is read in milliseconds, not a connect
            if self._reader is None:
                self._reader = duckdb.connect(str(self.path), read_only=True)
            return self._reader.execute(
                "SELECT * FROM result WHERE rowid >= ? AND rowid < ? ORDER BY rowid", [start, stop]
            ).fetchall()

    def close(self) -> None:
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


# --------------------------------------------------------------------------- errors as Athena words them

def _syntax_failure(error: ParseError, sql: str) -> QueryFailure:
    detail = error.errors[0] if error.errors else {}
    refusal = syntax_refusal(sql, detail["line"], detail.get("col", 1)) if detail.get("line") else None
    if refusal is not None:
        return _refusal(refusal)
    start = detail.get("col", 0) - len(detail.get("highlight") or "x") + 1  # sqlglot counts to the token's end
    where = f"line {detail['line']}:{start}: " if detail.get("line") else ""
    found = f" at '{detail['highlight']}'" if detail.get("highlight") else ""
    return QueryFailure(f"SYNTAX_ERROR: {where}{detail.get('description', str(error))}{found}", error_type=1006)


def _engine_failure(error: duckdb.Error, sql: str, tree: exp.Expression, files: dict[str, tuple[str, str]],
                    ) -> QueryFailure:
    """A DuckDB error in Athena's words, placed on the submitted text where the culprit can be found. An error
    about one of the tables' files (`files`: local copy to table and S3 object) is Athena's data error, naming the
    table and the S3 object, never the local copy."""
    text = str(error).split("\n", 1)[0].split(": ", 1)[-1]
    named = next(((local, *found) for local, found in files.items() if local in text), None)
    if named is not None:
        local, table, s3_path = named
        return QueryFailure(f"HIVE_BAD_DATA: {text.replace(local, s3_path)} (table {table})", error_type=1001)
    if isinstance(error, duckdb.BinderException) and 'Referenced column "' in text:
        name = text.split('"')[1]
        column = next((c for c in tree.find_all(exp.Column) if c.name.lower() == name.lower()), None)
        where = position(sql, first_identifier(column)) if column is not None else ""
        return QueryFailure(f"COLUMN_NOT_FOUND: {where}Column '{name}' cannot be resolved or requester is not "
                            "authorized to access requested resources", error_type=1000)
    qualified = _QUALIFIED_MISSING.search(text) if isinstance(error, duckdb.BinderException) else None
    if qualified is not None:  # `x.col` where the read `x` has no such column (or none the caller may read)
        alias, name = qualified.group(1), qualified.group(2)
        column = next((c for c in tree.find_all(exp.Column) if c.name.lower() == name.lower()
                       and c.table.lower() == alias.lower()), None)
        where = position(sql, first_identifier(column)) if column is not None else ""
        return QueryFailure(f"COLUMN_NOT_FOUND: {where}Column '{alias}.{name}' cannot be resolved or requester is "
                            "not authorized to access requested resources", error_type=1000)
    if isinstance(error, duckdb.CatalogException) and "Function with name" in text:
        return _refusal(unknown_function(text.split("name ", 1)[1].split(" ", 1)[0], tree, sql))
    matched = _NO_MATCH.search(text) if isinstance(error, duckdb.BinderException) else None
    if matched is not None:  # DuckDB has the function, not for these arguments: Trino's, the demo cannot compute
        return _refusal(unknown_function(matched.group(1), tree, sql))
    if "Expected OBJECT, but got ARRAY" in text:  # Trino casts a JSON array to a row by position, DuckDB cannot
        return _refusal(not_supported("CAST of a JSON array to a row"))
    if "Division by zero" in text:
        return QueryFailure("DIVISION_BY_ZERO: Division by zero", error_type=1000)
    if isinstance(error, duckdb.ConversionException | duckdb.InvalidInputException):
        return QueryFailure(f"INVALID_CAST_ARGUMENT: {text}", error_type=1000)
    if isinstance(error, duckdb.IOException):
        return QueryFailure(f"HIVE_BAD_DATA: {text}", error_type=1001)
    if isinstance(error, duckdb.ParserException | duckdb.BinderException | duckdb.CatalogException):
        # DuckDB could not read what the demo wrote for it: a form of Trino's it cannot compute, never its words
        return _refusal(not_supported("this statement's expressions"))
    return QueryFailure(f"GENERIC_INTERNAL_ERROR: {text}", error_type=200, category=1)


def _refusal(refusal: TrinoRefusal) -> QueryFailure:
    return QueryFailure(refusal.message, error_type=refusal.error_type)


# --------------------------------------------------------------------------- the catalog: which table, which partitions

def _resolve(table: exp.Table, sql: str, database: str | None, account_id: str, region: str,
             access: Access | None = None, catalog: str | None = None) -> Source:
    """The Glue table a name in the query means, and the objects the query will read from it (those the caller may
    read, with `access`: Glue's and Lake Formation's checks first). `catalog`: the query context's."""
    schema = (table.db or database or "default").lower()
    in_catalog = (table.catalog or catalog or _CATALOG).lower()
    name = glue_name(table.name.lower())  # `orders_iceberg$snapshots` is orders_iceberg's
    if is_s3_tables_catalog(in_catalog):
        definition = s3_table_definition(in_catalog, schema, name, account_id, region,
                                         position(sql, first_identifier(table)), access)
        iceberg = read_iceberg(table, sql, schema, definition, account_id)
        return Source(exp.table_(exp.to_identifier(iceberg.name, quoted=True),
                                 db=exp.to_identifier(schema, quoted=True)),
                      iceberg.definition, iceberg.objects, iceberg.rows, None, None, iceberg.arrow)
    if in_catalog != _CATALOG:
        raise QueryFailure(f"CATALOG_NOT_FOUND: {position(sql, first_identifier(table))}Catalog "
                           f"'{in_catalog}' does not exist", error_type=1000)
    glue = glue_backends[account_id][region]
    if access is not None:  # Glue authorises before it looks: a denied caller learns nothing of the table
        access.catalog(schema, name, partitioned=False)
    try:
        found: FakeTable = glue.get_table(schema, name)
    except Exception:  # moto's EntityNotFound: no such database or table
        raise QueryFailure(f"TABLE_NOT_FOUND: {position(sql, first_identifier(table))}Table "
                           f"'{_CATALOG}.{schema}.{table.name.lower()}' does not exist", error_type=1000) from None
    definition = found.as_dict()
    readable, link = None, definition.get("TargetTable")
    if link:  # a resource link: Athena reads the shared table it names, as Lake Formation allows
        found, readable = follow_link(definition, schema, account_id, region, access,
                                      position(sql, first_identifier(table)))
        definition = found.as_dict()
    keys = definition.get("PartitionKeys") or []
    if access is not None and not link:
        if keys and not is_projected(definition):  # a projected table's partitions are computed, not read
            access.catalog(schema, found.name, partitioned=True)
        readable = access.columns(schema, found.name, definition)
    view_name, arrow = (name if link else found.name), None  # a link is read by its own name
    if needs_iceberg(table, definition):
        iceberg = read_iceberg(table, sql, schema, definition, account_id)
        view_name, definition, objects, counts, arrow = (iceberg.name, iceberg.definition, iceberg.objects,
                                                         [iceberg.rows], iceberg.arrow)
    elif keys:
        keep = partition_filter(table, keys)
        partitions = projected_partitions(definition) if is_projected(definition) else [
            (tuple(p.values), p.partition_input["StorageDescriptor"]["Location"], p.partition_input.get("Parameters"))
            for p in found.partitions.values()]
        read = [partition for partition in partitions if keep(partition[0])]
        objects = tuple((values, path, key) for values, location, _ in read
                        for path, key in objects_under(account_id, location))
        counts = [_row_count(parameters) for _, _, parameters in read]
    else:
        objects = tuple(((), path, key) for path, key in objects_under(
            account_id, definition["StorageDescriptor"]["Location"]))
        counts = [_row_count(definition.get("Parameters"))]
    rows = None if None in counts else sum(count or 0 for count in counts)
    kept_for = (link["DatabaseName"], found.name) if link else (schema, found.name)
    rows_kept = access.row_filter(*kept_for) if access is not None else None
    return Source(exp.table_(exp.to_identifier(view_name, quoted=True), db=exp.to_identifier(schema, quoted=True)),
                  definition, objects, rows, readable, rows_kept, arrow)


def _row_count(parameters: dict[str, str] | None) -> int | None:
    """A table's or partition's numRows statistic, as Hive and Athena keep it in its parameters; None without."""
    try:
        return int((parameters or {})["numRows"])
    except (KeyError, ValueError):
        return None


# --------------------------------------------------------------------------- results as Athena renders them

_PRECISION = {"varchar": 2147483647, "integer": 10, "bigint": 19, "smallint": 5, "tinyint": 3, "double": 17,
              "float": 7, "timestamp": 3}
_ATHENA_TYPES = {"varchar": "varchar", "boolean": "boolean", "tinyint": "tinyint", "smallint": "smallint",
                 "integer": "integer", "bigint": "bigint", "hugeint": "bigint", "ubigint": "bigint",
                 "uinteger": "bigint", "float": "float", "double": "double", "decimal": "decimal", "date": "date",
                 "timestamp": "timestamp", "timestamp with time zone": "timestamp with time zone", "time": "time",
                 "blob": "varbinary", "list": "array", "array": "array", "map": "map", "struct": "row",
                 "uuid": "uuid", "interval": "interval day to second"}


def _column_info(name: str, duck: DuckDBPyType) -> ColumnInfo:
    kind = _ATHENA_TYPES.get(duck.id, "varchar")
    if kind == "decimal":
        precision, scale = (int(n) for n in str(duck)[len("DECIMAL("):-1].split(","))
        return ColumnInfo(name, kind, precision, scale)
    return ColumnInfo(name, kind, _PRECISION.get(kind, 0), 3 if kind == "timestamp" else 0)


def _rendered(column: str, duck: DuckDBPyType, depth: int = 0) -> str:
    """The SQL that renders a value as Athena's text: timestamps to the millisecond, varbinary as spaced hex, and
    arrays ``[a, b]``, maps ``{k=v}`` and rows ``{name=v}`` (``{field0=v}`` unnamed) with strings unquoted and
    ``null`` inside, as Athena prints them."""
    if duck.id == "timestamp":
        return f"strftime({column}, '%Y-%m-%d %H:%M:%S.%g')"
    if duck.id == "timestamp with time zone":
        return f"strftime({column}, '%Y-%m-%d %H:%M:%S.%g UTC')"
    if duck.id == "blob":
        return f"trim(lower(regexp_replace(hex({column}), '(..)', '\\1 ', 'g')))"
    if duck.id not in ("list", "array", "map", "struct", "tuple"):
        return f"CAST({column} AS VARCHAR)"
    item = f"x{depth}"

    def inner(expression: str, kind: DuckDBPyType) -> str:
        return f"coalesce({_rendered(expression, kind, depth + 1)}, 'null')"

    if duck.id in ("list", "array"):
        element = inner(item, duck.children[0][1])
        body = f"'[' || array_to_string(list_transform({column}, lambda {item}: {element}), ', ') || ']'"
    elif duck.id == "map":
        key, value = duck.children[0][1], duck.children[1][1]
        pair = f"{inner(f'{item}.key', key)} || '=' || {inner(f'{item}.value', value)}"
        body = f"'{{' || array_to_string(list_transform(map_entries({column}), lambda {item}: {pair}), ', ') || '}}'"
    else:
        fields = [f"'{name.replace(chr(39), chr(39) * 2) if name else f'field{index}'}=' || "
                  f"{inner(f'struct_extract_at({column}, {index + 1})', kind)}"
                  for index, (name, kind) in enumerate(duck.children)]
        body = "'{' || " + " || ', ' || ".join(fields) + " || '}'" if fields else "'{}'"
    return f"CASE WHEN {column} IS NULL THEN NULL ELSE {body} END"


def _athena_names(tree: exp.Expression) -> None:
    """Unnamed select expressions are called ``_col0``, ``_col1``... by position, as Athena names them."""
    if isinstance(tree, exp.Select):
        for index, selected in enumerate(tree.expressions):
            if not isinstance(selected, exp.Alias | exp.Column | exp.Star):
                selected.replace(exp.alias_(selected.copy(), f"_col{index}"))


def _parsed_query(sql: str) -> exp.Query:
    try:
        tree = sqlglot.parse_one(sql, read=Athena)
    except ParseError as error:
        raise _syntax_failure(error, sql) from None
    if not isinstance(tree, exp.Query):
        raise QueryFailure("NOT_SUPPORTED: the demo account's Athena runs queries (SELECT, WITH, VALUES) and "
                           "EXPLAIN (TYPE IO) of them only", error_type=1000)
    return tree


def _lake_tables(tree: exp.Expression) -> list[exp.Table]:
    """The tables a query names that are the catalog's, not its own WITH clauses."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    return [table for table in tree.find_all(exp.Table)
            if table.name and not (not table.db and table.name.lower() in ctes)]


def _estimate(reads: list[tuple[Source, int]]) -> dict[str, Any]:
    """Trino's estimate of a table's scans: rows from the statistics of what they read, and the bytes each read
    would scan (its columns' chunks of a Parquet file, whole files of text)."""
    counts = [source.rows for source, _ in reads]
    if None in counts:
        return _UNKNOWN_ESTIMATE
    size = float(sum(scanned for _, scanned in reads))
    return {"outputRowCount": float(sum(count or 0 for count in counts)), "outputSizeInBytes": size,
            "cpuCost": size, "maxMemory": 0.0, "networkCost": 0.0}


def _explain_io(sql: str, *, database: str | None, account_id: str, region: str, output: Path,
                access: Access | None) -> QueryResult:
    """EXPLAIN (TYPE IO, FORMAT JSON) of ``sql`` as Athena answers it from the statistics of what it reads (the
    catalog's checks apply, no data is read)."""
    tree = expand_views(_parsed_query(sql), database, account_id, region, access)
    tables = _lake_tables(tree)
    sources = [_resolve(table, sql, database, account_id, region, reader(table, access, account_id, region))
               for table in tables]
    needed = _needed(tree, tables, sources, database)
    reads: dict[tuple[str, str], list[tuple[Source, int]]] = {}
    for source, columns in zip(sources, needed, strict=True):
        scanned = scanned_bytes(source, columns, output.parent / "objects")
        reads.setdefault((source.view.args["db"].name, source.view.name), []).append((source, scanned))
    plan = json.dumps({  # one entry a table, however often the query reads it (each read counted), as Trino lists
        "inputTableColumnInfos": [
            {"table": {"catalog": _CATALOG, "schemaTable": {"schema": schema, "table": name}},
             "columnConstraints": [], "estimate": _estimate(sources)}
            for (schema, name), sources in reads.items()],
        "estimate": _UNKNOWN_ESTIMATE})
    with duckdb.connect(str(output)) as connection:
        connection.execute("CREATE TABLE result AS SELECT CAST(? AS VARCHAR) AS c0", [plan])
    return QueryResult(output, (ColumnInfo("Query Plan", "varchar", _PRECISION["varchar"], 0),), 1, 0,
                       header_row=False)


def _needed(tree: exp.Expression, tables: list[exp.Table], sources: list[Source], database: str | None,
            ) -> list[frozenset[str] | None]:
    for index, table in enumerate(tables):
        table.meta[READ_INDEX] = index
    return columns_read(tree, sources, database)


def _scanned(tree: exp.Expression, tables: list[exp.Table], sources: list[Source], database: str | None,
             cache: Path) -> int:
    """The bytes Athena counts for the statement: each read's, for the columns it needs."""
    needed = _needed(tree, tables, sources, database)
    return sum(scanned_bytes(source, columns, cache) for source, columns in zip(sources, needed, strict=True))


def _read_as(table: exp.Table, index: int) -> exp.Table:
    """Point one read of a table at its own view (``lake_reads.read_<index>``), keeping the name the statement
    calls it by as its alias. A statement that reads a table twice with different partition filters reads two
    different sets of files: one view per table would answer both reads from one of them."""
    view = exp.table_(exp.to_identifier(f"read_{index}", quoted=True),
                      db=exp.to_identifier(_READS_SCHEMA, quoted=True))
    if not table.args.get("alias"):
        table.set("alias", exp.TableAlias(this=table.this.copy()))
    table.set("catalog", None)
    table.set("db", view.args["db"].copy())
    table.set("this", view.this.copy())
    return view


def run_query(sql: str, *, database: str | None, account_id: str, region: str, workdir: Path, result_name: str,
              cutoff: int | None = None, on_connection: Callable[[duckdb.DuckDBPyConnection], None] = lambda _: None,
              access: Access | None = None, catalog: str | None = None) -> QueryResult:
    """Run Athena SQL over the lake and keep its rendered result in ``workdir/<result_name>.duckdb``.

    Raises QueryFailure (the query failed as Athena would say) or ScanLimitExceeded (before reading, when the
    objects to read exceed ``cutoff`` bytes). ``on_connection`` receives the DuckDB connection before the query
    runs, so a caller can interrupt it.
    """
    explained = _EXPLAIN_IO.match(sql)
    if explained and _IO_OPTIONS.match(explained.group("options")):
        # the EXPLAIN blanked out, not cut off: errors place themselves on the submitted text
        query = re.sub(r"\S", " ", sql[:explained.start("query")]) + explained.group("query")
        return _explain_io(query, database=database, account_id=account_id, region=region,
                           output=workdir / f"{result_name}.duckdb", access=access)
    tree = expand_views(_parsed_query(sql), database, account_id, region, access)
    original = tree.copy()
    tables = _lake_tables(tree)
    sources: list[Source] = []
    for table in tables:
        checks = reader(table, access, account_id, region)
        source = _resolve(table, sql, database, account_id, region, checks, catalog)
        if checks is not None and source.readable is None and not is_s3_table(source.definition):
            checks.read(source)  # an S3 table's data: S3 Tables authorised it (GetTableData)
        sources.append(source)
    try:  # Trino's analysis: types from the tables read, its refusals, its computations in DuckDB's means
        annotate(tree, tables, [source.definition for source in sources])
        refuse(tree, sql)
        tree = rewrite(tree, sql)
    except TrinoRefusal as refusal:
        raise _refusal(refusal) from None
    cache, output = workdir / "objects", workdir / f"{result_name}.duckdb"
    scanned = _scanned(tree, tables, sources, database, cache)  # a table read twice is scanned twice
    if cutoff is not None and scanned > cutoff:
        raise ScanLimitExceeded(scanned)
    reads = [(source, _read_as(table, index)) for index, (table, source) in enumerate(zip(tables, sources,
                                                                                          strict=True))]
    for column in tree.find_all(exp.Column):  # `sales.orders.x`: the read is called `orders` now
        if column.args.get("db"):
            column.set("db", None)
            column.set("catalog", None)
    _athena_names(tree)
    try:
        transpiled = duckdb_sql(tree, sql)
    except TrinoRefusal as refusal:
        raise _refusal(refusal) from None
    with duckdb.connect() as connection:
        connection.execute("SET enable_progress_bar = false")
        on_connection(connection)
        try:
            for source, view in reads:
                create_view(connection, source, cache, view)
            relation = connection.sql(transpiled)
            names, types = relation.columns, relation.types
            positional = [f"c{index}" for index in range(len(names))]
            rendered = ", ".join(f"{_rendered(p, t)} AS {p}" for p, t in zip(positional, types, strict=True))
            connection.execute(f"ATTACH {sql_string(str(output))} AS result_file")
            connection.execute(
                f"CREATE TABLE result_file.result AS SELECT {rendered} "
                f"FROM ({transpiled}) AS q({', '.join(positional)})"
            )
            row_count = connection.execute("SELECT count(*) FROM result_file.result").fetchone()[0]
            connection.execute("DETACH result_file")
        except duckdb.Error as error:
            files = {str(local_path(cache, path, key)): (f"{source.view.db}.{source.view.name}", path)
                     for source in sources for _, path, key in source.objects}
            raise _engine_failure(error, sql, original, files) from None
    columns = tuple(_column_info(name, kind) for name, kind in zip(names, types, strict=True))
    return QueryResult(output, columns, row_count, scanned)


def result_csv(result: QueryResult) -> bytes:
    """The result as the CSV Athena writes to the output location: a quoted header, then quoted values."""
    header = ",".join('"' + column.name.replace('"', '""') + '"' for column in result.columns)
    csv_path = result.path.with_suffix(".csv")
    with duckdb.connect(str(result.path), read_only=True) as connection:
        connection.execute(f"COPY (SELECT * FROM result ORDER BY rowid) TO "
                           f"{sql_string(str(csv_path))} (HEADER false, FORCE_QUOTE *)")
    body = csv_path.read_bytes()
    csv_path.unlink()
    return f"{header}\n".encode() + body
