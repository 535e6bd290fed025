"""The emulated data lake's files as DuckDB reads them (demo and tests only, never in Lambda).

A table's objects come from moto's S3 backend. Each object version is copied once to a local cache.
Each table is one DuckDB view: the Glue columns cast to their types, then the partition keys. What
the query means is `query.py`'s; this module only reads what it is given.
"""

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from moto.s3.models import FakeKey, s3_backends
from sqlglot import exp
from sqlglot.dialects import Athena, DuckDB, Hive


@dataclass(frozen=True)
class Source:
    """One table the query reads: its Glue definition and the objects that survive partition pruning."""

    view: exp.Table
    definition: dict[str, Any]
    objects: tuple[tuple[tuple[str, ...], str, FakeKey], ...]  # (partition values, s3 path, object)
    rows: int | None = None
    """The rows of what is read, from the Glue statistics (numRows) of each partition read; None where one has
    none."""
    readable: frozenset[str] | None = None
    """The columns (partition keys included) the caller may read, as Lake Formation grants them; None: all."""
    row_filter: str | None = None
    """The rows the caller may read, as a Lake Formation data cells filter keeps them (Athena SQL); None: all."""
    arrow: Callable[[], Any] | None = None
    """Reads the rows as an Arrow table, where the table's files are not read as a Hive table's (an Iceberg
    snapshot's or metadata table's: ``iceberg_engine``); None: the objects are read in the table's format."""

    @property
    def scanned_bytes(self) -> int:
        return sum(key.size for _, _, key in self.objects)


def _split_s3(location: str) -> tuple[str, str]:
    bucket, _, prefix = location.removeprefix("s3://").partition("/")
    return bucket, prefix if not prefix or prefix.endswith("/") else f"{prefix}/"


def objects_under(account_id: str, location: str) -> Iterator[tuple[str, FakeKey]]:
    """Data files under a location, as Athena lists them (no folder markers, no ``_``/``.`` files)."""
    bucket_name, prefix = _split_s3(location)
    bucket = s3_backends[account_id]["aws"].get_bucket(bucket_name)
    for name, key in sorted(bucket.keys.items()):
        leaf = name.rsplit("/", 1)[-1]
        if name.startswith(prefix) and isinstance(key, FakeKey) and leaf and leaf[0] not in "_.":
            yield f"s3://{bucket_name}/{name}", key


def local_path(cache: Path, path: str, key: FakeKey) -> Path:
    """Where the object at S3 `path` is copied for DuckDB: one copy per object version."""
    return cache / hashlib.sha256(f"{path}\0{key.etag}".encode()).hexdigest()[:24] / path.rsplit("/", 1)[-1]


def local_copy(cache: Path, path: str, key: FakeKey) -> str:
    """The object as a local file DuckDB can read (one copy per object version, kept for later queries)."""
    local = local_path(cache, path, key)
    if not local.exists():
        local.parent.mkdir(parents=True, exist_ok=True)
        partial = local.with_suffix(local.suffix + ".partial")
        partial.write_bytes(key.value)
        partial.replace(local)
    return str(local)


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(DuckDB)


def sql_string(value: str) -> str:
    return exp.Literal.string(value).sql(DuckDB)


def _duck_type(hive_type: str) -> str:
    return exp.DataType.build(hive_type, dialect=Hive).sql(DuckDB)


def _scan(fmt: str, files: list[str], definition: dict[str, Any]) -> str:
    """A DuckDB table function reading one partition's files in the table's format."""
    listing = "[" + ", ".join(sql_string(f) for f in files) + "]"
    descriptor = definition["StorageDescriptor"]
    if fmt == "parquet":
        return f"read_parquet({listing}, union_by_name = true)"
    columns = "{" + ", ".join(f"{sql_string(c['Name'])}: "
                              f"{sql_string(_duck_type(c['Type']))}"
                              for c in descriptor["Columns"]) + "}"
    if fmt == "json":
        return f"read_json({listing}, format = 'newline_delimited', columns = {columns})"
    parameters = descriptor.get("SerdeInfo", {}).get("Parameters", {})
    delimiter = parameters.get("field.delim", ",")
    header = int((definition.get("Parameters") or {}).get("skip.header.line.count", "0"))
    return (f"read_csv({listing}, delim = {sql_string(delimiter)}, header = {bool(header)}, "
            f"columns = {columns})")


def _format(definition: dict[str, Any]) -> str:
    descriptor = definition["StorageDescriptor"]
    serde = descriptor.get("SerdeInfo", {}).get("SerializationLibrary", "").lower()
    if "parquet" in serde or "parquet" in descriptor.get("InputFormat", "").lower():
        return "parquet"
    return "json" if "json" in serde else "csv"


def is_parquet(definition: dict[str, Any]) -> bool:
    """Whether the table's files are Parquet (columnar: Athena reads only the column chunks a query needs)."""
    return _format(definition) == "parquet"


def _readable(source: Source, column: dict[str, Any]) -> bool:
    return source.readable is None or column["Name"] in source.readable


def _filter_sql(expression: str) -> str:
    """A data cells filter's row filter (Athena's SQL) as DuckDB reads it."""
    return exp.condition(expression, dialect=Athena).sql(DuckDB)


def create_view(connection: duckdb.DuckDBPyConnection, source: Source, cache: Path, view: exp.Table) -> None:
    """One read of the table as the view `view`: the Glue columns the caller may read (cast to their types), then the
    partition keys, over the objects this read keeps after pruning. A data cells filter's row filter is a WHERE on
    each part: every read of a table goes through this view."""
    definition, fmt = source.definition, _format(source.definition)
    columns = [c for c in definition["StorageDescriptor"]["Columns"] if _readable(source, c)]
    keys = definition.get("PartitionKeys") or []
    by_partition: dict[tuple[str, ...], list[str]] = {}
    for values, path, key in source.objects if source.arrow is None else ():
        by_partition.setdefault(values, []).append(local_copy(cache, path, key))
    projection = ", ".join(f"CAST({_quoted(c['Name'])} AS "
                           f"{_duck_type(c['Type'])}) AS {_quoted(c['Name'])}"
                           for c in columns)
    parts = [
        f"SELECT {projection}"
        + "".join(f", CAST({sql_string(value)} AS {_duck_type(k['Type'])}) AS "
                  f"{_quoted(k['Name'])}" for k, value in zip(keys, values, strict=True) if _readable(source, k))
        + f" FROM {_scan(fmt, files, definition)}"
        for values, files in by_partition.items()
    ]
    if source.arrow is not None:  # rows read already (an Iceberg snapshot's): the view is over them, not the files
        connection.register(f"arrow_{view.name}", source.arrow())
        parts = [f"SELECT {', '.join(_quoted(c['Name']) for c in columns)} FROM {_quoted(f'arrow_{view.name}')}"]
    if not parts:  # no data: an empty view with the table's columns
        names = [*columns, *(k for k in keys if _readable(source, k))]
        parts = ["SELECT " + ", ".join(f"CAST(NULL AS {_duck_type(c['Type'])}) AS "
                                       f"{_quoted(c['Name'])}" for c in names)
                 + " WHERE false"]
    if source.row_filter:  # the filter reads the columns it names, granted or not, as Lake Formation applies it
        parts = [f"SELECT * FROM ({part}) WHERE {_filter_sql(source.row_filter)}" for part in parts]
    schema = view.args["db"].sql(DuckDB)
    connection.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    connection.execute(f"CREATE OR REPLACE VIEW {view.sql(DuckDB)} AS {' UNION ALL '.join(parts)}")
