"""The lakehouse package's pure readings, on the cases a live table rarely shows at once: version 1 metadata, a
gzip-compressed file, one over the cap, dropped partition fields, every projection type and its mistakes."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from aws_data_mcp.lakehouse.formats import describe_hudi, table_format
from aws_data_mcp.lakehouse.iceberg import describe_iceberg, partition_hint
from aws_data_mcp.lakehouse.metadata_file import MetadataUnreadable, metadata_document
from aws_data_mcp.lakehouse.projection import describe_projection

V1: dict[str, Any] = {
    "format-version": 1, "table-uuid": "u", "location": "s3://b/t", "last-updated-ms": 0, "last-column-id": 2,
    "schema": {"type": "struct", "fields": [{"id": 1, "name": "id", "required": True, "type": "long"},
                                            {"id": 2, "name": "ts", "required": False, "type": "timestamp"}]},
    "partition-spec": [{"name": "ts_month", "transform": "month", "source-id": 2, "field-id": 1000}],
    "properties": {}, "current-snapshot-id": 7,
    "snapshots": [{"snapshot-id": 7, "timestamp-ms": 1_700_000_000_000,
                   "summary": {"operation": "append", "added-records": "5", "total-records": "5"}}],
}


def test_version_1_metadata_has_its_one_schema_spec_and_main_branch() -> None:
    table = describe_iceberg(V1, ("db", "t"))
    assert [f["name"] for f in table["current_schema"]["fields"]] == ["id", "ts"]  # type: ignore[index]
    assert table["partition_spec"]["hint"] == "partitioned by month(ts): filter on ts"  # type: ignore[index]
    assert table["branches"] == [{"name": "main", "snapshot_id": 7,
                                  "sql": 'SELECT * FROM "db"."t" FOR VERSION AS OF 7'}] and table["tags"] == []
    assert table["time_travel"]["by_timestamp"] == \
        "SELECT * FROM \"db\".\"t\" FOR TIMESTAMP AS OF TIMESTAMP '2023-11-14 22:13:20.000 UTC'"


def test_a_table_without_snapshots_has_nothing_to_travel_to() -> None:
    table = describe_iceberg(V1 | {"current-snapshot-id": -1, "snapshots": []}, ("db", "t"))
    assert table["current_snapshot"] is None and table["snapshot_count"] == 0
    assert table["time_travel"]["by_version"] is None and "no snapshot" in table["time_travel"]["note"]


def test_dropped_partition_fields_and_identity_read_plainly() -> None:
    fields = [{"name": "a", "source": "region", "source_id": 1, "transform": "identity", "field_id": 1},
              {"name": "b", "source": "ts", "source_id": 2, "transform": "void", "field_id": 2},
              {"name": "c", "source": "ts", "source_id": 2, "transform": "hour", "field_id": 3}]
    assert partition_hint(fields) == "partitioned by region, hour(ts): filter on region, ts"  # type: ignore[arg-type]
    assert partition_hint(fields[1:2]).startswith("not partitioned")  # type: ignore[arg-type]


def test_a_gzip_metadata_file_is_read_and_one_over_the_cap_is_refused() -> None:
    body = json.dumps(V1).encode()
    assert metadata_document(gzip.compress(body))["format-version"] == 1
    with pytest.raises(MetadataUnreadable, match="inflates to more than"):
        metadata_document(gzip.compress(body + b" " * 5_000), cap=len(body) + 100)
    with pytest.raises(MetadataUnreadable, match="not an Iceberg"):
        metadata_document(b'{"a": 1}')
    with pytest.raises(MetadataUnreadable, match="not JSON"):
        metadata_document(b"PAR1")


def test_every_projection_type_and_its_mistakes() -> None:
    projection = describe_projection({
        "projection.enabled": "TRUE", "projection.year.type": "integer", "projection.year.range": "2020,2030",
        "projection.year.digits": "4", "projection.customer.type": "injected", "projection.stray.type": "enum",
        "projection.stray.values": "a"}, ["year", "customer", "day"])
    assert projection is not None and projection["enabled"] and projection["location_template"] is None
    assert [(k["name"], k["type"]) for k in projection["keys"]] == [
        ("year", "integer"), ("customer", "injected"), ("stray", "enum")]
    assert projection["keys"][0]["digits"] == "4" and "every query must give it" in projection["keys"][1]["note"]
    assert projection["problems"] == ["partition key day has no projection settings",
                                      "projection.stray is not a partition key of the table"]
    off = describe_projection({"projection.enabled": "false", "projection.dt.type": "date"}, ["dt"])
    assert off is not None and not off["enabled"] and "reads the Glue partitions" in off["note"]
    assert describe_projection({"classification": "csv"}) is None


def test_hudi_copy_on_write_and_a_declared_merge_on_read_table() -> None:
    hudi = {"StorageDescriptor": {"InputFormat": "org.apache.hudi.hadoop.HoodieParquetInputFormat"}}
    assert table_format(hudi) == "hudi"
    assert describe_hudi(hudi | {"Name": "trips", "Parameters": {"type": "cow"}})["table_type"] == "copy_on_write"
    declared = describe_hudi(hudi | {"Name": "trips", "Parameters": {"hoodie.table.type": "MERGE_ON_READ"}})
    assert declared["table_type"] == "merge_on_read" and "trips_rt" in declared["query"]
    assert describe_hudi(hudi | {"Name": "trips"})["table_type"] is None
