"""The demo lake's tables as files, and putting them into an account.

``lake_files()`` writes each table in the format and layout its Glue definition declares.
The files are cached under a hash of their sources, so a restart reads them back.
``put_table`` stores them and registers each table with the statistics EXPLAIN estimates from.
"""

import contextlib
import fcntl
import functools
import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import duckdb
from moto.s3.models import s3_backends

from aws_data_mcp_demo.account import lake_data
from aws_data_mcp_demo.account.lake_data import MACROS, TABLE_SQL
from aws_data_mcp_demo.account.seed_data import FORMATS, TABLES, Table

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.
Store = Callable[[str, str, bytes], None]
"""Puts one object: bucket, key, body."""

_SUFFIX = {"parquet": ".snappy.parquet", "parquet_uncompressed": ".parquet", "csv": ".csv", "json": ".json.gz"}
_COPY_OPTIONS = {"parquet": "FORMAT parquet, COMPRESSION snappy",
                 "parquet_uncompressed": "FORMAT parquet, COMPRESSION uncompressed",
                 "csv": "FORMAT csv, HEADER true", "json": "FORMAT json"}
_MANIFEST = "manifest.json"


@dataclass(frozen=True)
class TableFiles:
    """One table's files and how many rows each partition holds."""

    table: Table
    files: Mapping[str, bytes]
    """Key under the table's prefix (``order_date=2026-01-01/part-00000.parquet``) -> body."""
    rows: Mapping[str, int]
    """Partition directory (``order_date=2026-01-01``; ``""`` for an unpartitioned table) -> rows."""

    @property
    def name(self) -> str:
        return f"{self.table.database}.{self.table.name}"


def _cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aws-data-mcp"


def _digest() -> str:
    """What the files depend on: the code that produces them, the tables they are for, the DuckDB that writes them."""
    hashed = hashlib.sha256(f"{duckdb.__version__}\0{TABLES!r}\0{FORMATS!r}".encode())
    for source in (lake_data.__file__, __file__):
        hashed.update(Path(str(source)).read_bytes())
    return hashed.hexdigest()[:16]


def _name_file(written: Path, leaf: str) -> None:
    """A written file under Athena's usual name; JSON gzipped here (DuckDB's own gzip takes twice as long)."""
    if leaf.endswith(".gz"):
        (written.parent / leaf).write_bytes(gzip.compress(written.read_bytes(), mtime=0))
        written.unlink()
    else:
        written.rename(written.parent / leaf)


def _write(connection: duckdb.DuckDBPyConnection, table: Table, target: Path) -> dict[str, int]:
    """The table's files under ``target`` (Athena's names: ``part-00000<suffix>``); rows per partition."""
    name, options = table.name, _COPY_OPTIONS[table.fmt]
    leaf = f"part-00000{_SUFFIX[table.fmt]}"
    if not table.partition_keys:
        target.mkdir(parents=True)
        connection.execute(f"COPY {name} TO '{target / 'written'}' ({options})")
        _name_file(target / "written", leaf)
        return {"": connection.execute(f"SELECT count(*) FROM {name}").fetchone()[0]}
    key = table.partition_keys[0][0]
    connection.execute(f"COPY {name} TO '{target}' ({options}, PARTITION_BY ({key}))")
    for written in target.glob(f"{key}=*/*"):
        _name_file(written, leaf)
    counts = connection.execute(f"SELECT {key}, count(*) FROM {name} GROUP BY {key}").fetchall()
    return {f"{key}={value}": count for value, count in counts}


def _generate(directory: Path) -> None:
    """Every table's files and a manifest of their row counts, in ``directory``."""
    manifest: dict[str, dict[str, int]] = {}
    with duckdb.connect() as connection:
        connection.execute("SET enable_progress_bar = false")
        connection.execute("SET threads = 1")  # one writer: the same rows in the same order in every file, every run
        for macro in MACROS:
            connection.execute(macro)
        by_name = {f"{t.database}.{t.name}": t for t in TABLES}
        for name, sql in TABLE_SQL.items():
            connection.execute(f"CREATE TABLE {by_name[name].name} AS {sql}")
            manifest[name] = _write(connection, by_name[name], directory / name)
    (directory / _MANIFEST).write_text(json.dumps(manifest, sort_keys=True))


def _cached_directory() -> Path:
    """The generated files' directory: the cache's, made now if missing (in a temporary one if it cannot be)."""
    final = _cache_root() / f"lake-{_digest()}"
    if (final / _MANIFEST).exists():
        return final
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(final.parent / f"{final.name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:  # no writable cache: generate for this process only
        partial = Path(tempfile.mkdtemp(prefix="aws-data-mcp-lake-"))
        _generate(partial)
        return partial
    try:
        # One generator at a time (the suite's workers start together): the others wait, then read its files.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / _MANIFEST).exists():
            return final
        partial = Path(tempfile.mkdtemp(prefix=f"{final.name}.partial-", dir=final.parent))
        try:
            _generate(partial)
            partial.replace(final)
        except OSError:  # the cache cannot take it: these files serve this process
            return partial
        return final
    finally:
        os.close(lock)


@functools.cache
def lake_files() -> Mapping[str, TableFiles]:
    """Every table's files ("database.table" -> its files), generated or read from the cache once per process."""
    directory = _cached_directory()
    manifest = json.loads((directory / _MANIFEST).read_text())
    tables = {}
    for table in TABLES:
        name = f"{table.database}.{table.name}"
        root = directory / name
        files = {path.relative_to(root).as_posix(): path.read_bytes()
                 for path in sorted(root.rglob("*")) if path.is_file()}
        tables[name] = TableFiles(table, MappingProxyType(files), MappingProxyType(manifest[name]))
    return MappingProxyType(tables)


# --------------------------------------------------------------------------- into an account

def _statistics(files: Iterable[tuple[str, bytes]], rows: int) -> dict[str, str]:
    bodies = [body for _, body in files]
    return {"numRows": str(rows), "totalSize": str(sum(map(len, bodies))), "numFiles": str(len(bodies))}


def _storage_descriptor(table: Table, location: str) -> dict[str, Any]:
    fmt = FORMATS[table.fmt]
    return {"Columns": [{"Name": name, "Type": kind, "Comment": comment} for name, kind, comment in table.columns],
            "Location": location, "InputFormat": fmt["InputFormat"], "OutputFormat": fmt["OutputFormat"],
            "Compressed": fmt["Compressed"], "NumberOfBuckets": -1, "SerdeInfo": fmt["SerdeInfo"],
            "BucketColumns": [], "SortColumns": [], "StoredAsSubDirectories": False}


def s3_store(s3: BotoClient) -> Store:
    """Objects put through the S3 API."""
    return lambda bucket, key, body: s3.put_object(Bucket=bucket, Key=key, Body=body)


def in_process_store(account_id: str) -> Store:
    """Objects put straight into moto's S3 backend in this process (what PutObject would store, without botocore)."""
    backend = s3_backends[account_id]["aws"]
    return lambda bucket, key, body: backend.put_object(bucket, key, body)


def put_table(store: Store, glue: BotoClient, lake: TableFiles) -> None:
    """The table's objects into its bucket, then its Glue table and partitions, each with its statistics (the
    bucket and database must exist)."""
    table = lake.table
    for key, body in lake.files.items():
        store(table.bucket, f"{table.prefix}{key}", body)
    location = f"s3://{table.bucket}/{table.prefix}"
    parameters = {"EXTERNAL": "TRUE", "typeOfData": "file", **FORMATS[table.fmt]["TableParameters"],
                  **_statistics(lake.files.items(), sum(lake.rows.values()))}
    glue.create_table(DatabaseName=table.database, TableInput={
        "Name": table.name, "Description": table.description, "Owner": table.owner, "TableType": "EXTERNAL_TABLE",
        "Parameters": parameters,
        "PartitionKeys": [{"Name": name, "Type": kind, "Comment": comment} for name, kind, comment in
                          table.partition_keys],
        "StorageDescriptor": _storage_descriptor(table, location)})
    partitions = [{"Values": [directory.split("=", 1)[1]], "StorageDescriptor": _storage_descriptor(
        table, f"{location}{directory}/"), "Parameters": _statistics(
        [(key, body) for key, body in lake.files.items() if key.startswith(f"{directory}/")], rows)}
        for directory, rows in sorted(lake.rows.items()) if directory]
    for start in range(0, len(partitions), 100):  # BatchCreatePartition takes at most 100
        glue.batch_create_partition(DatabaseName=table.database, TableName=table.name,
                                    PartitionInputList=partitions[start:start + 100])


def put_orders(s3: BotoClient, glue: BotoClient) -> None:
    """``sales.orders`` alone, into an account that may be empty (tests of the engine)."""
    lake = lake_files()["sales.orders"]
    with contextlib.suppress(s3.exceptions.BucketAlreadyOwnedByYou):
        s3.create_bucket(Bucket=lake.table.bucket)
    with contextlib.suppress(glue.exceptions.AlreadyExistsException):
        glue.create_database(DatabaseInput={"Name": lake.table.database})
    put_table(s3_store(s3), glue, lake)
