"""The demo's Athena over the lakehouse's tables. Of the Iceberg table (iceberg_engine): which snapshot a read means,
what it costs, and Trino's words for what cannot be read; the answers themselves are checked against pyiceberg's own
scans through the MCP protocol in tests/resources/test_athena_iceberg_demo.py. Of the projected table
(lake_projection): the partitions its parameters make, at its template's locations, pruned by a query's filter."""

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws
from pyiceberg.table import Table

from aws_data_mcp_demo.account.lake_tables import lake_files, put_orders, s3_store
from aws_data_mcp_demo.account.lakehouse import (
    CLICKSTREAM,
    CLICKSTREAM_DAYS,
    DATABASE,
    DEVICES,
    MONTH_END_TAG,
    TABLE,
    TEST_ORDERS,
    catalog,
    seed_lakehouse,
)
from aws_data_mcp_demo.engine.projection import projected_partitions
from aws_data_mcp_demo.engine.query import QueryFailure, QueryResult, ScanLimitExceeded, run_query

REGION = "us-east-1"
_RESULTS = itertools.count()
"""Each run's result file is a name of its own."""


@pytest.fixture(scope="module")
def account() -> Iterator[tuple[str, Table]]:
    """An account holding sales.orders and the lakehouse: its id and the Iceberg table as pyiceberg loads it."""
    with mock_aws():
        session = boto3.Session(aws_access_key_id="iceberg", aws_secret_access_key="iceberg", region_name=REGION)
        put_orders(session.client("s3"), session.client("glue"))
        account_id = session.client("sts").get_caller_identity()["Account"]
        seed_lakehouse(session.client("glue"), account_id, lake_files()["sales.orders"].files,
                       s3_store(session.client("s3")))
        yield account_id, catalog(session.client("glue"), account_id).load_table((DATABASE, TABLE))


def run(account: tuple[str, Table], tmp_path: Path, sql: str, **options: Any) -> QueryResult:
    return run_query(sql, database=DATABASE, account_id=account[0], region=REGION, workdir=tmp_path,
                     result_name=f"result-{next(_RESULTS)}", **options)


def failure(account: tuple[str, Table], tmp_path: Path, sql: str) -> str:
    with pytest.raises(QueryFailure) as failed:
        run(account, tmp_path, sql)
    return failed.value.message


def test_a_read_of_two_snapshots_reads_each_snapshot_files(account: tuple[str, Table], tmp_path: Path) -> None:
    table = account[1]
    tagged = table.metadata.refs[MONTH_END_TAG].snapshot_id
    result = run(account, tmp_path, f"SELECT count(*) FROM {TABLE} FOR VERSION AS OF '{MONTH_END_TAG}' AS m "
                                    f"JOIN {TABLE} AS c ON m.order_id = c.order_id")
    load = table.scan(snapshot_id=tagged)
    assert result.rows(0, 1) == [(str(load.to_arrow().num_rows - TEST_ORDERS),)]  # the test orders are gone now
    files = [task.file.file_size_in_bytes for scan in (load, table.scan()) for task in scan.plan_files()]
    assert result.scanned_bytes == sum(files)


def test_a_filter_on_the_partition_source_reads_the_rows_of_that_day(account: tuple[str, Table],
                                                                       tmp_path: Path) -> None:
    result = run(account, tmp_path, f"SELECT count(*), min(order_ts) FROM {TABLE} "
                                    "WHERE order_ts >= TIMESTAMP '2026-04-01 00:00:00'")
    expected = account[1].scan(row_filter="order_ts >= '2026-04-01T00:00:00'").to_arrow()
    assert result.rows(0, 1)[0][0] == str(expected.num_rows) and result.rows(0, 1)[0][1].startswith("2026-04-01")


def test_explain_io_estimates_from_the_snapshot_summary(account: tuple[str, Table], tmp_path: Path) -> None:
    result = run(account, tmp_path, f"EXPLAIN (TYPE IO, FORMAT JSON) SELECT * FROM {TABLE}")
    plan = result.rows(0, 1)[0][0]
    assert f'"outputRowCount": {float(account[1].current_snapshot().summary["total-records"])}' in plan
    assert result.scanned_bytes == 0


def test_the_cutoff_applies_to_the_snapshot_files(account: tuple[str, Table], tmp_path: Path) -> None:
    with pytest.raises(ScanLimitExceeded):
        run(account, tmp_path, f"SELECT * FROM {TABLE}", cutoff=1000)


@pytest.mark.parametrize(("sql", "message"), [
    (f"SELECT * FROM {TABLE} FOR VERSION AS OF 42",
     "INVALID_ARGUMENTS: line 1:15: Iceberg snapshot ID does not exist: 42"),
    (f"SELECT * FROM {TABLE} FOR VERSION AS OF 'month-end-2026-02'",
     "INVALID_ARGUMENTS: line 1:15: Cannot find snapshot with reference name: month-end-2026-02"),
    (f"SELECT * FROM {TABLE} FOR TIMESTAMP AS OF TIMESTAMP '2026-03-31 23:59:59 UTC'",
     f'INVALID_ARGUMENTS: line 1:15: No version history table "{DATABASE}"."{TABLE}" at or before '
     "2026-03-31T23:59:59.000Z"),
    (f"SELECT * FROM {TABLE} FOR TIMESTAMP AS OF 42",
     "TYPE_MISMATCH: line 1:15: Pointer type for TIMESTAMP AS OF must be a timestamp"),
    ("SELECT * FROM sales.orders FOR VERSION AS OF 1",
     "NOT_SUPPORTED: line 1:15: This connector does not support versioned tables"),
    ('SELECT * FROM sales."orders$snapshots"',
     "TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.sales.orders$snapshots' does not exist"),
    (f'SELECT * FROM "{TABLE}$properties"',
     f"TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.{DATABASE}.{TABLE}$properties' does not exist"),
    (f"SELECT * FROM \"{TABLE}$snapshots\" FOR VERSION AS OF '{MONTH_END_TAG}'",
     "NOT_SUPPORTED: line 1:15: This connector does not support versioned tables"),
])
def test_what_cannot_be_read_fails_in_trino_words(account: tuple[str, Table], tmp_path: Path, sql: str,
                                                  message: str) -> None:
    assert failure(account, tmp_path, sql) == message


def test_the_projection_makes_every_day_and_device_at_the_template(account: tuple[str, Table]) -> None:
    from moto.glue.models import glue_backends

    definition = glue_backends[account[0]][REGION].get_table(DATABASE, CLICKSTREAM).as_dict()
    partitions = projected_partitions(definition)
    assert len(partitions) == 30 * len(DEVICES) and not glue_backends[account[0]][REGION].get_table(
        DATABASE, CLICKSTREAM).partitions
    assert partitions[0][:2] == (("2026-04-01", "web"),
                                 "s3://acme-datalake-curated/lakehouse/clickstream/2026-04-01/web/")


def test_a_projected_table_reads_the_partitions_its_filter_keeps(account: tuple[str, Table], tmp_path: Path) -> None:
    whole = run(account, tmp_path, f"SELECT count(*), count(DISTINCT event_date), count(DISTINCT device) "
                                   f"FROM {CLICKSTREAM}")
    day = run(account, tmp_path, f"SELECT count(*), min(device) FROM {CLICKSTREAM} "
                                 "WHERE event_date = '2026-04-30' AND device = 'mobile'")
    before = run(account, tmp_path, f"SELECT count(*) FROM {CLICKSTREAM} WHERE event_date < '2026-04-24'")
    assert whole.rows(0, 1)[0][1:] == (str(CLICKSTREAM_DAYS), str(len(DEVICES)))
    assert int(day.rows(0, 1)[0][0]) > 0 and day.rows(0, 1)[0][1] == "mobile"
    assert 0 < day.scanned_bytes < whole.scanned_bytes / (CLICKSTREAM_DAYS * len(DEVICES) - 1)
    assert before.rows(0, 1) == [("0",)] and before.scanned_bytes == 0  # the range runs ahead of the data
