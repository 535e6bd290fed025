"""A lake with an S3 table bucket, seeded into the suite's moto: S3 Tables' own records (moto's s3tables backend:
table bucket `acme-analytics`, namespace `sales`, table `daily_orders`), the Glue catalog Athena reads it through
(`s3tablescatalog/acme-analytics`, declared to `support.moto_lakehouse`, which fills what moto's Glue lacks), the
table's metadata file in its warehouse bucket, and in the default catalog an Iceberg table writing its data files
to another bucket (`write.data.path`) beside a plain Parquet table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from support import moto_lakehouse

ACCOUNT, REGION = "123456789012", "us-east-1"
TABLE_BUCKET = "acme-analytics"
TABLE_BUCKET_ARN = f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/{TABLE_BUCKET}"
BUCKET_CATALOG = f"s3tablescatalog/{TABLE_BUCKET}"
BUCKET_CATALOG_ID = f"{ACCOUNT}:{BUCKET_CATALOG}"
UNINTEGRATED = "scratch-tables"
"""A table bucket with no Glue catalog: not integrated with AWS analytics services."""
WAREHOUSE = "0f1e2d3c-acme-analytics--table-s3"
DAILY_LOCATION = f"s3://{WAREHOUSE}"
DAILY_METADATA = f"{DAILY_LOCATION}/metadata/00002-9a8b7c6d.metadata.json"
FIRST_DAY, SECOND_DAY = 1111111111111111111, 2222222222222222222
LAKE, DATA = "lake-bucket", "lake-data"
ORDERS_LOCATION = f"s3://{LAKE}/lakehouse/orders_iceberg"
ORDERS_METADATA = f"{ORDERS_LOCATION}/metadata/00001-aa.metadata.json"


def _snapshot(snapshot_id: int, parent: int | None, sequence: int, millis: int, total: int) -> dict[str, Any]:
    return {"snapshot-id": snapshot_id, **({"parent-snapshot-id": parent} if parent else {}),
            "sequence-number": sequence, "timestamp-ms": millis, "schema-id": 0,
            "manifest-list": f"{DAILY_LOCATION}/metadata/snap-{sequence}.avro",
            "summary": {"operation": "append", "added-records": "1", "total-records": str(total)}}


DAILY_ORDERS_DOCUMENT: dict[str, Any] = {
    "format-version": 2, "table-uuid": "9a8b7c6d-0000-4000-8000-000000000001", "location": DAILY_LOCATION,
    "last-sequence-number": 2, "last-updated-ms": 1775088300000, "last-column-id": 3, "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "order_date", "required": True, "type": "date"},
        {"id": 2, "name": "orders", "required": True, "type": "long", "doc": "orders placed that day"},
        {"id": 3, "name": "revenue_usd", "required": False, "type": "decimal(12, 2)"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
    "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"write.format.default": "parquet"},
    "current-snapshot-id": SECOND_DAY,
    "refs": {"main": {"snapshot-id": SECOND_DAY, "type": "branch"}},
    "snapshots": [_snapshot(FIRST_DAY, None, 1, 1775001900000, 1),
                  _snapshot(SECOND_DAY, FIRST_DAY, 2, 1775088300000, 2)],
}
"""`daily_orders`' metadata: one row per day, two snapshots, not partitioned."""
ORDERS_DOCUMENT: dict[str, Any] = {
    "format-version": 2, "table-uuid": "6c1e2a8e-0000-4000-8000-000000000002", "location": ORDERS_LOCATION,
    "last-sequence-number": 0, "last-updated-ms": 1775001900000, "last-column-id": 2, "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "order_id", "required": True, "type": "long"},
        {"id": 2, "name": "order_ts", "required": False, "type": "timestamptz"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
    "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"write.data.path": f"s3://{DATA}/orders"}, "current-snapshot-id": -1, "snapshots": [],
}

DAILY_ORDERS = {"Name": "daily_orders", "TableType": "EXTERNAL_TABLE", "DatabaseName": "sales",
                "CatalogId": BUCKET_CATALOG_ID, "Description": "Revenue per day",
                "Parameters": {"table_type": "ICEBERG", "metadata_location": DAILY_METADATA},
                "StorageDescriptor": {"Location": DAILY_LOCATION, "Columns": [
                    {"Name": "order_date", "Type": "date"}, {"Name": "orders", "Type": "bigint"},
                    {"Name": "revenue_usd", "Type": "decimal(12,2)", "Comment": "gross revenue in USD"}]}}


def _arn(path: str) -> str:
    return f"arn:aws:glue:{REGION}:{ACCOUNT}:catalog/{path}"


GLUE_CATALOGS = [
    {"CatalogId": f"{ACCOUNT}:s3tablescatalog", "Name": "s3tablescatalog", "ResourceArn": _arn("s3tablescatalog"),
     "FederatedCatalog": {"ConnectionName": "aws:s3tables",
                          "Identifier": f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/*"}},
    {"CatalogId": BUCKET_CATALOG_ID, "Name": TABLE_BUCKET, "ResourceArn": _arn(BUCKET_CATALOG),
     "FederatedCatalog": {"ConnectionName": "aws:s3tables", "Identifier": TABLE_BUCKET_ARN}},
]


def _put(s3: Any, location: str, document: dict[str, Any]) -> None:
    bucket, _, key = location.removeprefix("s3://").partition("/")
    s3.put_object(Bucket=bucket, Key=key, Body=json.dumps(document).encode())


def seed() -> None:
    """The lake, in the suite's moto (emptied by the caller first)."""
    session = boto3.Session(region_name=REGION)
    s3, glue, s3tables = session.client("s3"), session.client("glue"), session.client("s3tables")
    for bucket in (LAKE, DATA, WAREHOUSE):
        s3.create_bucket(Bucket=bucket)
    _put(s3, DAILY_METADATA, DAILY_ORDERS_DOCUMENT)
    _put(s3, ORDERS_METADATA, ORDERS_DOCUMENT)
    arn = s3tables.create_table_bucket(name=TABLE_BUCKET)["arn"]
    s3tables.create_namespace(tableBucketARN=arn, namespace=["sales"])
    s3tables.create_table(tableBucketARN=arn, namespace="sales", name="daily_orders", format="ICEBERG")
    s3tables.create_table_bucket(name=UNINTEGRATED)
    glue.create_database(DatabaseInput={"Name": "lakehouse", "LocationUri": f"s3://{LAKE}/lakehouse/"})
    glue.create_table(DatabaseName="lakehouse", TableInput={
        "Name": "orders_iceberg", "TableType": "EXTERNAL_TABLE", "Description": "The lake's orders",
        "Parameters": {"table_type": "ICEBERG", "metadata_location": ORDERS_METADATA},
        "StorageDescriptor": {"Location": ORDERS_LOCATION, "Columns": [
            {"Name": "order_id", "Type": "bigint"}, {"Name": "order_ts", "Type": "timestamp"}]}})
    glue.create_table(DatabaseName="lakehouse", TableInput={
        "Name": "daily_revenue_report", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "parquet"},
        "StorageDescriptor": {"Location": f"s3://{LAKE}/reports/", "Columns": [
            {"Name": "revenue_usd", "Type": "decimal(12,2)"}]}})


@pytest.fixture(scope="module")
def s3_tables_lake(moto_endpoint: str) -> Iterator[None]:
    """The lake for one test module, moto's Glue extended for it (and only it)."""
    from support.reading import reset_moto

    reset_moto()
    with pytest.MonkeyPatch.context() as patch:
        for owner, name, replacement in moto_lakehouse.extensions():
            patch.setattr(owner, name, replacement, raising=False)
        patch.setattr(moto_lakehouse, "CATALOGS", GLUE_CATALOGS)
        patch.setitem(moto_lakehouse.CATALOG_DATABASES, BUCKET_CATALOG_ID, [
            {"Name": "sales", "CatalogId": BUCKET_CATALOG_ID, "Description": "the sales namespace"}])
        patch.setitem(moto_lakehouse.CATALOG_TABLES, (BUCKET_CATALOG_ID, "sales"), [DAILY_ORDERS])
        seed()
        yield
    reset_moto()
