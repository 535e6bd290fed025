"""A current lake's reads at 50 ms per AWS call, run by `worker.py lakehouse` in a fresh process.

moto serves in its own process; Glue answers `LATEST_ICEBERG_METADATA` as AWS does (tests/support/moto_lakehouse.py).
pyiceberg writes the Iceberg table over HTTP, so its manifests are real. Two Hive tables differ only in partitions.
Each read sits beside its floor: its dependent waves x 50 ms, also measured from the calls' times.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from botocore.awsrequest import AWSResponse

import fanout
import harness
from report import Budget, Row, seconds
from search import dependent_waves

LAKE, DATA = "bench-lake", "bench-lake-data"
DATABASE = "lakehouse"
ICEBERG = "orders_iceberg"
DAYS = ("2026-03-29", "2026-03-30", "2026-03-31", "2026-04-01")
ROWS_A_DAY = 25
FEW, MANY = 10, 1000
"""The partitions of the two Hive tables: the table resource must make the same calls for both."""
FLOOR_MULTIPLE = fanout.FLOOR_MULTIPLE
_SERVE = "main(["
LAKEHOUSE_GLUE = """sys.path.insert(0, "tests")
from support import moto_lakehouse  # GetTable's LATEST_ICEBERG_METADATA, as Glue answers it
for owner, name, replacement in moto_lakehouse.extensions():
    setattr(owner, name, replacement)
"""
"""Installed over fanout's server's extensions, just before it serves (they wrap the Glue answers installed)."""


def server_script() -> str:
    """fanout's moto server, Glue answering as a current lake's does."""
    if fanout.MOTO_SERVER.count(_SERVE) != 1:
        raise RuntimeError("fanout.MOTO_SERVER no longer ends in one main([...]) call")
    return fanout.MOTO_SERVER.replace(_SERVE, LAKEHOUSE_GLUE + _SERVE)


@dataclass(frozen=True)
class Read:
    """One timed read: its URI, its dependent waves as the code makes them, and its size in words."""

    uri: str
    waves: int
    size: str


def hive_table(partitions: int) -> str:
    return f"hive_{partitions}"


READS = (
    # GetTable beside LF, the workgroup and the simulation -> the metadata file -> the manifest list -> the
    # manifests -> the sampled files' listings (owners) -> their one-byte reads and heads
    Read(f"permissions://tables/{DATABASE}/{ICEBERG}", 6, "an Iceberg table (3 snapshots, 4 days)"),
    # GetTable (Glue's latest Iceberg metadata) -> LF, statistics, Data Quality beside the metadata file (snapshots)
    Read(f"athena://databases/{DATABASE}/tables/{ICEBERG}", 2, "an Iceberg table (3 snapshots)"),
    # GetTable -> LF, statistics, Data Quality, partition indexes beside one GetPartitions page
    Read(f"athena://databases/{DATABASE}/tables/{hive_table(MANY)}", 2, f"a Hive table, {MANY:,} partitions"),
    Read(f"athena://databases/{DATABASE}/tables/{hive_table(FEW)}", 2, f"a Hive table, {FEW} partitions"),
)


def _orders(day: str) -> Any:
    """A day's orders in the table's Arrow schema: the last day's first three are test orders (customer < 0)."""
    import pyarrow as pa

    start = datetime.fromisoformat(day)
    test = 3 if day == DAYS[-2] else 0
    return pa.table({
        "order_id": [f"ORD-{day}-{n:03d}" for n in range(ROWS_A_DAY)],
        "customer_id": pa.array([-n - 1 if n < test else 1000 + n for n in range(ROWS_A_DAY)], pa.int64()),
        "order_ts": pa.array([start + timedelta(minutes=37 * n) for n in range(ROWS_A_DAY)], pa.timestamp("us")),
        "amount_usd": pa.array([Decimal(f"{10 + n}.50") for n in range(ROWS_A_DAY)], pa.decimal128(10, 2)),
    })


def _seed_iceberg(endpoint: str, glue: Any) -> None:
    """The Iceberg table as pyiceberg writes it: a load, an append of a day, a delete of the test orders."""
    import pyarrow as pa
    from pyiceberg.catalog.glue import GlueCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import DayTransform
    from pyiceberg.types import DecimalType, LongType, NestedField, StringType, TimestampType

    schema = Schema(NestedField(1, "order_id", StringType(), required=False),
                    NestedField(2, "customer_id", LongType(), required=False),
                    NestedField(3, "order_ts", TimestampType(), required=False),
                    NestedField(4, "amount_usd", DecimalType(10, 2), required=False))
    catalog = GlueCatalog("bench", client=glue, **{
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO", "s3.endpoint": endpoint, "s3.region": fanout.REGION,
        "s3.access-key-id": "bench", "s3.secret-access-key": "bench"})
    table = catalog.create_table(
        (DATABASE, ICEBERG), schema, location=f"s3://{LAKE}/{DATABASE}/{ICEBERG}",
        partition_spec=PartitionSpec(PartitionField(3, 1000, DayTransform(), "order_ts_day")),
        properties={"format-version": "2", "write.format.default": "parquet",
                    "write.data.path": f"s3://{DATA}/{ICEBERG}"})
    table.append(pa.concat_tables([_orders(day) for day in DAYS[:-1]]))
    table.append(_orders(DAYS[-1]))
    table.delete("customer_id < 0")


def _seed_hive(s3: Any, glue: Any, partitions: int) -> None:
    name = hive_table(partitions)
    glue.create_table(DatabaseName=DATABASE, TableInput={
        "Name": name, "PartitionKeys": [{"Name": "dt", "Type": "string"}], "StorageDescriptor": {
            "Location": f"s3://{LAKE}/{name}/", "Columns": [{"Name": "id", "Type": "bigint"}]}})
    s3.put_object(Bucket=LAKE, Key=f"{name}/dt=0000/part-0.csv", Body=b"id\n1\n")
    days = [{"Values": [f"{day:04d}"], "StorageDescriptor": {"Location": f"s3://{LAKE}/{name}/dt={day:04d}/"}}
            for day in range(partitions)]
    for start in range(0, partitions, 100):  # BatchCreatePartition takes 100 at most
        glue.batch_create_partition(DatabaseName=DATABASE, TableName=name, PartitionInputList=days[start:start + 100])


def _seed(endpoint: str) -> dict[str, str]:
    """The account; returns the caller's key (an IAM user, as the policy simulator needs)."""
    import boto3

    session = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=fanout.REGION)
    s3, glue = session.client("s3", endpoint_url=endpoint), session.client("glue", endpoint_url=endpoint)
    for bucket in (LAKE, DATA):
        s3.create_bucket(Bucket=bucket)
    session.client("athena", endpoint_url=endpoint).create_work_group(Name=fanout.EXPLAINED_WORKGROUP, Configuration={
        "ResultConfiguration": {"OutputLocation": f"s3://{LAKE}/results/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10 * 1024 ** 3})
    glue.create_database(DatabaseInput={"Name": DATABASE, "LocationUri": f"s3://{LAKE}/{DATABASE}/"})
    _seed_iceberg(endpoint, glue)
    for partitions in (FEW, MANY):
        _seed_hive(s3, glue, partitions)
    iam = session.client("iam", endpoint_url=endpoint)
    iam.create_user(UserName="bench-analyst")
    iam.put_user_policy(UserName="bench-analyst", PolicyName="analyst", PolicyDocument=fanout.CALLER_POLICY)
    key = iam.create_access_key(UserName="bench-analyst")["AccessKey"]
    return {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}


class _Readable(io.BytesIO):
    """A replayed body a reader may `read` (the explainer reads metadata files and manifests whole)."""

    def stream(self, **_: Any) -> Any:
        yield self.getvalue()


class ReadableEndpoint(fanout.FarAwayEndpoint):
    """`fanout.FarAwayEndpoint`, each replayed body readable as well as streamed."""

    def __call__(self, event_name: str, request: Any, **kwargs: Any) -> AWSResponse:
        response = super().__call__(event_name, request, **kwargs)
        response.raw = _Readable(response.content)  # `content` has drained the replay
        return response


def _timed(mcp: Any, endpoint: fanout.FarAwayEndpoint, read: Read, repeats: int) -> dict[str, Any]:
    import anyio

    anyio.run(mcp.read, read.uri, None)  # records moto's answers: replays cost moto nothing
    walls, waves = [], []
    for _ in range(repeats):
        endpoint.calls.clear()
        endpoint.spans.clear()
        started = time.perf_counter()
        reading = anyio.run(mcp.read, read.uri, None)
        walls.append(time.perf_counter() - started)
        waves.append(dependent_waves(endpoint.spans))
    _check(read, json.loads(reading.text))
    return {"wall_s": sorted(walls), "calls": sum(endpoint.calls.values()), "by_operation": dict(endpoint.calls),
            "waves": read.waves, "measured_waves": sorted(waves), "size": read.size, "chars": len(reading.text)}


def _values(document: Any, key: str) -> list[Any]:
    """Every value of `key` anywhere in a JSON document."""
    if isinstance(document, dict):
        return [*([document[key]] if key in document else []), *(v for d in document.values() for v in _values(d, key))]
    return [v for item in document for v in _values(item, key)] if isinstance(document, list) else []


def _check(read: Read, answer: dict[str, Any]) -> None:
    """The read answered what it is timed for: the explainer found the files Athena reads, each table its own."""
    if read.uri.startswith("permissions://"):
        sampled = _values(answer, "files_sampled")
        if answer.get("query") != "allowed" or not sampled or not all(sampled) or any(_values(answer, "unknown")):
            raise AssertionError(f"{read.uri}: the explainer did not follow the Iceberg files: {answer}")
    elif answer.get("name") != read.uri.rsplit("/", 1)[1]:
        raise AssertionError(f"{read.uri} answered {str(answer)[:300]}")


def measure(repeats: int) -> dict[str, Any]:
    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.resolve import local_chain

    server, port = harness.start_server([sys.executable, "-c", server_script()], "moto's server")
    endpoint_url = f"http://127.0.0.1:{port}"
    try:
        os.environ.update(AWS_ENDPOINT_URL=endpoint_url, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                          AWS_DEFAULT_REGION=fanout.REGION, AWS_REGION=fanout.REGION)
        os.environ.update(_seed(endpoint_url))
        settings = Settings(mode="local", cache_ttl_seconds=0, region=fanout.REGION,
                            query_workgroups=(fanout.EXPLAINED_WORKGROUP,))
        mcp = create_server(settings)
        endpoint = ReadableEndpoint()
        local_chain.reset()
        local_chain.session().events.register("before-send", endpoint)
        import anyio

        anyio.run(mcp.read, "auth://status", None)  # the caller's principal, resolved once per credentials
        reads = {read.uri: _timed(mcp, endpoint, read, repeats) for read in READS}
        return {"delay_s": fanout.DELAY, "width": settings.fanout_width, "floor_multiple": FLOOR_MULTIPLE,
                "reads": reads, "partitions": {"few": FEW, "many": MANY}}
    finally:
        server.kill()


def rows(raw: dict[str, Any]) -> list[Row]:
    """Each read beside its floor, budget 3 x the floor; then the table resource's calls, 1,000 partitions vs 10."""
    delay, reads = raw["delay_s"], raw["reads"]
    table: list[Row] = []
    for uri, result in reads.items():
        wall, floor = harness.median(result["wall_s"]), result["waves"] * delay
        measured = "-".join(str(w) for w in sorted(set(result["measured_waves"])))
        table.append(Row(f"{uri} over {result['size']}, wall (median of {len(result['wall_s'])})", seconds(wall),
                         seconds(floor), wall / floor, Budget(round(raw["floor_multiple"] * floor, 3), "s"), wall,
                         note=f"baseline: floor, {result['waves']} dependent waves x {delay * 1e3:.0f} ms "
                              f"(measured {measured}); {result['calls']} AWS calls"))
    few, many = (reads[f"athena://databases/{DATABASE}/tables/{hive_table(n)}"] for n in (FEW, MANY))
    table.append(Row(f"  AWS calls of the table resource, {MANY:,} partitions vs {FEW}", str(many["calls"]),
                     str(few["calls"]), many["calls"] / few["calls"], Budget(1.0),
                     note="no call grows with the table's partitions (one GetPartitions page, never a walk)"))
    return table
