"""tabulator://: which S3 buckets hold the caller's tables: each Glue table's own location, the bucket an Iceberg
table writes its data to (`write.data.path`, often outside its location), and the S3 table buckets with their
namespaces and tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import urlparse

from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, side_by_side
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import glue_databases
from aws_data_mcp.resources.athena.s3_tables_search import TableBucket as S3TableBucket
from aws_data_mcp.resources.athena.s3_tables_search import table_buckets

S3_SCHEMES = ("s3", "s3a", "s3n")
WRITE_DATA_PATH = "write.data.path"


class BucketDatabase(TypedDict):
    database: str
    tables: list[str]


class TableBucket(TypedDict):
    bucket: str
    kind: Literal["bucket", "table bucket"]
    """An S3 bucket (general purpose), or an S3 table bucket (S3 Tables: its namespaces as databases)."""
    table_count: int
    databases: list[BucketDatabase]
    """The tables located in it (a table bucket: its namespaces' tables)."""
    writes: NotRequired[list[BucketDatabase]]
    """Iceberg tables whose data files are written here (`write.data.path`), beside their location elsewhere."""
    arn: NotRequired[str]
    catalog: NotRequired[str]
    """A table bucket's catalog in Athena SQL (`s3tablescatalog/<bucket>`)."""


class DatabaseError(TypedDict):
    database: str
    error: ItemError


class BucketError(TypedDict):
    table_bucket: str
    error: ItemError


class TableBuckets(TypedDict):
    databases_read: int
    database_errors: list[DatabaseError]
    tables_without_s3_location: int
    buckets: list[TableBucket]
    table_buckets_error: NotRequired[ItemError]
    """Why the S3 table buckets could not be listed (s3tables:ListTableBuckets): the Glue tables' buckets stand."""
    table_bucket_errors: NotRequired[list[BucketError]]


def _bucket_of(location: Any) -> str | None:
    parsed = urlparse(str(location or ""))
    return parsed.netloc or None if parsed.scheme in S3_SCHEMES else None


def table_bucket(table: Mapping[str, Any]) -> str | None:
    """The bucket of a table's `s3://bucket/prefix` location (Iceberg tables may keep it in their parameters)."""
    return _bucket_of((table.get("StorageDescriptor") or {}).get("Location") or (table.get("Parameters") or {}).get(
        "location"))


def data_bucket(table: Mapping[str, Any]) -> str | None:
    """The bucket an Iceberg table writes its data files to: `write.data.path` from Glue's latest Iceberg metadata
    (or the table's parameters, where a writer copied it there); None where it is not set."""
    iceberg = (table.get("IcebergTableMetadata") or {}).get("Properties") or {}
    return _bucket_of(iceberg.get(WRITE_DATA_PATH) or (table.get("Parameters") or {}).get(WRITE_DATA_PATH))


def _glue_tables(glue: Any, database: str) -> list[dict[str, Any]]:
    """A database's tables, every page, with Glue's latest Iceberg metadata where Glue gives it (one call a page,
    as before: `write.data.path` costs no call of its own)."""
    from aws_data_mcp.resources.athena.open_tables import with_iceberg_metadata  # the table read's: not at cold start

    def pages(**arguments: Any) -> list[dict[str, Any]]:
        paged = glue.get_paginator("get_tables").paginate(**arguments)
        return [table for page in paged for table in page.get("TableList", [])]

    return with_iceberg_metadata(pages, DatabaseName=database)


def _bucket_tables(s3tables: Any, bucket: S3TableBucket) -> list[dict[str, Any]]:
    pages = s3tables.get_paginator("list_tables").paginate(tableBucketARN=bucket["arn"])
    return [table for page in pages for table in page.get("tables", [])]


def _grouped(pairs: list[tuple[str, str]]) -> list[BucketDatabase]:
    by_database: dict[str, list[str]] = defaultdict(list)
    for database, name in pairs:
        by_database[database].append(name)
    return [BucketDatabase(database=d, tables=sorted(t)) for d, t in sorted(by_database.items())]


def _table_bucket_entries(buckets: list[S3TableBucket],
                          listed: list[Outcome[Call[Any], Any]]) -> tuple[list[TableBucket], list[BucketError]]:
    entries, errors = [], []
    for bucket, outcome in zip(buckets, listed, strict=True):
        if outcome.error is not None:
            errors.append(BucketError(table_bucket=bucket["name"], error=outcome.error.brief()))  # type: ignore[typeddict-item]
        tables = [(t["namespace"][0] if t.get("namespace") else "", t["name"]) for t in outcome.value or []]
        entries.append(TableBucket(bucket=bucket["name"], kind="table bucket", table_count=len(tables),
                                   databases=_grouped(tables), arn=bucket["arn"],
                                   catalog=f"s3tablescatalog/{bucket['name']}"))
    return entries, errors


@registry.resource(
    "tabulator://buckets",
    name="table-buckets",
    title="Buckets behind the tables",
    description="The S3 buckets that back Glue/Athena tables: per bucket, the databases and tables located in "
    "it (from each table's s3:// location) and the Iceberg tables writing their data there (write.data.path); "
    "and the S3 table buckets (kind: table bucket, with ARN and catalog) with their namespaces and tables. Every "
    "database and table bucket read in parallel, a denied one kept with its error.",
    requires="auth",
    aws_calls=["glue:GetDatabases", "glue:GetTables", "s3tables:ListTableBuckets", "s3tables:ListTables"],
    list_field="buckets",
)
def buckets(request: ResourceRequest) -> TableBuckets:
    """Two waves: GetDatabases (all pages) beside ListTableBuckets, then GetTables (all pages) for every database
    beside ListTables for every table bucket, all in parallel."""
    glue, s3tables = request.client("glue"), request.client("s3tables")
    first = side_by_side(request, glue=[Call("glue:GetDatabases", partial(glue_databases, glue))],
                         s3tables=[Call("s3tables:ListTableBuckets", partial(table_buckets, s3tables))])
    (databases,), (listed_buckets,) = first["glue"], first["s3tables"]
    if databases.error is not None:
        raise databases.error  # no database listed: the Glue catalog's buckets have no answer
    names = [d["Name"] for d in databases.value or []]
    s3_buckets: list[S3TableBucket] = listed_buckets.value or []
    second = side_by_side(
        request,
        glue=[Call("glue:GetTables", partial(_glue_tables, glue, name)) for name in names],
        s3tables=[Call("s3tables:ListTables", partial(_bucket_tables, s3tables, b)) for b in s3_buckets])
    located: dict[str, list[tuple[str, str]]] = defaultdict(list)
    writes: dict[str, list[tuple[str, str]]] = defaultdict(list)
    unlocated = 0
    for name, outcome in zip(names, second["glue"], strict=True):
        for table in outcome.value or []:
            bucket, data = table_bucket(table), data_bucket(table)
            if bucket is None:
                unlocated += 1
            else:
                located[bucket].append((name, table["Name"]))
            if data is not None and data != bucket:
                writes[data].append((name, table["Name"]))
    entries = []
    for bucket in sorted({*located, *writes}):
        entry = TableBucket(bucket=bucket, kind="bucket", table_count=len(located[bucket]),
                            databases=_grouped(located[bucket]))
        if writes.get(bucket):
            entry["writes"] = _grouped(writes[bucket])
        entries.append(entry)
    s3_entries, bucket_errors = _table_bucket_entries(s3_buckets, second["s3tables"])
    errors = [DatabaseError(database=name, error=o.error.brief())  # type: ignore[typeddict-item]
              for name, o in zip(names, second["glue"], strict=True) if o.error is not None]
    answer = TableBuckets(databases_read=sum(o.ok for o in second["glue"]), database_errors=errors,
                          tables_without_s3_location=unlocated, buckets=entries + s3_entries)
    if listed_buckets.error is not None:
        answer["table_buckets_error"] = listed_buckets.error.brief()  # type: ignore[typeddict-item]
    if bucket_errors:
        answer["table_bucket_errors"] = bucket_errors
    return answer
