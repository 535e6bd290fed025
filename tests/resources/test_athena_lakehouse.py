"""The table resource on a current lake, read through the real protocol: an Iceberg table (a spec-valid metadata
file in moto's S3, a Glue table of table_type ICEBERG pointing at it), a table with partition projection, a Delta
Lake table and Hudi's merge-on-read pair; and athena://catalogs over Glue's catalogs and Athena's.

What moto's Glue lacks (GetTable's LATEST_ICEBERG_METADATA, GetCatalogs) is filled in by `support.moto_lakehouse`
for this module only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import boto3
import pytest

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.lakehouse.iceberg import describe_iceberg, from_glue
from aws_data_mcp.resources.athena.open_tables import read_metadata
from support import moto_lakehouse
from support.faults import AwsFaults
from support.reading import direct_read, read_everywhere, reset_moto
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio

ACCOUNT, REGION = "123456789012", "us-east-1"
LAKE, DATA = "lake-bucket", "lake-data"
DATABASE = "lakehouse"
TABLE_LOCATION = f"s3://{LAKE}/{DATABASE}/orders_iceberg"
METADATA = f"{TABLE_LOCATION}/metadata/00003-6c1e2a8e-7f55-4c29-9c7e-0f1b2c3d4e5f.metadata.json"
INITIAL, LATER_DAY, CLEANED = 4183020680887155442, 6021859238714250133, 8840210675517303871
"""The snapshots: the initial load, an append of a later day, a delete of the test orders."""


def _millis(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


COMMITTED = {INITIAL: _millis("2026-03-30T08:00:00.125+00:00"), LATER_DAY: _millis("2026-03-31T08:00:00+00:00"),
             CLEANED: _millis("2026-04-01T09:30:15.500+00:00")}


def _snapshot(snapshot_id: int, parent: int | None, sequence: int, operation: str, added: int, deleted: int,
              total: int) -> dict[str, Any]:
    summary = {"operation": operation, "added-records": str(added), "deleted-records": str(deleted),
               "total-records": str(total), "total-data-files": str(sequence + 1)}
    return {"snapshot-id": snapshot_id, **({"parent-snapshot-id": parent} if parent else {}),
            "sequence-number": sequence, "timestamp-ms": COMMITTED[snapshot_id],
            "manifest-list": f"{TABLE_LOCATION}/metadata/snap-{snapshot_id}-1-a1b2c3d4.avro",
            "summary": {k: v for k, v in summary.items() if v != "0" or k == "total-records"}, "schema-id": 1}


ORDERS_METADATA: dict[str, Any] = {
    "format-version": 2,
    "table-uuid": "6c1e2a8e-7f55-4c29-9c7e-0f1b2c3d4e5f",
    "location": TABLE_LOCATION,
    "last-sequence-number": 3,
    "last-updated-ms": COMMITTED[CLEANED],
    "last-column-id": 8,
    "current-schema-id": 1,
    "schemas": [
        {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "order_id", "required": True, "type": "long"},
            {"id": 2, "name": "customer_id", "required": False, "type": "long"},
            {"id": 3, "name": "order_ts", "required": False, "type": "timestamptz"}]},
        {"type": "struct", "schema-id": 1, "identifier-field-ids": [1], "fields": [
            {"id": 1, "name": "order_id", "required": True, "type": "long"},
            {"id": 2, "name": "customer_id", "required": False, "type": "long"},
            {"id": 3, "name": "order_ts", "required": False, "type": "timestamptz"},
            {"id": 4, "name": "amount_usd", "required": False, "type": "decimal(10, 2)", "doc": "order total"},
            {"id": 5, "name": "shipping", "required": False, "type": {"type": "struct", "fields": [
                {"id": 6, "name": "country", "required": False, "type": "string"}]}},
            {"id": 7, "name": "tags", "required": False,
             "type": {"type": "list", "element-id": 8, "element": "string", "element-required": False}}]},
    ],
    "default-spec-id": 1,
    "partition-specs": [
        {"spec-id": 0, "fields": []},
        {"spec-id": 1, "fields": [
            {"name": "order_ts_day", "transform": "day", "source-id": 3, "field-id": 1000},
            {"name": "customer_id_bucket", "transform": "bucket[16]", "source-id": 2, "field-id": 1001}]},
    ],
    "last-partition-id": 1001,
    "default-sort-order-id": 1,
    "sort-orders": [
        {"order-id": 0, "fields": []},
        {"order-id": 1, "fields": [{"transform": "identity", "source-id": 1, "direction": "asc",
                                    "null-order": "nulls-first"}]},
    ],
    "properties": {"write.data.path": f"s3://{DATA}/orders", "write.format.default": "parquet",
                   "write.delete.mode": "merge-on-read", "owner": "analytics", "commit.retry.num-retries": "4"},
    "current-snapshot-id": CLEANED,
    "refs": {"main": {"snapshot-id": CLEANED, "type": "branch"},
             "month-end-2026-03": {"snapshot-id": LATER_DAY, "type": "tag", "max-ref-age-ms": 31_536_000_000},
             "audit": {"snapshot-id": LATER_DAY, "type": "branch"}},
    "snapshots": [
        _snapshot(INITIAL, None, 1, "append", 100, 0, 100),
        _snapshot(LATER_DAY, INITIAL, 2, "append", 40, 0, 140),
        _snapshot(CLEANED, LATER_DAY, 3, "delete", 0, 3, 137),
    ],
    "snapshot-log": [{"snapshot-id": s, "timestamp-ms": COMMITTED[s]} for s in (INITIAL, LATER_DAY, CLEANED)],
    "metadata-log": [{"metadata-file": f"{TABLE_LOCATION}/metadata/0000{n}-old.metadata.json",
                      "timestamp-ms": COMMITTED[s]} for n, s in ((1, INITIAL), (2, LATER_DAY))],
}
"""A version 2 table metadata document as the Iceberg spec writes it (pyiceberg parses it: see the last test)."""

ICEBERG_COLUMNS = [{"Name": "order_id", "Type": "bigint"}, {"Name": "customer_id", "Type": "bigint"},
                   {"Name": "order_ts", "Type": "timestamp"}, {"Name": "amount_usd", "Type": "decimal(10,2)"},
                   {"Name": "shipping", "Type": "struct<country:string>"}, {"Name": "tags", "Type": "array<string>"}]
PARQUET = {"InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
           "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"}}
HUDI_RO = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
HUDI_RT = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"


def _tables() -> list[dict[str, Any]]:
    def stored(location: str, columns: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
        return {"Columns": columns, "Location": location, **PARQUET, **extra}

    clicks = [{"Name": "user_id", "Type": "string"}, {"Name": "url", "Type": "string"}]
    return [
        {"Name": "orders_iceberg", "TableType": "EXTERNAL_TABLE", "Description": "The lake's orders",
         "Parameters": {"table_type": "ICEBERG", "metadata_location": METADATA,
                        "previous_metadata_location": f"{TABLE_LOCATION}/metadata/00002-old.metadata.json"},
         "StorageDescriptor": stored(TABLE_LOCATION, ICEBERG_COLUMNS)},
        {"Name": "clickstream_projected", "TableType": "EXTERNAL_TABLE",
         "PartitionKeys": [{"Name": "dt", "Type": "string"}, {"Name": "region", "Type": "string"}],
         "Parameters": {"classification": "parquet", "projection.enabled": "true",
                        "projection.dt.type": "date", "projection.dt.range": "2026-01-01,NOW",
                        "projection.dt.format": "yyyy-MM-dd", "projection.dt.interval": "1",
                        "projection.dt.interval.unit": "DAYS",
                        "projection.region.type": "enum", "projection.region.values": "eu,us, apac",
                        "storage.location.template": f"s3://{LAKE}/clicks/${{region}}/${{dt}}/"},
         "StorageDescriptor": stored(f"s3://{LAKE}/clicks/", clicks)},
        {"Name": "customers_delta", "TableType": "EXTERNAL_TABLE", "Parameters": {"table_type": "DELTA"},
         "StorageDescriptor": stored(f"s3://{LAKE}/customers/", clicks)},
        {"Name": "trips_rt", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": stored(f"s3://{LAKE}/trips/", clicks) | {"InputFormat": HUDI_RT}},
        {"Name": "trips_ro", "TableType": "EXTERNAL_TABLE", "Parameters": {},
         "StorageDescriptor": stored(f"s3://{LAKE}/trips/", clicks) | {"InputFormat": HUDI_RO}},
    ]


def _arn(path: str) -> str:
    return f"arn:aws:glue:{REGION}:{ACCOUNT}:catalog/{path}"


BUCKET_CATALOG = "s3tablescatalog/acme-analytics"
BUCKET_CATALOG_ID = f"{ACCOUNT}:{BUCKET_CATALOG}"
S3_TABLES_CONNECTION = {"ConnectionName": "aws:s3tables"}
REDSHIFT = {"DataLakeAccessProperties": {"CatalogType": "aws:redshift", "DataLakeAccess": True}}
GLUE_CATALOGS = [
    {"CatalogId": f"{ACCOUNT}:s3tablescatalog", "Name": "s3tablescatalog", "ResourceArn": _arn("s3tablescatalog"),
     "FederatedCatalog": S3_TABLES_CONNECTION | {"Identifier": f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/*"}},
    {"CatalogId": BUCKET_CATALOG_ID, "Name": "acme-analytics", "ResourceArn": _arn(BUCKET_CATALOG),
     "FederatedCatalog": S3_TABLES_CONNECTION | {
         "Identifier": f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/acme-analytics"}},
    {"CatalogId": f"{ACCOUNT}:dynamo_orders", "Name": "dynamo_orders", "ResourceArn": _arn("dynamo_orders"),
     "Description": "Orders in DynamoDB", "FederatedCatalog": {
         "Identifier": f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/orders", "ConnectionName": "dynamodb-orders"}},
    {"CatalogId": f"{ACCOUNT}:salescatalog", "Name": "salescatalog", "ResourceArn": _arn("salescatalog"),
     "CatalogProperties": REDSHIFT},
    {"CatalogId": f"{ACCOUNT}:salescatalog/dev", "Name": "dev", "ResourceArn": _arn("salescatalog/dev"),
     "CatalogProperties": REDSHIFT},
]
"""Glue's catalogs as GetCatalogs (recursive) answers them: S3 Tables' parent and one table bucket's, a federated
DynamoDB catalog, a Redshift-managed catalog and its database's."""
TABLE_BUCKET_STORE = "0f1e2d3c-acme-analytics--table-s3"
DAILY_LOCATION = f"s3://{TABLE_BUCKET_STORE}"
DAILY_METADATA = f"{DAILY_LOCATION}/metadata/00002-9a8b7c6d.metadata.json"
FIRST_DAY, SECOND_DAY = 1111111111111111111, 2222222222222222222
DAILY_ORDERS_METADATA: dict[str, Any] = {
    "format-version": 2, "table-uuid": "9a8b7c6d-0000-4000-8000-000000000001", "location": DAILY_LOCATION,
    "last-sequence-number": 2, "last-updated-ms": _millis("2026-04-02T00:05:00+00:00"), "last-column-id": 3,
    "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "order_date", "required": True, "type": "date"},
        {"id": 2, "name": "orders", "required": True, "type": "long"},
        {"id": 3, "name": "revenue_usd", "required": False, "type": "decimal(12, 2)"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
    "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"write.format.default": "parquet"},
    "current-snapshot-id": SECOND_DAY,
    "refs": {"main": {"snapshot-id": SECOND_DAY, "type": "branch"}},
    "snapshots": [
        {"snapshot-id": FIRST_DAY, "sequence-number": 1, "timestamp-ms": _millis("2026-04-01T00:05:00+00:00"),
         "manifest-list": f"{DAILY_LOCATION}/metadata/snap-1.avro", "schema-id": 0,
         "summary": {"operation": "append", "added-records": "1", "total-records": "1"}},
        {"snapshot-id": SECOND_DAY, "parent-snapshot-id": FIRST_DAY, "sequence-number": 2,
         "timestamp-ms": _millis("2026-04-02T00:05:00+00:00"), "schema-id": 0,
         "manifest-list": f"{DAILY_LOCATION}/metadata/snap-2.avro",
         "summary": {"operation": "append", "added-records": "1", "total-records": "2"}}],
}
"""An S3 table's metadata: one row per day, two snapshots, not partitioned."""
DAILY_ORDERS = {"Name": "daily_orders", "TableType": "EXTERNAL_TABLE", "DatabaseName": "sales",
                "CatalogId": BUCKET_CATALOG_ID,
                "Parameters": {"table_type": "ICEBERG", "metadata_location": DAILY_METADATA},
                "StorageDescriptor": {"Location": DAILY_LOCATION, "Columns": [
                    {"Name": "order_date", "Type": "date"}, {"Name": "orders", "Type": "bigint"},
                    {"Name": "revenue_usd", "Type": "decimal(12,2)"}]}}


@pytest.fixture(scope="module")
def lake(moto_endpoint: str) -> Iterator[None]:
    reset_moto()
    with pytest.MonkeyPatch.context() as patch:
        for owner, name, replacement in moto_lakehouse.extensions():
            patch.setattr(owner, name, replacement, raising=False)
        patch.setattr(moto_lakehouse, "CATALOGS", GLUE_CATALOGS)
        patch.setitem(moto_lakehouse.CATALOG_DATABASES, BUCKET_CATALOG_ID, [
            {"Name": "sales", "CatalogId": BUCKET_CATALOG_ID, "Description": "the sales namespace"}])
        patch.setitem(moto_lakehouse.CATALOG_TABLES, (BUCKET_CATALOG_ID, "sales"), [DAILY_ORDERS])
        session = boto3.Session(region_name=REGION)
        s3, glue, athena = session.client("s3"), session.client("glue"), session.client("athena")
        athena.create_data_catalog(Name="partner", Type="LAMBDA", Description="A partner's connector",
                                   Parameters={"function": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:partner"})
        athena.create_data_catalog(Name="hms", Type="HIVE",
                                   Parameters={"metadata-function": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:hms"})
        for bucket in (LAKE, DATA, TABLE_BUCKET_STORE):
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=TABLE_BUCKET_STORE, Key=DAILY_METADATA.removeprefix(f"{DAILY_LOCATION}/"),
                      Body=json.dumps(DAILY_ORDERS_METADATA).encode())
        s3.put_object(Bucket=LAKE, Key=METADATA.removeprefix(f"s3://{LAKE}/"),
                      Body=json.dumps(ORDERS_METADATA).encode())
        glue.create_database(DatabaseInput={"Name": DATABASE, "LocationUri": f"s3://{LAKE}/{DATABASE}/"})
        for table in _tables():
            glue.create_table(DatabaseName=DATABASE, TableInput=table)
        yield
    reset_moto()


@pytest.fixture(scope="module")
def server(lake: None) -> Iterator[ServerThread]:
    from aws_data_mcp.config import Settings

    with ServerThread(Settings(mode="local", port=free_port())) as thread:
        yield thread


def _uri(table: str) -> str:
    return f"athena://databases/{DATABASE}/tables/{table}"


# --------------------------------------------------------------------------- Iceberg

async def test_an_iceberg_table_is_described_from_its_metadata_file(server: ServerThread,
                                                                   local_lambda_handler: Any) -> None:
    table = await read_everywhere(server.url, local_lambda_handler, _uri("orders_iceberg"))
    iceberg = table["iceberg"]
    assert table["format"] == "iceberg" and table["partition_keys"] == []
    assert table["partitioning"] == "partitioned by day(order_ts), bucket[16](customer_id): filter on order_ts, " \
                                    "customer_id (= or IN)"
    assert iceberg["source"] == "metadata_file" and iceberg["metadata_location"] == METADATA
    assert iceberg["format_version"] == 2 and iceberg["location"] == TABLE_LOCATION and "unread" not in iceberg
    schema = iceberg["current_schema"]
    assert schema["schema_id"] == 1 and schema["identifier_field_ids"] == [1]
    assert [(f["id"], f["name"], f["type"], f["required"]) for f in schema["fields"]] == [
        (1, "order_id", "long", True), (2, "customer_id", "long", False), (3, "order_ts", "timestamptz", False),
        (4, "amount_usd", "decimal(10, 2)", False), (5, "shipping", "struct<country: string>", False),
        (7, "tags", "array<string>", False)]
    assert schema["fields"][3]["doc"] == "order total" and schema["fields"][4]["fields"][0]["id"] == 6
    spec = iceberg["partition_spec"]
    assert spec["spec_id"] == 1 and iceberg["partition_spec_count"] == 2
    assert [(f["name"], f["source"], f["transform"], f["field_id"]) for f in spec["fields"]] == [
        ("order_ts_day", "order_ts", "day", 1000), ("customer_id_bucket", "customer_id", "bucket[16]", 1001)]
    assert iceberg["sort_order"] == {"order_id": 1, "fields": [
        {"source": "order_id", "transform": "identity", "direction": "asc", "null_order": "nulls-first"}]}
    assert iceberg["properties"] == {"write.data.path": f"s3://{DATA}/orders", "write.format.default": "parquet",
                                     "write.delete.mode": "merge-on-read"} and iceberg["property_count"] == 5


async def test_an_iceberg_table_says_its_snapshots_refs_and_the_sql_to_travel_in_time(
        server: ServerThread, local_lambda_handler: Any) -> None:
    iceberg = (await read_everywhere(server.url, local_lambda_handler, _uri("orders_iceberg")))["iceberg"]
    current = iceberg["current_snapshot"]
    assert current == {"snapshot_id": CLEANED, "parent_snapshot_id": LATER_DAY,
                       "committed": "2026-04-01T09:30:15.500000+00:00", "operation": "delete", "added_records": None,
                       "deleted_records": 3, "total_records": 137, "total_data_files": 4,
                       "sql": f'SELECT * FROM "lakehouse"."orders_iceberg" FOR VERSION AS OF {CLEANED}'}
    assert [(s["snapshot_id"], s["operation"], s["added_records"], s["total_records"]) for s in iceberg["snapshots"]] \
        == [(CLEANED, "delete", None, 137), (LATER_DAY, "append", 40, 140), (INITIAL, "append", 100, 100)]
    assert iceberg["snapshot_count"] == 3
    assert [(r["name"], r["snapshot_id"]) for r in iceberg["branches"]] == [("audit", LATER_DAY), ("main", CLEANED)]
    assert iceberg["tags"] == [{"name": "month-end-2026-03", "snapshot_id": LATER_DAY, "sql":
                                f'SELECT * FROM "lakehouse"."orders_iceberg" FOR VERSION AS OF {LATER_DAY}'}]
    travel = iceberg["time_travel"]
    assert travel["by_version"] == current["sql"]
    assert travel["by_timestamp"] == ('SELECT * FROM "lakehouse"."orders_iceberg" '
                                      "FOR TIMESTAMP AS OF TIMESTAMP '2026-04-01 09:30:15.500 UTC'")
    assert travel["metadata_tables"][0] == 'SELECT * FROM "lakehouse"."orders_iceberg$snapshots"'
    assert len(travel["metadata_tables"]) == 6


def test_an_iceberg_table_costs_one_glue_call_and_one_get_in_the_same_wave(lake: None, aws_faults: AwsFaults) -> None:
    direct_read(_uri("orders_iceberg"))
    assert aws_faults.calls["glue.GetTable"] == 1 and aws_faults.calls["s3.GetObject"] == 1
    aws_faults.calls.clear()
    direct_read(_uri("clickstream_projected"))
    assert aws_faults.calls["glue.GetTable"] == 1 and aws_faults.calls["s3.GetObject"] == 0


def test_a_metadata_file_the_caller_cannot_read_leaves_glues_copy_and_says_why(lake: None,
                                                                               aws_faults: AwsFaults) -> None:
    aws_faults.fail("s3.GetObject", "AccessDenied", status=403)
    iceberg = direct_read(_uri("orders_iceberg"))["iceberg"]
    assert iceberg["source"] == "glue" and iceberg["format_version"] == 2
    assert [f["name"] for f in iceberg["current_schema"]["fields"]][:3] == ["order_id", "customer_id", "order_ts"]
    assert iceberg["partition_spec"]["hint"].startswith("partitioned by day(order_ts)")
    assert iceberg["snapshots"] is None and iceberg["branches"] is None and iceberg["time_travel"]["by_version"] is None
    assert "could not be read" in iceberg["unread"] and "s3:GetObject" in iceberg["unread"]


def test_where_glue_refuses_the_iceberg_attributes_getTable_is_asked_as_before(lake: None,
                                                                              aws_faults: AwsFaults) -> None:
    aws_faults.fail("glue.GetTable", "InvalidInputException", when=lambda r: b"LATEST_ICEBERG_METADATA" in r.body)
    table = direct_read(_uri("orders_iceberg"))
    assert aws_faults.calls["glue.GetTable"] == 2 and table["iceberg"]["snapshot_count"] == 3


def test_a_metadata_file_over_the_cap_is_told_by_its_size_not_read() -> None:
    s3 = boto3.client("s3", region_name=REGION)
    with pytest.raises(ResourceFailure) as raised:
        read_metadata(s3, METADATA, cap=1_000)
    assert raised.value.code is ErrorCode.INVALID_ARGUMENT and "over the 1,000" in raised.value.message


def test_glues_copy_and_the_file_describe_the_same_schema_and_partitioning() -> None:
    names = (DATABASE, "orders_iceberg")
    from_file = describe_iceberg(ORDERS_METADATA, names)
    from_catalog = describe_iceberg(from_glue(moto_lakehouse.glue_iceberg_metadata(ORDERS_METADATA)), names, "glue")
    for part in ("current_schema", "partition_spec", "sort_order", "format_version", "table_uuid"):
        assert from_catalog[part] == from_file[part], part  # type: ignore[literal-required]


def test_pyicebergs_own_reading_of_the_document_agrees() -> None:
    """An independent reader of the same metadata document: pyiceberg, where it is installed."""
    metadata = pytest.importorskip("pyiceberg.table.metadata")
    parsed = metadata.TableMetadataUtil.parse_raw(json.dumps(ORDERS_METADATA))
    ours = describe_iceberg(ORDERS_METADATA, (DATABASE, "orders_iceberg"))
    assert ours["current_snapshot"]["snapshot_id"] == parsed.current_snapshot_id  # type: ignore[index]
    assert [f["id"] for f in ours["current_schema"]["fields"]] == [  # type: ignore[index]
        f.field_id for f in parsed.schema().fields]
    assert [str(f.transform) for f in parsed.spec().fields] == [
        f["transform"] for f in ours["partition_spec"]["fields"]]  # type: ignore[index]
    assert {name: ref.snapshot_id for name, ref in parsed.refs.items()} == {
        r["name"]: r["snapshot_id"] for r in [*ours["branches"], *ours["tags"]]}  # type: ignore[misc]


# --------------------------------------------------------------------------- projection, Delta, Hudi

async def test_partition_projection_says_each_keys_range_format_and_values(server: ServerThread,
                                                                           local_lambda_handler: Any) -> None:
    table = await read_everywhere(server.url, local_lambda_handler, _uri("clickstream_projected"))
    projection = table["partition_projection"]
    assert projection["enabled"] and projection["location_template"] == f"s3://{LAKE}/clicks/${{region}}/${{dt}}/"
    date, region = projection["keys"]
    assert date | {"name": "dt", "type": "date", "range": "2026-01-01,NOW", "format": "yyyy-MM-dd", "interval": "1",
                   "interval_unit": "DAYS"} == date and "2026-01-01,NOW" in date["note"]
    assert region | {"name": "region", "type": "enum", "values": ["eu", "us", "apac"]} == region
    assert "ignores the Glue partitions" in projection["note"] and "problems" not in projection
    assert table["parameters"] == {"classification": "parquet"} and "iceberg" not in table


def test_delta_says_athena_has_no_time_travel_for_it(lake: None) -> None:
    table = direct_read(_uri("customers_delta"))
    assert table["format"] == "delta" and table["delta"]["time_travel"] is False
    assert table["delta"]["log_location"] == f"s3://{LAKE}/customers/_delta_log/"
    assert "no time travel" in table["delta"]["note"]


def test_hudi_says_which_of_a_merge_on_read_pair_to_query(lake: None) -> None:
    realtime, optimised = direct_read(_uri("trips_rt"))["hudi"], direct_read(_uri("trips_ro"))["hudi"]
    assert (realtime["table_type"], realtime["view"]) == ("merge_on_read", "snapshot")
    assert (optimised["table_type"], optimised["view"]) == ("merge_on_read", "read_optimized")
    assert "Query trips_rt for the latest data" in optimised["query"]


# --------------------------------------------------------------------------- catalogs

async def test_catalogs_are_glues_and_athenas_each_with_its_kind_and_databases(server: ServerThread,
                                                                               local_lambda_handler: Any) -> None:
    answer = await read_everywhere(server.url, local_lambda_handler, "athena://catalogs")
    by_name = {c["name"]: c for c in answer["catalogs"]}
    assert list(by_name) == ["AwsDataCatalog", "dynamo_orders", "hms", "partner", "s3tablescatalog", BUCKET_CATALOG,
                             "salescatalog", "salescatalog/dev"]
    assert {name: c["kind"] for name, c in by_name.items()} == {
        "AwsDataCatalog": "glue", "dynamo_orders": "federated", "hms": "hive_metastore", "partner": "lambda_connector",
        "s3tablescatalog": "s3_tables_root", BUCKET_CATALOG: "s3_tables", "salescatalog": "redshift",
        "salescatalog/dev": "redshift"}
    assert by_name["AwsDataCatalog"] | {"databases": "athena://databases", "catalog_id": ACCOUNT,
                                        "listed_by": ["athena"]} == by_name["AwsDataCatalog"]
    bucket = by_name[BUCKET_CATALOG]
    assert bucket | {"catalog_id": BUCKET_CATALOG_ID, "parent": "s3tablescatalog", "listed_by": ["glue"],
                     "databases": "athena://catalogs/s3tablescatalog%2Facme-analytics/databases",
                     "source": f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/acme-analytics"} == bucket
    assert by_name["s3tablescatalog"]["databases"] is None  # it holds catalogs, not databases
    assert by_name["partner"] | {"athena_type": "LAMBDA", "catalog_id": None} == by_name["partner"]
    assert set(answer["kinds"]) == {c["kind"] for c in answer["catalogs"]} and answer["count"] == 8
    assert answer["glue_error"] is None and answer["athena_error"] is None


def test_catalogs_are_one_wave_of_two_calls(lake: None, aws_faults: AwsFaults) -> None:
    direct_read("athena://catalogs")
    assert aws_faults.calls == {"glue.GetCatalogs": 1, "athena.ListDataCatalogs": 1} | {
        k: v for k, v in aws_faults.calls.items() if k.startswith("sts.")}


def test_glue_catalogs_denied_leaves_athenas_with_the_error_beside_them(lake: None, aws_faults: AwsFaults) -> None:
    aws_faults.fail("glue.GetCatalogs", "AccessDeniedException")
    answer = direct_read("athena://catalogs")
    assert [c["name"] for c in answer["catalogs"]] == ["AwsDataCatalog", "hms", "partner"]
    assert answer["glue_error"]["error"] == "access_denied" and answer["glue_error"]["action"] == "glue:GetCatalogs"


async def test_a_table_buckets_namespaces_and_tables_by_a_uri_naming_its_catalog(server: ServerThread,
                                                                                 local_lambda_handler: Any) -> None:
    encoded = "athena://catalogs/s3tablescatalog%2Facme-analytics"
    databases = await read_everywhere(server.url, local_lambda_handler, f"{encoded}/databases")
    assert databases["catalog"] == BUCKET_CATALOG and databases["catalog_id"] == BUCKET_CATALOG_ID
    assert databases["read_with"] == "glue" and databases["databases"] == [
        {"catalog": BUCKET_CATALOG, "name": "sales", "description": "the sales namespace", "location": None,
         "tables": f"{encoded}/databases/sales/tables"}]
    tables = await read_everywhere(server.url, local_lambda_handler, f"{encoded}/databases/sales/tables")
    assert [(t["name"], t["format"], t["column_count"]) for t in tables["tables"]] == [("daily_orders", "iceberg", 3)]


def test_the_default_catalog_by_name_reads_as_it_always_did(lake: None, aws_faults: AwsFaults) -> None:
    answer = direct_read("athena://catalogs/AwsDataCatalog/databases")
    assert answer["catalog_id"] is None and [d["name"] for d in answer["databases"]] == [DATABASE]
    assert answer["databases"][0]["tables"] == f"athena://databases/{DATABASE}/tables"
    assert aws_faults.calls["athena.GetDataCatalog"] == 0 and aws_faults.calls["glue.GetDatabases"] == 1


def test_a_connectors_databases_are_athenas_and_its_tables_are_refused_plainly(lake: None,
                                                                               aws_faults: AwsFaults) -> None:
    aws_faults.fail("athena.ListDatabases", "AccessDeniedException")
    with pytest.raises(ResourceFailure) as denied:
        direct_read("athena://catalogs/partner/databases")
    assert denied.value.code is ErrorCode.ACCESS_DENIED and aws_faults.calls["athena.GetDataCatalog"] == 1
    with pytest.raises(ResourceFailure) as refused:
        direct_read("athena://catalogs/partner/databases/x/tables")
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT and "connector" in refused.value.message


def test_an_unknown_catalog_is_not_found_pointing_at_the_catalogs(lake: None) -> None:
    with pytest.raises(ResourceFailure) as missing:
        direct_read("athena://catalogs/s3tablescatalog%2Fno-such-bucket/databases")
    assert missing.value.code is ErrorCode.NOT_FOUND and missing.value.valid_uris == ["athena://catalogs"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_completion_offers_the_catalogs_that_hold_databases(server: ServerThread, mode: str) -> None:
    from mcp import Client
    from mcp_types import ResourceTemplateReference

    template = ResourceTemplateReference(uri="athena://catalogs/{catalog}/databases")
    table = ResourceTemplateReference(uri="athena://catalogs/{catalog}/databases/{database}/tables/{table}")
    async with Client(server.url, mode=mode) as client:
        offered = await client.complete(template, {"name": "catalog", "value": "s3"})
        databases = await client.complete(table, {"name": "database", "value": ""}, {"catalog": BUCKET_CATALOG})
        tables = await client.complete(table, {"name": "table", "value": "d"},
                                       {"catalog": BUCKET_CATALOG, "database": "sales"})
    assert offered.completion.values == [BUCKET_CATALOG]
    assert databases.completion.values == ["sales"] and tables.completion.values == ["daily_orders"]


async def test_an_s3_table_is_described_in_its_catalog_with_sql_naming_the_catalog(server: ServerThread,
                                                                                  local_lambda_handler: Any) -> None:
    uri = "athena://catalogs/s3tablescatalog%2Facme-analytics/databases/sales/tables/daily_orders"
    table = await read_everywhere(server.url, local_lambda_handler, uri)
    assert table["catalog"] == BUCKET_CATALOG and table["format"] == "iceberg" and table["location"] == DAILY_LOCATION
    iceberg = table["iceberg"]
    assert iceberg["snapshot_count"] == 2 and iceberg["current_snapshot"]["total_records"] == 2
    assert iceberg["time_travel"]["by_version"] == (
        f'SELECT * FROM "s3tablescatalog/acme-analytics"."sales"."daily_orders" FOR VERSION AS OF {SECOND_DAY}')
    assert table["partitioning"].startswith("not partitioned")
    assert table["column_access"]["known"] is False  # its explainer reads Lake Formation's grants
    assert table["column_access"]["explain"] == (
        "permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders")


def test_the_default_catalogs_table_passes_no_catalog_id(lake: None, aws_faults: AwsFaults) -> None:
    aws_faults.fail("glue.GetTable", "AccessDeniedException", when=lambda r: b"CatalogId" in r.body)
    assert direct_read(_uri("orders_iceberg"))["iceberg"]["snapshot_count"] == 3
    assert direct_read("athena://catalogs/AwsDataCatalog/databases/lakehouse/tables/orders_iceberg")["name"] == \
        "orders_iceberg"
    assert aws_faults.calls["glue.GetTable"] == 2
