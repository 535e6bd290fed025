"""permissions://tables looks where Athena reads an open-format table, in the demo's account through the MCP
protocol (the SDK client over HTTP): for lakehouse.orders_iceberg the current metadata file, the manifest list and
the manifests, and the live data files those name (pyiceberg's own plan of the current snapshot is the oracle),
never GetPartitions; for lakehouse.clickstream_projected the newest locations its projection makes, never Glue's
partitions. The Avro reader agrees with pyiceberg's on every manifest of the table, and refuses what it cannot
read by name.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from pyiceberg.table import Table

from aws_data_mcp.lakehouse.avro import MAGIC, AvroUnreadable, avro_records
from aws_data_mcp.lakehouse.projection import describe_projection, projected_locations
from aws_data_mcp_demo.account import lakehouse
from aws_data_mcp_demo.account.emulated import DemoAccount
from support.servers import ServerThread, demo_query_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(20) as running:
        yield running


@pytest.fixture(scope="module")
def oracle(demo: DemoAccount) -> Table:
    """The table as pyiceberg's Glue catalog loads it from the account."""
    return lakehouse.catalog(demo.caller_client("glue"), demo.account_id).load_table(
        (lakehouse.DATABASE, lakehouse.TABLE))


async def _explained(server: ServerThread, table: str) -> dict[str, Any]:
    async with Client(server.url, mode="2026-07-28") as client:
        return json.loads((await client.read_resource(f"permissions://tables/{lakehouse.DATABASE}/{table}"))
                          .contents[0].text)


def _body(demo: DemoAccount, uri: str) -> bytes:
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    return bytes(demo.caller_client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())


async def test_an_iceberg_table_is_read_from_its_manifests(server: ServerThread, demo_caller: DemoAccount,
                                                           oracle: Table, aws_calls: Counter[str]) -> None:
    found = await _explained(server, lakehouse.TABLE)
    snapshot = oracle.current_snapshot()
    assert snapshot is not None
    planned = {task.file.file_path for task in oracle.scan().plan_files()}
    read_from = found["read_from"]
    assert read_from["kind"] == "iceberg" and read_from["unknown"] is None
    assert read_from["metadata_location"] == oracle.metadata_location
    assert read_from["manifest_list"] == snapshot.manifest_list
    assert read_from["manifests_read"] == [m.manifest_path for m in snapshot.manifests(oracle.io)]
    assert read_from["live_files_seen"] == len(planned)
    assert set(read_from["files_sampled"]) == planned  # one per partition, and the table has four
    days = [path.split("order_ts_day=")[1][:10] for path in read_from["files_sampled"]]
    assert days == sorted(days, reverse=True) and days[0] == lakehouse.APPENDED_DAY  # the newest first
    checks = [entry["check"] for entry in found["links"]]
    assert "glue:GetPartitions" not in checks and aws_calls["glue:GetPartitions"] == 0
    by_role = {(e["check"], e["evidence"].get("reads")): e for e in found["links"]}
    assert by_role[("s3:GetObject", "metadata files")]["evidence"]["object"] == oracle.metadata_location.split(
        "/", 3)[3]
    data = by_role[("s3:GetObject", "data files")]["evidence"]
    assert data["objects_sampled"] == len(planned) and data["object_owners"] != ["unknown"]
    assert found["query"] == "allowed", found["summary"]  # the demo analyst may use the newest day's key
    assert by_role[("kms:Decrypt", "data files")]["evidence"]["kms_keys"], by_role[("kms:Decrypt", "data files")]


async def test_a_projected_table_is_read_where_its_projection_points(server: ServerThread,
                                                                     demo_caller: DemoAccount,
                                                                     aws_calls: Counter[str]) -> None:
    found = await _explained(server, lakehouse.CLICKSTREAM)
    newest = [f"s3://{lakehouse.ORDERS_BUCKET}/{lakehouse.CLICKSTREAM_PREFIX}{day}/{device}/"
              for day in ("2026-04-30", "2026-04-29", "2026-04-28", "2026-04-27") for device in lakehouse.DEVICES]
    assert found["read_from"] == {"kind": "projected", "projected_locations": newest, "unknown": None}
    reads = [e for e in found["links"] if e["check"] == "s3:GetObject"]
    assert [e["evidence"]["location"] for e in reads] == newest
    assert all(e["evidence"]["object"].startswith(e["evidence"]["location"].split("/", 3)[3]) for e in reads)
    assert "glue:GetPartitions" not in [e["check"] for e in found["links"]]
    assert aws_calls["glue:GetPartitions"] == 0 and found["query"] == "allowed"


def test_projected_locations_start_at_the_newest_values() -> None:
    projection = describe_projection({
        "projection.enabled": "true", "projection.hour.type": "integer", "projection.hour.range": "0,23",
        "projection.hour.digits": "2", "projection.region.type": "enum", "projection.region.values": "eu,us",
    }, ["hour", "region"])
    assert projection is not None
    assert projected_locations(projection, "s3://b/t/", 3) == (
        ["s3://b/t/hour=23/region=eu", "s3://b/t/hour=23/region=us", "s3://b/t/hour=22/region=eu"], None)
    injected = describe_projection({"projection.enabled": "true", "projection.id.type": "injected"}, ["id"])
    assert injected is not None
    locations, why = projected_locations(injected, "s3://b/t/", 3)
    assert locations == [] and why is not None and "id" in why


def test_the_avro_reader_agrees_with_pyiceberg(demo: DemoAccount, oracle: Table) -> None:
    for snapshot in oracle.snapshots():
        _, listed = avro_records(_body(demo, snapshot.manifest_list))
        manifests = snapshot.manifests(oracle.io)
        assert [r["manifest_path"] for r in listed] == [m.manifest_path for m in manifests]
        for manifest in manifests:
            _, entries = avro_records(_body(demo, manifest.manifest_path))
            theirs = manifest.fetch_manifest_entry(oracle.io, discard_deleted=False)
            assert [(e["status"], e["data_file"]["file_path"], e["data_file"]["record_count"]) for e in entries] \
                == [(int(t.status), t.data_file.file_path, t.data_file.record_count) for t in theirs]


def test_what_the_avro_reader_cannot_read_is_said() -> None:
    with pytest.raises(AvroUnreadable, match="not an Avro"):
        avro_records(b"PAR1")
    snappy = MAGIC + b"\x02" + b"\x14avro.codec" + b"\x0csnappy" + b"\x00"
    with pytest.raises(AvroUnreadable, match="snappy"):
        avro_records(snappy)
    with pytest.raises(AvroUnreadable, match="ends early"):
        avro_records(MAGIC + b"\x02\x14avro.co")
