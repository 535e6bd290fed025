"""The demo account's Athena runs the submitted SQL over the lake's own S3 objects (athena_engine, lake_data)."""

import csv
import io
import time
from collections import Counter
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import boto3
import duckdb
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from aws_data_mcp_demo.account.lake_data import ORDER_ROWS, ORDERS_BUCKET, ORDERS_PREFIX, order_values
from aws_data_mcp_demo.account.lake_tables import put_orders
from aws_data_mcp_demo.engine import athena as athena_engine
from support.servers import START_GUARD_SECONDS

RESULTS = "engine-results"
TERMINAL = {"SUCCEEDED", "FAILED", "CANCELLED"}
CUTOFF = 10_000_000  # the smallest per-query cutoff Athena accepts


@pytest.fixture(scope="module")
def session() -> Iterator[boto3.Session]:
    """An account holding the generated orders, with the engine running queries from then on."""
    with mock_aws():
        session = boto3.Session(aws_access_key_id="engine", aws_secret_access_key="engine", region_name="us-east-1")
        put_orders(session.client("s3"), session.client("glue"))
        session.client("s3").create_bucket(Bucket=RESULTS)
        athena = session.client("athena")
        athena.create_work_group(Name="guarded", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/guarded/"},
            "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": CUTOFF})
        athena.create_work_group(Name="open", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/open/"},
            "EnforceWorkGroupConfiguration": False})
        athena_engine.install()
        try:
            yield session
        finally:
            athena_engine.uninstall()


@pytest.fixture
def athena(session: boto3.Session, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(athena_engine, "PACING", athena_engine.Pacing(queued_seconds=0.1, running_seconds=0.1))
    return session.client("athena")


def start(athena: Any, sql: str, workgroup: str = "open", **request: Any) -> str:
    return athena.start_query_execution(QueryString=sql, WorkGroup=workgroup,
                                        QueryExecutionContext={"Database": "sales"}, **request)["QueryExecutionId"]


def wait(athena: Any, execution_id: str, states: list[str] | None = None) -> dict[str, Any]:
    deadline = time.monotonic() + START_GUARD_SECONDS  # a guard against a query that never ends, not a budget
    while time.monotonic() < deadline:
        execution = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]
        if states is not None and (not states or states[-1] != execution["Status"]["State"]):
            states.append(execution["Status"]["State"])
        if execution["Status"]["State"] in TERMINAL:
            return execution
        time.sleep(0.02)
    raise AssertionError(f"{execution_id} did not finish")


def all_rows(athena: Any, execution_id: str, page_size: int = 1000) -> tuple[list[list[str | None]], int]:
    rows, pages, token = [], 0, None
    while True:
        page = athena.get_query_results(QueryExecutionId=execution_id, MaxResults=page_size,
                                        **({"NextToken": token} if token else {}))
        pages += 1
        rows += [[cell.get("VarCharValue") for cell in row["Data"]] for row in page["ResultSet"]["Rows"]]
        token = page.get("NextToken")
        if not token:
            return rows, pages


def table_bytes(session: boto3.Session, prefix: str = ORDERS_PREFIX) -> int:
    pages = session.client("s3").get_paginator("list_objects_v2").paginate(Bucket=ORDERS_BUCKET, Prefix=prefix)
    return sum(item["Size"] for page in pages for item in page.get("Contents", []))


def test_a_query_goes_queued_running_succeeded_and_returns_correct_aggregates(athena: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # Each state lasts long enough for a poll on a loaded machine to see it (0.1 s was missed under load).
    monkeypatch.setattr(athena_engine, "PACING", athena_engine.Pacing(queued_seconds=1.0, running_seconds=1.0))
    states: list[str] = []
    execution_id = start(athena, "SELECT count(*) AS orders, sum(total_amount) AS revenue, "
                                 "count(DISTINCT customer_id), max(items_count) AS most_items "
                                 "FROM sales.orders WHERE status = 'delivered'")
    execution = wait(athena, execution_id, states)

    assert states == ["QUEUED", "RUNNING", "SUCCEEDED"]
    assert execution["Status"]["CompletionDateTime"] >= execution["Status"]["SubmissionDateTime"]
    delivered = [order for order in map(order_values, range(ORDER_ROWS)) if order.status == "delivered"]
    page = athena.get_query_results(QueryExecutionId=execution_id)
    header, values = ([cell["VarCharValue"] for cell in row["Data"]] for row in page["ResultSet"]["Rows"])
    assert header == ["orders", "revenue", "_col2", "most_items"]
    assert values == [str(len(delivered)), str(sum((o.total_amount for o in delivered), Decimal(0))),
                      str(len({o.customer_id for o in delivered})), str(max(o.items_count for o in delivered))]
    columns = page["ResultSet"]["ResultSetMetadata"]["ColumnInfo"]
    assert [(c["Type"], c["Precision"], c["Scale"]) for c in columns] == [
        ("bigint", 19, 0), ("decimal", 38, 2), ("bigint", 19, 0), ("integer", 10, 0)]
    assert "NextToken" not in page


def test_paging_returns_every_row_once_with_the_header_first(athena: Any) -> None:
    execution_id = start(athena, "SELECT order_id, order_ts, order_date FROM orders WHERE order_date < '2026-03-01'")
    assert wait(athena, execution_id)["Status"]["State"] == "SUCCEEDED"

    rows, pages = all_rows(athena, execution_id)

    expected = {o.order_id for o in map(order_values, range(ORDER_ROWS)) if o.order_date < date(2026, 3, 1)}
    assert len(expected) > 100_000
    assert rows[0] == ["order_id", "order_ts", "order_date"]
    assert pages == (len(expected) + 1 + 999) // 1000
    order_ids = Counter(row[0] for row in rows[1:])
    assert len(rows) == len(expected) + 1 and set(order_ids.values()) == {1}
    assert order_ids.keys() == expected
    third = order_values(2)
    assert ["ORD-1000002", f"{third.order_date} 00:01:14.000", str(third.order_date)] in rows


def chunk_bytes(session: boto3.Session, day: str, tmp_path: Path) -> dict[str, int]:
    """One day's orders file: its compressed bytes per column, as its Parquet metadata states them."""
    body = session.client("s3").get_object(Bucket=ORDERS_BUCKET, Key=f"{ORDERS_PREFIX}order_date={day}/"
                                           "part-00000.parquet")["Body"].read()
    (tmp_path / f"{day}.parquet").write_bytes(body)
    with duckdb.connect() as connection:
        return dict(connection.execute("SELECT path_in_schema, sum(total_compressed_size) FROM parquet_metadata(?) "
                                       "GROUP BY 1", [str(tmp_path / f"{day}.parquet")]).fetchall())


def test_data_scanned_is_the_column_chunks_read_and_partition_filters_prune(
        session: boto3.Session, athena: Any, tmp_path: Path) -> None:
    """Of Parquet, Athena reads the footer and the chunks of the columns the query uses, in the partitions kept."""
    def scanned(sql: str) -> int:
        return int(wait(athena, start(athena, sql))["Statistics"]["DataScannedInBytes"])

    everything = scanned("SELECT * FROM sales.orders WHERE order_date = '2026-01-05'")
    one_column = scanned("SELECT order_id FROM sales.orders WHERE order_date = '2026-01-05'")
    count = scanned("SELECT count(*) FROM sales.orders WHERE order_date = '2026-01-05'")
    week = scanned("SELECT o.status FROM sales.orders o "
                   "WHERE o.order_date BETWEEN '2026-01-01' AND '2026-01-07' AND o.items_count > 3")
    all_days = scanned("SELECT * FROM sales.orders")

    day_file = table_bytes(session, f"{ORDERS_PREFIX}order_date=2026-01-05/")
    chunks = chunk_bytes(session, "2026-01-05", tmp_path)
    footer = day_file - sum(chunks.values())
    assert all_days == table_bytes(session) > 0
    assert everything == day_file
    assert one_column == footer + chunks["order_id"] < everything
    assert count == footer
    week_days = [f"2026-01-0{day}" for day in range(1, 8)]
    assert week == sum(table_bytes(session, f"{ORDERS_PREFIX}order_date={day}/") - sum(sizes.values())
                       + sizes["status"] + sizes["items_count"]
                       for day in week_days for sizes in [chunk_bytes(session, day, tmp_path)])


@pytest.mark.parametrize(("sql", "where"), [
    ("SELECT a.status FROM sales.orders a JOIN sales.orders b ON a.order_id = b.order_id "
     "AND a.order_date = '2026-01-05' AND b.order_date = '2026-01-05'",
     "SELECT a.status FROM sales.orders a JOIN sales.orders b ON a.order_id = b.order_id "
     "WHERE a.order_date = '2026-01-05' AND b.order_date = '2026-01-05'"),
    ("SELECT t.status FROM (SELECT status, order_date FROM sales.orders) AS t WHERE t.order_date = '2026-01-05'",
     "SELECT status FROM sales.orders WHERE order_date = '2026-01-05'"),
    ("WITH day AS (SELECT status, order_date AS d FROM sales.orders) SELECT status FROM day WHERE d = '2026-01-05'",
     "SELECT status FROM sales.orders WHERE order_date = '2026-01-05'"),
])
def test_a_filter_in_join_on_or_around_a_subquery_prunes_as_in_where(
        session: boto3.Session, athena: Any, sql: str, where: str) -> None:
    """The same partitions are read as with the filter in the table's own WHERE: one day's file, not the table."""
    def scanned(statement: str) -> int:
        return int(wait(athena, start(athena, statement))["Statistics"]["DataScannedInBytes"])

    day_file = table_bytes(session, f"{ORDERS_PREFIX}order_date=2026-01-05/")
    assert scanned(sql) == scanned(where) <= 2 * day_file < table_bytes(session)


def test_a_query_over_the_workgroup_cutoff_is_cancelled_as_athena_does(session: boto3.Session, athena: Any) -> None:
    assert table_bytes(session) > CUTOFF

    refused = wait(athena, start(athena, "SELECT * FROM sales.orders", workgroup="guarded"))
    allowed = wait(athena, start(athena, "SELECT * FROM sales.orders WHERE order_date = '2026-02-01'",
                                 workgroup="guarded"))

    assert refused["Status"]["State"] == "CANCELLED"
    assert refused["Status"]["StateChangeReason"] == "Bytes scanned limit was exceeded"
    assert refused["Statistics"]["DataScannedInBytes"] == CUTOFF
    assert allowed["Status"]["State"] == "SUCCEEDED"


@pytest.mark.parametrize(("sql", "reason"), [
    ("SELECT order_id FROM sales.orders\nWHERE (status = 'placed'", "SYNTAX_ERROR: line 2:17: "),
    ("SELECT revenue FROM sales.orders", "COLUMN_NOT_FOUND: line 1:8: Column 'revenue' cannot be resolved"),
    ("SELECT 1 FROM\n  sales.order_lines", "TABLE_NOT_FOUND: line 2:3: Table 'awsdatacatalog.sales.order_lines' "
                                         "does not exist"),
])
def test_a_bad_query_fails_with_athenas_reason_and_position(athena: Any, sql: str, reason: str) -> None:
    execution = wait(athena, start(athena, sql))

    assert execution["Status"]["State"] == "FAILED"
    assert execution["Status"]["StateChangeReason"].startswith(reason)
    assert execution["Status"]["AthenaError"]["ErrorCategory"] == 2
    assert execution["Statistics"]["DataScannedInBytes"] == 0
    with pytest.raises(ClientError, match="Query did not succeed"):
        athena.get_query_results(QueryExecutionId=execution["QueryExecutionId"])


def test_a_long_query_stays_running_until_stopped(athena: Any) -> None:
    execution_id = start(athena, "/* demo:running_seconds=30 */ SELECT count(*) FROM sales.orders")
    time.sleep(0.5)

    assert athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]["Status"]["State"] == "RUNNING"
    with pytest.raises(ClientError, match=r"Query has not yet finished\. Current state: RUNNING"):
        athena.get_query_results(QueryExecutionId=execution_id)
    athena.stop_query_execution(QueryExecutionId=execution_id)

    stopped = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]
    assert stopped["Status"]["State"] == "CANCELLED"
    assert "CompletionDateTime" in stopped["Status"]


def test_results_land_where_the_workgroup_says(session: boto3.Session, athena: Any) -> None:
    enforced = start(athena, "SELECT status, count(*) AS n FROM orders WHERE order_date = '2026-01-03' "
                             "GROUP BY status ORDER BY status", workgroup="guarded",
                     ResultConfiguration={"OutputLocation": f"s3://{RESULTS}/ignored/"})
    chosen = start(athena, "SELECT 'a \"quoted\" text' AS note, CAST(NULL AS varchar) AS nothing", workgroup="open",
                   ResultConfiguration={"OutputLocation": f"s3://{RESULTS}/mine"})
    s3 = session.client("s3")

    assert wait(athena, enforced)["ResultConfiguration"]["OutputLocation"] == f"s3://{RESULTS}/guarded/{enforced}.csv"
    assert wait(athena, chosen)["ResultConfiguration"]["OutputLocation"] == f"s3://{RESULTS}/mine/{chosen}.csv"
    body = s3.get_object(Bucket=RESULTS, Key=f"guarded/{enforced}.csv")["Body"].read().decode()
    assert body.splitlines()[0] == '"status","n"'
    that_day = Counter(o.status for o in map(order_values, range(ORDER_ROWS)) if o.order_date == date(2026, 1, 3))
    assert list(csv.reader(io.StringIO(body)))[1:] == [[status, str(n)] for status, n in sorted(that_day.items())]
    assert s3.head_object(Bucket=RESULTS, Key=f"guarded/{enforced}.csv.metadata")["ContentLength"] > 0
    assert s3.get_object(Bucket=RESULTS, Key=f"mine/{chosen}.csv")["Body"].read().decode() == (
        '"note","nothing"\n"a ""quoted"" text",\n')
    row = athena.get_query_results(QueryExecutionId=chosen)["ResultSet"]["Rows"][1]
    assert row == {"Data": [{"VarCharValue": 'a "quoted" text'}, {}]}
