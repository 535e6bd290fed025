"""The demo's Iceberg table as an independent oracle reads it: every snapshot of ``lakehouse.orders_iceberg``,
through ``athena_query``'s time travel, holds what pyiceberg's own scan of that snapshot holds, and its metadata
tables are pyiceberg's ``inspect`` tables.

The oracle is pyiceberg as a platform team runs it against the account: its GlueCatalog over the demo caller's
Glue client, its PyArrow FileIO reading S3 through the endpoint with the caller's keys (IAM enforced), nothing of
the demo's own reading code. The answers come through the MCP protocol on both revisions (the SDK client, the
server in demo mode), as an agent gets them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyiceberg.catalog.glue import GlueCatalog
from pyiceberg.table import Table

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lakehouse import DATABASE, MONTH_END_TAG, TABLE, TEST_ORDERS
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]

REVISIONS = ("legacy", "2026-07-28")
"""The handshake-era revision (2025-11-25) and the current one."""
METADATA_TABLES = ("snapshots", "history", "files", "manifests", "partitions", "refs")


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20)
    with ServerThread(settings) as server:
        yield server


@pytest.fixture(scope="module")
def oracle(demo: DemoAccount) -> Table:
    """The table as pyiceberg loads it from the account, as the demo caller: the catalog's Glue, S3 over HTTP."""
    environment = demo.caller_environment()
    catalog = GlueCatalog("oracle", client=demo.caller_client("glue"), **{
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO", "s3.endpoint": demo.endpoint_url,
        "s3.region": demo.region, "s3.access-key-id": environment["AWS_ACCESS_KEY_ID"],
        "s3.secret-access-key": environment["AWS_SECRET_ACCESS_KEY"]})
    return catalog.load_table((DATABASE, TABLE))


async def _athena(server: ServerThread, mode: str, sql: str) -> dict[str, Any]:
    got = answer(await query(server, mode, database=DATABASE, sql=sql))
    assert got["state"] == "SUCCEEDED", (sql, got)
    return got


def _scanned(oracle: Table, snapshot_id: int) -> tuple[int, Decimal, int]:
    """Rows, their total_amount and the data files' bytes of a snapshot, as pyiceberg scans and plans it."""
    scan = oracle.scan(snapshot_id=snapshot_id)
    rows = scan.to_arrow()
    return rows.num_rows, pc.sum(rows["total_amount"]).as_py(), sum(t.file.file_size_in_bytes for t in
                                                                     scan.plan_files())


def _athena_timestamp(epoch_ms: int) -> str:
    """A commit time (milliseconds since the epoch) as an Athena timestamp literal's text, to the millisecond."""
    return f"{datetime.fromtimestamp(epoch_ms // 1000, UTC):%Y-%m-%d %H:%M:%S}.{epoch_ms % 1000:03d} UTC"


def test_the_table_has_the_history_it_was_written_with(oracle: Table) -> None:
    snapshots = oracle.snapshots()
    assert [s.summary.operation.value for s in snapshots] == ["append", "append", "overwrite"]
    assert oracle.metadata.refs[MONTH_END_TAG].snapshot_id == snapshots[0].snapshot_id
    assert [field.name for field in oracle.spec().fields] == ["order_ts_day"]
    load = oracle.scan(snapshot_id=snapshots[0].snapshot_id, row_filter="customer_id < 0").to_arrow()
    assert load.num_rows == TEST_ORDERS
    assert oracle.scan(row_filter="customer_id < 0").to_arrow().num_rows == 0


@pytest.mark.parametrize("mode", REVISIONS)
async def test_every_snapshot_answers_time_travel_as_pyiceberg_scans_it(
        query_server: ServerThread, demo_caller: DemoAccount, oracle: Table, mode: str) -> None:
    history = {entry.snapshot_id: entry.timestamp_ms for entry in oracle.history()}
    for snapshot in oracle.snapshots():
        rows, total, scanned = _scanned(oracle, snapshot.snapshot_id)
        for clause in (f"FOR VERSION AS OF {snapshot.snapshot_id}",
                       f"FOR TIMESTAMP AS OF TIMESTAMP '{_athena_timestamp(history[snapshot.snapshot_id])}'"):
            got = await _athena(query_server, mode, f"SELECT count(*), sum(total_amount) FROM {TABLE} {clause}")
            assert got["results"]["rows"] == [[rows, str(total)]], clause
            assert got["statistics"]["data_scanned_bytes"] == scanned, clause
    tagged = _scanned(oracle, oracle.metadata.refs[MONTH_END_TAG].snapshot_id)
    got = await _athena(query_server, mode, f"SELECT count(*), sum(total_amount) FROM {DATABASE}.{TABLE} "
                                            f"FOR VERSION AS OF '{MONTH_END_TAG}'")
    assert got["results"]["rows"] == [[tagged[0], str(tagged[1])]]
    current = _scanned(oracle, oracle.current_snapshot().snapshot_id)
    got = await _athena(query_server, mode, f"SELECT count(*), sum(total_amount) FROM {TABLE}")
    assert got["results"]["rows"] == [[current[0], str(current[1])]]


def _as_answered(value: Any) -> Any:
    """A scalar of an inspect table as athena_query carries it (timestamps in ISO 8601 with Athena's zone)."""
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%dT%H:%M:%S}.{value.microsecond // 1000:03d} UTC"
    return value


def _scalar(field: pa.Field) -> bool:
    kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
    return not pa.types.is_nested(kind)


@pytest.mark.parametrize("kind", METADATA_TABLES)
async def test_every_metadata_table_is_pyiceberg_inspect_table(
        query_server: ServerThread, demo_caller: DemoAccount, oracle: Table, kind: str) -> None:
    expected = getattr(oracle.inspect, kind)()
    name = f'"{TABLE}${kind}"'
    whole = await _athena(query_server, REVISIONS[0], f"SELECT * FROM {name} LIMIT 1")
    assert [c["name"] for c in whole["results"]["columns"]] == expected.column_names
    counted = await _athena(query_server, REVISIONS[0], f"SELECT count(*) FROM {name}")
    assert counted["results"]["rows"] == [[expected.num_rows]]
    scalars = [field.name for field in expected.schema if _scalar(field)]
    got = await _athena(query_server, REVISIONS[1], f"SELECT {', '.join(scalars)} FROM {name}")
    assert Counter(map(tuple, got["results"]["rows"])) == Counter(
        tuple(_as_answered(row[column]) for column in scalars) for row in expected.select(scalars).to_pylist())
    assert got["statistics"]["data_scanned_bytes"] == 0
