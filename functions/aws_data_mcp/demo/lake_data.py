"""Real rows for the demo lake's ``sales.orders``: a partitioned Parquet table large enough to page and to guard.

The seed describes ``sales.orders`` with placeholder files; ``put_orders`` replaces them with ``ORDER_ROWS``
deterministic orders (one uncompressed Parquet file per ``order_date=YYYY-MM-DD/`` partition over ``ORDER_DAYS``
days, about 12 MB in all: more than Athena's smallest per-query cutoff, 10 MB, so a workgroup's cutoff can refuse
a full scan while a query on a few days passes) and registers the table and its partitions in Glue, through the
ordinary S3 and Glue APIs. Every value is a function of the row number (``order_values``), so tests can compute
exact aggregates.
"""

import contextlib
import functools
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import boto3
import duckdb

from .seed_data import TABLES

ORDERS_DATABASE = "sales"
ORDERS_TABLE = "orders"
ORDERS_BUCKET = "acme-datalake-curated"
ORDERS_PREFIX = "sales/orders/"
ORDER_ROWS = 250_000
ORDER_DAYS = 120
FIRST_ORDER_DAY = date(2026, 1, 1)

_STATUSES = ("placed", "shipped", "delivered", "returned", "cancelled")
_CURRENCIES = ("USD", "EUR", "GBP")
_CHANNELS = ("web", "mobile", "store")
_COLUMNS = next(t.columns for t in TABLES if (t.database, t.name) == (ORDERS_DATABASE, ORDERS_TABLE))
"""The seed inventory's schema of sales.orders: the files written here hold exactly those columns."""
_PARQUET: dict[str, Any] = {
    "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                  "Parameters": {"serialization.format": "1"}},
}


@dataclass(frozen=True)
class OrderValues:
    """One generated order, as ``order_values`` defines it (the Parquet files hold the same values)."""

    order_id: str
    customer_id: str
    order_date: date
    seconds_into_day: int
    status: str
    currency: str
    total_amount: Decimal
    items_count: int
    channel: str


def order_values(row: int, days: int = ORDER_DAYS) -> OrderValues:
    """The values of order number ``row`` (0-based): what the generated files contain, for tests to check."""
    return OrderValues(
        order_id=f"ORD-{1_000_000 + row}",
        customer_id=f"CUS-{1_000_000 + (row * 7919) % 50_000}",
        order_date=FIRST_ORDER_DAY + timedelta(days=row % days),
        seconds_into_day=(row * 37) % 86_400,
        status=_STATUSES[(row // 7) % len(_STATUSES)],
        currency=_CURRENCIES[(row // 11) % len(_CURRENCIES)],
        total_amount=Decimal((row * 7907) % 50_000 + 500) / 100,
        items_count=1 + row % 9,
        channel=_CHANNELS[(row // 3) % len(_CHANNELS)],
    )


def _choice(options: tuple[str, ...], index: str) -> str:
    return "[" + ", ".join(f"'{option}'" for option in options) + f"][1 + ({index}) % {len(options)}]"


def _generation_sql(rows: int, days: int) -> str:
    """DuckDB SQL producing the same rows as ``order_values``."""
    day = f"DATE '{FIRST_ORDER_DAY.isoformat()}' + CAST(i % {days} AS INTEGER)"
    return (
        f"SELECT 'ORD-' || (1000000 + i) AS order_id, 'CUS-' || (1000000 + (i * 7919) % 50000) AS customer_id, "
        f"CAST({day} AS TIMESTAMP) + to_seconds((i * 37) % 86400) AS order_ts, "
        f"{_choice(_STATUSES, 'i // 7')} AS status, {_choice(_CURRENCIES, 'i // 11')} AS currency, "
        f"CAST(((i * 7907) % 50000 + 500) / 100 AS DECIMAL(12, 2)) AS total_amount, "
        f"CAST(1 + i % 9 AS INTEGER) AS items_count, {_choice(_CHANNELS, 'i // 3')} AS channel, "
        f"strftime({day}, '%Y-%m-%d') AS order_date FROM range({rows}) AS t(i)"
    )


@functools.cache
def order_files(rows: int = ORDER_ROWS, days: int = ORDER_DAYS) -> Mapping[str, bytes]:
    """The table's objects: key (under ``ORDERS_PREFIX``) -> Parquet bytes, one file per day. Generated once per
    process (every value is a function of the row number): a demo account started again serves the same files
    without paying for them again."""
    with tempfile.TemporaryDirectory(prefix="aws-data-mcp-orders-") as scratch, duckdb.connect() as connection:
        connection.execute("SET enable_progress_bar = false")
        connection.execute(f"COPY ({_generation_sql(rows, days)}) TO '{scratch}' "
                           "(FORMAT parquet, PARTITION_BY (order_date), COMPRESSION uncompressed)")
        return MappingProxyType({
            f"{ORDERS_PREFIX}{path.parent.name}/part-00000.parquet": path.read_bytes()
            for path in sorted(Path(scratch).glob("order_date=*/*.parquet"))
        })


def _storage_descriptor(location: str) -> dict[str, Any]:
    return {"Columns": [{"Name": n, "Type": t, "Comment": c} for n, t, c in _COLUMNS], "Location": location,
            **_PARQUET, "Compressed": False, "NumberOfBuckets": -1, "BucketColumns": [], "SortColumns": [],
            "StoredAsSubDirectories": False}


def _table_input(location: str) -> dict[str, Any]:
    return {
        "Name": ORDERS_TABLE,
        "Description": "One row per order, deduplicated from the raw feed.",
        "Owner": "data-platform",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"EXTERNAL": "TRUE", "classification": "parquet", "compressionType": "none",
                       "typeOfData": "file"},
        "PartitionKeys": [{"Name": "order_date", "Type": "string", "Comment": "Order date, yyyy-MM-dd"}],
        "StorageDescriptor": _storage_descriptor(location),
    }


def put_orders(session: boto3.Session, endpoint_url: str | None = None, *, rows: int = ORDER_ROWS,
               days: int = ORDER_DAYS) -> int:
    """Put ``sales.orders`` into the emulated account: its files (replacing any under its prefix), the Glue
    table (created or updated) and one Glue partition per day. Returns the bytes stored.

    The database and bucket are created when missing, so this works on an empty account as on the seeded one.
    """
    s3 = session.client("s3", endpoint_url=endpoint_url)
    glue = session.client("glue", endpoint_url=endpoint_url)
    if ORDERS_BUCKET not in {bucket["Name"] for bucket in s3.list_buckets()["Buckets"]}:
        s3.create_bucket(Bucket=ORDERS_BUCKET)
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=ORDERS_BUCKET, Prefix=ORDERS_PREFIX):
        for stale in page.get("Contents", []):
            s3.delete_object(Bucket=ORDERS_BUCKET, Key=stale["Key"])
    files = order_files(rows, days)
    for key, body in files.items():
        s3.put_object(Bucket=ORDERS_BUCKET, Key=key, Body=body)

    location = f"s3://{ORDERS_BUCKET}/{ORDERS_PREFIX}"
    if ORDERS_DATABASE not in {database["Name"] for database in glue.get_databases()["DatabaseList"]}:
        glue.create_database(DatabaseInput={"Name": ORDERS_DATABASE})
    with contextlib.suppress(glue.exceptions.EntityNotFoundException):  # the seed's, with placeholder partitions
        glue.delete_table(DatabaseName=ORDERS_DATABASE, Name=ORDERS_TABLE)
    glue.create_table(DatabaseName=ORDERS_DATABASE, TableInput=_table_input(location))
    days_stored = sorted({key.split("/")[-2].split("=", 1)[1] for key in files})
    for start in range(0, len(days_stored), 100):  # BatchCreatePartition takes at most 100
        glue.batch_create_partition(
            DatabaseName=ORDERS_DATABASE, TableName=ORDERS_TABLE,
            PartitionInputList=[{"Values": [day], "Parameters": {},
                                 "StorageDescriptor": _storage_descriptor(f"{location}order_date={day}/")}
                                for day in days_stored[start:start + 100]],
        )
    return sum(len(body) for body in files.values())
