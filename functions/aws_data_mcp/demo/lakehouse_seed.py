"""The demo's lakehouse: an Iceberg table written by pyiceberg through the emulated Glue catalog (demo and tests only).

``lakehouse.orders_iceberg`` holds the lake's orders of the last days of March 2026 and the first of April,
partitioned by ``day(order_ts)``, with the history an Iceberg table really has: the initial load of
``LOAD_DAYS`` (with a few test orders, ``customer_id < 0``), tagged ``MONTH_END_TAG``; an append of
``APPENDED_DAY``; a delete of the test orders. pyiceberg's GlueCatalog writes every file (``iceberg_io``: straight
into moto's S3 in this process) and commits each snapshot to Glue as Athena's Iceberg tables are registered
(``table_type=ICEBERG``, ``metadata_location``). The rows come from ``sales.orders``' own files: the same orders,
``customer_id`` as the customer's number. Snapshot ids and times are the seed's, as a real table's are its writer's.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.catalog.glue import GlueCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.transforms import DayTransform
from pyiceberg.types import DecimalType, IntegerType, LongType, NestedField, StringType, TimestampType

from .iceberg_io import io_properties
from .lake_data import ORDERS_BUCKET

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.

DATABASE = "lakehouse"
TABLE = "orders_iceberg"
LOCATION = f"s3://{ORDERS_BUCKET}/{DATABASE}/{TABLE}"
DATABASE_DESCRIPTION = "Open table formats: Iceberg tables with their snapshots, written by the platform's jobs."
TABLE_DESCRIPTION = (
    "Iceberg table of the orders of 2026-03-29 to 2026-04-01 (sales.orders' rows, customer_id as the customer's "
    "number), partitioned by day(order_ts): filter on order_ts. Three snapshots: the load of March (tagged "
    "month-end-2026-03), the append of 2026-04-01, the delete of test orders (customer_id < 0).")
LOAD_DAYS = ("2026-03-29", "2026-03-30", "2026-03-31")
APPENDED_DAY = "2026-04-01"
MONTH_END_TAG = "month-end-2026-03"
TEST_ORDERS = 3
"""Test orders in the load (customer_id -1, -2, ...), on its last day, deleted by the third snapshot."""
TEST_ORDERS_FILTER = "customer_id < 0"

SCHEMA = Schema(
    NestedField(1, "order_id", StringType(), required=True, doc="Order identifier (ORD-nnnnnnn)"),
    NestedField(2, "customer_id", LongType(), required=True,
                doc="Customer number: sales.customers' CUS-<n>; negative for test orders"),
    NestedField(3, "order_ts", TimestampType(), required=True, doc="When the order was placed (UTC)"),
    NestedField(4, "status", StringType(), doc="placed | shipped | delivered | returned | cancelled"),
    NestedField(5, "currency", StringType(), doc="ISO 4217 code of total_amount: USD, EUR or GBP"),
    NestedField(6, "total_amount", DecimalType(12, 2), doc="Order total including tax, in the order's currency"),
    NestedField(7, "items_count", IntegerType(), doc="Number of order lines"),
    NestedField(8, "channel", StringType(), doc="web | mobile | store"),
)
PARTITION_SPEC = PartitionSpec(PartitionField(source_id=3, field_id=1000, transform=DayTransform(),
                                              name="order_ts_day"))


@dataclass(frozen=True)
class Lakehouse:
    """What the seed wrote: the table's metadata file and its snapshots, oldest first."""

    metadata_location: str
    snapshot_ids: tuple[int, ...]


def catalog(glue: BotoClient, account_id: str) -> GlueCatalog:
    """pyiceberg's Glue catalog over `glue` (a client of the emulated account), its files in that account's S3."""
    return GlueCatalog("awsdatacatalog", client=glue, **io_properties(account_id))


def _orders(files: Mapping[str, bytes], day: str) -> pa.Table:
    """One day of sales.orders' rows (its partition's files) in the Iceberg table's schema."""
    days = [pq.read_table(pa.BufferReader(body)) for key, body in sorted(files.items())
            if key.startswith(f"order_date={day}/")]
    rows = pa.concat_tables(days)
    customer = pc.cast(pc.utf8_slice_codeunits(rows["customer_id"], 4), pa.int64())
    rows = rows.drop_columns([c for c in rows.column_names if c not in SCHEMA.column_names])
    return rows.set_column(rows.column_names.index("customer_id"), "customer_id", customer).cast(
        SCHEMA.as_arrow())


def _test_orders(like: pa.Table) -> pa.Table:
    """A few orders placed by the shop's own tests: late on the load's last day, negative customers."""
    sample = like.slice(like.num_rows - TEST_ORDERS)
    count = sample.num_rows
    rows = sample.set_column(0, "order_id", pa.array([f"ORD-TEST-{n:03d}" for n in range(1, count + 1)]))
    rows = rows.set_column(1, "customer_id", pa.array([-n for n in range(1, count + 1)], pa.int64()))
    return rows.cast(SCHEMA.as_arrow())


def seed_lakehouse(glue: BotoClient, account_id: str, orders_files: Mapping[str, bytes]) -> Lakehouse:
    """Create ``lakehouse.orders_iceberg`` with its three snapshots and its tag (the bucket must exist)."""
    iceberg = catalog(glue, account_id)
    iceberg.create_namespace(DATABASE, {"comment": DATABASE_DESCRIPTION,
                                        "location": f"s3://{ORDERS_BUCKET}/{DATABASE}/"})
    table: Table = iceberg.create_table(
        (DATABASE, TABLE), SCHEMA, location=LOCATION, partition_spec=PARTITION_SPEC,
        properties={"Description": TABLE_DESCRIPTION, "format-version": "2", "write.format.default": "parquet",
                    "write.parquet.compression-codec": "snappy"})
    loaded = [_orders(orders_files, day) for day in LOAD_DAYS]
    table.append(pa.concat_tables([*loaded, _test_orders(loaded[-1])]))
    table.manage_snapshots().create_tag(table.current_snapshot().snapshot_id, MONTH_END_TAG).commit()
    table.append(_orders(orders_files, APPENDED_DAY))
    table.delete(TEST_ORDERS_FILTER)
    return Lakehouse(table.metadata_location, tuple(snapshot.snapshot_id for snapshot in table.snapshots()))
