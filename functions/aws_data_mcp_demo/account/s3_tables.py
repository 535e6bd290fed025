"""The demo's S3 table: bucket `acme-analytics`, namespace `sales`, Iceberg table `daily_orders`.

It is a daily roll-up of the lake's US-dollar orders, from `sales.orders`' own files. So an answer
can be checked against the orders. pyiceberg writes it through the bucket's Glue catalog, as on AWS.
The emulator answers that catalog from moto's `s3tables` store. bob lacks `s3tables:GetTableData` on
it (docs/demo.md). Demo and tests only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.catalog.glue import GlueCatalog, _register_glue_catalog_id_with_glue_client
from pyiceberg.schema import Schema
from pyiceberg.table import Table
from pyiceberg.types import DateType, DecimalType, LongType, NestedField

from aws_data_mcp_demo.account.lakehouse import APPENDED_DAY, LOAD_DAYS
from aws_data_mcp_demo.account.seed_data import DEMO_CALLER_USER
from aws_data_mcp_demo.emulator.iceberg_io import io_properties

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.

TABLE_BUCKET = "acme-analytics"
NAMESPACE = "sales"
TABLE = "daily_orders"
CATALOG = f"s3tablescatalog/{TABLE_BUCKET}"
"""The table bucket's catalog, as Athena SQL names it."""
READ_ACTIONS = ("s3tables:GetTableBucket", "s3tables:GetNamespace", "s3tables:GetTable",
                "s3tables:GetTableMetadataLocation", "s3tables:GetTableData")
"""What Athena asks of S3 Tables as the caller to read a table (IAM mode)."""
DATA_ACTION = "s3tables:GetTableData"
LIST_ACTIONS = ["s3tables:ListTableBuckets", "s3tables:ListNamespaces", "s3tables:ListTables"]
"""What search and tabulator://buckets list the table buckets with (Athena's queries need none of them)."""
POLICY_ACTIONS = ["s3tables:GetTableBucketPolicy", "s3tables:GetTablePolicy", "s3tables:GetTableBucketEncryption"]
SCHEMA = Schema(
    NestedField(1, "order_date", DateType(), required=True, doc="The day the orders were placed (UTC)"),
    NestedField(2, "orders", LongType(), required=True, doc="The day's orders in USD (sales.orders, currency USD)"),
    NestedField(3, "revenue_usd", DecimalType(12, 2), doc="Their total_amount summed, in USD"),
)


@dataclass(frozen=True)
class S3TableSeed:
    """What the seed wrote: the table's ARN, its current metadata file and its snapshots, oldest first."""

    table_arn: str
    metadata_location: str
    snapshot_ids: tuple[int, ...]


def bucket_arn(region: str, account_id: str) -> str:
    return f"arn:aws:s3tables:{region}:{account_id}:bucket/{TABLE_BUCKET}"


def table_arn(region: str, account_id: str) -> str:
    """The table's ARN as the store names it (moto: by the table's name)."""
    return f"{bucket_arn(region, account_id)}/table/{TABLE}"


def daily_rows(files: Mapping[str, bytes], days: tuple[str, ...]) -> pa.Table:
    """One row per day of `days`: its USD orders in sales.orders' files, and their total."""
    rows = []
    for day in days:
        parts = [pq.read_table(pa.BufferReader(body)) for key, body in sorted(files.items())
                 if key.startswith(f"order_date={day}/")]
        orders = pa.concat_tables(parts)
        usd = orders.filter(pc.equal(orders["currency"], "USD"))
        total = sum((value for value in usd["total_amount"].to_pylist()), Decimal("0.00"))
        rows.append({"order_date": pa.scalar(day).cast(pa.date32()).as_py(), "orders": usd.num_rows,
                     "revenue_usd": total})
    return pa.Table.from_pylist(rows, schema=SCHEMA.as_arrow())


def reader_policy(region: str, account_id: str, *, data: bool = True) -> str:
    """The ``s3tables:`` reads of the table bucket's tables (without GetTableData on ``daily_orders``: bob's)."""
    bucket = bucket_arn(region, account_id)
    reads = {"Sid": "ReadS3Tables", "Effect": "Allow", "Resource": [bucket, f"{bucket}/*"],
             "Action": [action for action in READ_ACTIONS if action != DATA_ACTION]}
    tables = {"Resource": f"{bucket}/table/*"} if data else {"NotResource": table_arn(region, account_id)}
    listing = {"Sid": "ListS3Tables", "Effect": "Allow", "Resource": "*", "Action": LIST_ACTIONS}
    # what the access explainer reads to weigh a Deny and the key (as s3:Get* lets it read a bucket's)
    policies = {"Sid": "ReadS3TablesPolicies", "Effect": "Allow", "Resource": [bucket, f"{bucket}/*"],
                "Action": POLICY_ACTIONS}
    return json.dumps({"Version": "2012-10-17", "Statement": [
        reads, listing, policies, {"Sid": "ReadS3TablesData", "Effect": "Allow", "Action": DATA_ACTION, **tables}]})


def seed_s3_table(s3tables: BotoClient, glue: BotoClient, iam: BotoClient, account_id: str, region: str,
                  orders_files: Mapping[str, bytes]) -> S3TableSeed:
    """The table bucket, its namespace, and ``daily_orders`` with its two snapshots; demo-analyst may read it (the
    hosted callers' roles are granted in ``callers``). After IAM's seed (the user must exist)."""
    iam.put_user_policy(UserName=DEMO_CALLER_USER, PolicyName="demo-s3-tables",
                        PolicyDocument=reader_policy(region, account_id))
    arn = s3tables.create_table_bucket(name=TABLE_BUCKET)["arn"]
    s3tables.create_namespace(tableBucketARN=arn, namespace=[NAMESPACE])
    # pyiceberg names the catalog on each call of a client it makes; this one is given, so it is told here
    _register_glue_catalog_id_with_glue_client(glue, f"{account_id}:{CATALOG}")
    iceberg = GlueCatalog(CATALOG, client=glue, **io_properties(account_id))
    table: Table = iceberg.create_table((NAMESPACE, TABLE), SCHEMA, properties={
        "write.format.default": "parquet", "write.parquet.compression-codec": "snappy"})
    table.append(daily_rows(orders_files, LOAD_DAYS))
    table.append(daily_rows(orders_files, (APPENDED_DAY,)))
    return S3TableSeed(table_arn(region, account_id), table.metadata_location,
                       tuple(snapshot.snapshot_id for snapshot in table.snapshots()))
