"""tabulator://: which S3 buckets hold the caller's Glue tables, read from every table's own location."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, TypedDict
from urllib.parse import urlparse

from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import glue_databases, glue_tables
from aws_data_mcp.resources.resolving import ItemError

S3_SCHEMES = ("s3", "s3a", "s3n")


class BucketDatabase(TypedDict):
    database: str
    tables: list[str]


class TableBucket(TypedDict):
    bucket: str
    table_count: int
    databases: list[BucketDatabase]


class DatabaseError(TypedDict):
    database: str
    error: ItemError


class TableBuckets(TypedDict):
    databases_read: int
    database_errors: list[DatabaseError]
    tables_without_s3_location: int
    buckets: list[TableBucket]


def table_bucket(table: Mapping[str, Any]) -> str | None:
    """The bucket of a table's `s3://bucket/prefix` location (Iceberg tables may keep it in their parameters)."""
    location = (table.get("StorageDescriptor") or {}).get("Location") or (table.get("Parameters") or {}).get(
        "location")
    parsed = urlparse(location or "")
    return parsed.netloc or None if parsed.scheme in S3_SCHEMES else None


@registry.resource(
    "tabulator://buckets",
    name="table-buckets",
    title="Buckets behind the tables",
    description="The S3 buckets that back Glue/Athena tables: per bucket, the databases and tables located in "
    "it (from each table's s3:// location); every database read in parallel, a denied one kept with its error.",
    requires="auth",
    aws_calls=["glue:GetDatabases", "glue:GetTables"],
    list_field="buckets",
)
def buckets(request: ResourceRequest) -> TableBuckets:
    """Two waves: GetDatabases (all pages), then GetTables (all pages) for every database in parallel."""
    glue = request.client("glue")
    names = [d["Name"] for d in glue_databases(glue)]
    outcomes = request.fan_out(lambda name: glue_tables(glue, name), names, action="glue:GetTables")
    located: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    unlocated = 0
    for outcome in outcomes:
        for table in outcome.value or []:
            bucket = table_bucket(table)
            if bucket is None:
                unlocated += 1
            else:
                located[bucket][outcome.item].append(table["Name"])
    entries = [
        TableBucket(bucket=bucket, table_count=sum(len(t) for t in by_database.values()),
                    databases=[BucketDatabase(database=d, tables=sorted(t)) for d, t in sorted(by_database.items())])
        for bucket, by_database in sorted(located.items())
    ]
    errors = [DatabaseError(database=o.item, error=o.error.brief())  # type: ignore[typeddict-item]
              for o in outcomes if o.error is not None]
    return TableBuckets(databases_read=sum(o.ok for o in outcomes), database_errors=errors,
                        tables_without_s3_location=unlocated, buckets=entries)
