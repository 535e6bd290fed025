"""The demo's lakehouse: Iceberg and projected tables in the emulated Glue catalog (demo, tests).

`lakehouse.orders_iceberg` holds the lake's orders with a real table's history. It has a tagged
load, an append and a delete. pyiceberg writes every file, as Athena's Iceberg tables are written.
So the explainer reads real metadata. `lakehouse.clickstream_projected` is a Hive table read by
partition projection, with no Glue partition (docs/demo.md).
"""

import io
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
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

from aws_data_mcp_demo.account.lake_data import ORDERS_BUCKET
from aws_data_mcp_demo.account.lake_tables import Store
from aws_data_mcp_demo.account.seed_data import FORMATS, LAKEHOUSE_DAY_KEY, KmsKey
from aws_data_mcp_demo.emulator.iceberg_io import io_properties

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
NEWEST_DAY: tuple[str, str, KmsKey] = (ORDERS_BUCKET, f"{DATABASE}/{TABLE}/data/order_ts_day={APPENDED_DAY}/",
                                       LAKEHOUSE_DAY_KEY)
"""The appended day's data files, re-encrypted after the seed with a key the analysts' role may not use: alice's
query of the whole table is refused (kms:Decrypt), one that filters the day out runs."""

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


CLICKSTREAM = "clickstream_projected"
CLICKSTREAM_PREFIX = f"{DATABASE}/clickstream/"
CLICKSTREAM_DAYS = 7
CLICKSTREAM_LAST_DAY = date(2026, 4, 30)
DEVICES = ("web", "mobile")
CLICKSTREAM_PARAMETERS = {
    "projection.enabled": "true",
    "projection.event_date.type": "date", "projection.event_date.format": "yyyy-MM-dd",
    "projection.event_date.range": "2026-04-01,2026-04-30", "projection.event_date.interval": "1",
    "projection.event_date.interval.unit": "DAYS",
    "projection.device.type": "enum", "projection.device.values": ",".join(DEVICES),
    "storage.location.template": f"s3://{ORDERS_BUCKET}/{CLICKSTREAM_PREFIX}${{event_date}}/${{device}}/",
}
_PAGES = ("home", "search", "product", "cart", "checkout")
_CLICK_COLUMNS = (("event_id", "string", "Event identifier (EVT-<day>-<device>-<n>)"),
                  ("session_id", "string", "Session identifier, as marketing.web_sessions names them"),
                  ("event_ts", "timestamp", "When the page was viewed (UTC)"),
                  ("page", "string", "home | search | product | cart | checkout"),
                  ("customer_id", "string", "Customer identifier, joins sales.customers"))
_CLICK_KEYS = (("event_date", "string", "Event date, yyyy-MM-dd (projected: April 2026)"),
               ("device", "string", "web | mobile (projected: enum)"))


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


def _clicks(day: date, device: str) -> bytes:
    """One projected partition's page views as Parquet: a number of them that varies by day and device."""
    count = 40 + (day.day * 7 + DEVICES.index(device) * 3) % 20
    start = datetime(day.year, day.month, day.day, 6)
    rows = pa.table({
        "event_id": [f"EVT-{day:%Y%m%d}-{device}-{n:03d}" for n in range(count)],
        "session_id": [f"SES-{day:%m%d}{DEVICES.index(device)}{n // 4:03d}" for n in range(count)],
        "event_ts": pa.array([start + timedelta(minutes=17 * n) for n in range(count)], pa.timestamp("us")),
        "page": [_PAGES[(n + day.day) % len(_PAGES)] for n in range(count)],
        "customer_id": [f"CUS-{1_000_000 + (n * 37 + day.day) % 50_000}" for n in range(count)],
    })
    body = io.BytesIO()
    pq.write_table(rows, body, compression="snappy")
    return body.getvalue()


def seed_clickstream(store: Store, glue: BotoClient) -> None:
    """``lakehouse.clickstream_projected``: its files at the template's locations, its projected Glue table."""
    for offset in range(CLICKSTREAM_DAYS):
        day = CLICKSTREAM_LAST_DAY - timedelta(days=offset)
        for device in DEVICES:
            store(ORDERS_BUCKET, f"{CLICKSTREAM_PREFIX}{day:%Y-%m-%d}/{device}/part-00000.snappy.parquet",
                  _clicks(day, device))
    fmt = FORMATS["parquet"]
    glue.create_table(DatabaseName=DATABASE, TableInput={
        "Name": CLICKSTREAM, "TableType": "EXTERNAL_TABLE", "Owner": "growth-marketing",
        "Description": "Page views of the web and mobile shop, by partition projection (no Glue partitions): "
                       "event_date over April 2026 (data from 2026-04-24), device web | mobile. Filter on both.",
        "Parameters": {"EXTERNAL": "TRUE", **fmt["TableParameters"], **CLICKSTREAM_PARAMETERS},
        "PartitionKeys": [{"Name": n, "Type": t, "Comment": c} for n, t, c in _CLICK_KEYS],
        "StorageDescriptor": {
            "Columns": [{"Name": n, "Type": t, "Comment": c} for n, t, c in _CLICK_COLUMNS],
            "Location": f"s3://{ORDERS_BUCKET}/{CLICKSTREAM_PREFIX}", "InputFormat": fmt["InputFormat"],
            "OutputFormat": fmt["OutputFormat"], "SerdeInfo": fmt["SerdeInfo"], "Compressed": fmt["Compressed"]}})


def seed_lakehouse(glue: BotoClient, account_id: str, orders_files: Mapping[str, bytes], store: Store) -> Lakehouse:
    """Create ``lakehouse.orders_iceberg`` with its three snapshots and its tag, and ``clickstream_projected``
    (the bucket must exist)."""
    iceberg = catalog(glue, account_id)
    iceberg.create_namespace(DATABASE, {"comment": DATABASE_DESCRIPTION,
                                        "location": f"s3://{ORDERS_BUCKET}/{DATABASE}/"})
    seed_clickstream(store, glue)
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
