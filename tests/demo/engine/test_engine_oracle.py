"""The demo's Athena answers what a plain engine answers: partition pruning and file selection change the bytes a
statement reads, never its answer.

The oracle is DuckDB run directly over every file of each table (hive partitioning, no pruning, no view of the
demo's), given the very SQL the demo's Athena received through StartQueryExecution/GetQueryResults. The corpus is
generated (hypothesis, derandomized, a bounded number of examples): statements that read a table several times
with different partition filters, through scalar subqueries, CTEs, UNION/INTERSECT/EXCEPT, self-joins, IN/EXISTS
subqueries and window functions, over a Parquet table (sales.orders), a CSV one (sales.raw_orders) and an
unpartitioned one (sales.customers).
"""

import contextlib
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from aws_data_mcp_demo.account.lake_tables import lake_files, put_table, s3_store
from aws_data_mcp_demo.engine import athena as athena_engine

TABLES = ("sales.orders", "sales.customers", "sales.raw_orders")
RESULTS = "oracle-results"
EXAMPLES = 40
"""Statements per run: each is one query through the demo's Athena and one through the oracle (about 0.3 s)."""

ORDER_DAYS = ["2026-01-05", "2026-01-06", "2026-01-31", "2026-03-02", "2026-04-30", "2026-05-01"]
"""Days in the data, at its edges, and one past it (a filter that selects no partition)."""
INGEST_DAYS = ["2026-04-16", "2026-04-20", "2026-04-25", "2026-04-30", "2026-05-01"]


@pytest.fixture(scope="module")
def athena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An account holding the three tables, the engine running queries, and no pacing (answers are what counts)."""
    with mock_aws():
        session = boto3.Session(aws_access_key_id="oracle", aws_secret_access_key="oracle", region_name="us-east-1")
        s3, glue = session.client("s3"), session.client("glue")
        for name in TABLES:
            lake = lake_files()[name]
            with contextlib.suppress(s3.exceptions.BucketAlreadyOwnedByYou):
                s3.create_bucket(Bucket=lake.table.bucket)
            with contextlib.suppress(glue.exceptions.AlreadyExistsException):
                glue.create_database(DatabaseInput={"Name": lake.table.database})
            put_table(s3_store(s3), glue, lake)
        s3.create_bucket(Bucket=RESULTS)
        client = session.client("athena")
        client.create_work_group(Name="oracle", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://{RESULTS}/"}, "EnforceWorkGroupConfiguration": True})
        athena_engine.install()
        pacing = athena_engine.PACING
        athena_engine.PACING = athena_engine.Pacing(queued_seconds=0.0, running_seconds=0.0)
        try:
            yield client
        finally:
            athena_engine.PACING = pacing
            athena_engine.uninstall()


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """DuckDB over every file of each table as written to the lake, partition keys from the paths, as text."""
    root = tmp_path_factory.mktemp("oracle")
    connection = duckdb.connect()
    for name in TABLES:
        lake = lake_files()[name]
        for key, body in lake.files.items():
            path = root / name / key
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        keys = {key: "VARCHAR" for key, _, _ in lake.table.partition_keys}
        files = str(root / name / ("*/*" if keys else "*"))
        if lake.table.fmt.startswith("parquet"):
            typed = f", hive_types = {keys}" if keys else ""
            scan = f"read_parquet('{files}', hive_partitioning = {bool(keys)}{typed})"
        else:
            scan = f"read_csv('{files}', header = true, all_varchar = true, hive_partitioning = {bool(keys)})"
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {lake.table.database}")
        connection.execute(f"CREATE VIEW {name} AS SELECT * FROM {scan}")
    connection.execute("USE sales")
    yield connection
    connection.close()


def run_demo(athena: Any, sql: str) -> list[tuple[str | None, ...]]:
    execution_id = athena.start_query_execution(QueryString=sql, WorkGroup="oracle",
                                                QueryExecutionContext={"Database": "sales"})["QueryExecutionId"]
    while True:  # readiness, not a clock: the engine ends every query in one state or another
        status = athena.get_query_execution(QueryExecutionId=execution_id)["QueryExecution"]["Status"]
        if status["State"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            break
        time.sleep(0.01)
    assert status["State"] == "SUCCEEDED", f"{sql}\n{status}"
    rows, token = [], None
    while True:
        page = athena.get_query_results(QueryExecutionId=execution_id, **({"NextToken": token} if token else {}))
        rows += [tuple(cell.get("VarCharValue") for cell in row["Data"]) for row in page["ResultSet"]["Rows"]]
        token = page.get("NextToken")
        if not token:
            return rows[1:]  # the header row first


def run_oracle(oracle: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[str | None, ...]]:
    relation = oracle.sql(sql)
    rendered = ", ".join(f"CAST(c{i} AS VARCHAR)" for i in range(len(relation.columns)))
    names = ", ".join(f"c{i}" for i in range(len(relation.columns)))
    return oracle.execute(f"SELECT {rendered} FROM ({sql}) AS q({names})").fetchall()


# --------------------------------------------------------------------------- the corpus

def _filter(column: str, days: list[str]) -> st.SearchStrategy[str]:
    """A condition on a partition key, in each of the forms the demo prunes by (and one it does not)."""
    day = st.sampled_from(days)
    return st.one_of(
        day.map(lambda d: f"{column} = '{d}'"),
        st.lists(day, min_size=1, max_size=3, unique=True).map(
            lambda ds: f"{column} IN ({', '.join(repr(d) for d in ds)})"),
        st.tuples(day, day).map(lambda p: f"{column} BETWEEN '{min(p)}' AND '{max(p)}'"),
        st.tuples(day, day).map(lambda p: f"{column} >= '{min(p)}' AND {column} < '{max(p)}'"),
        day.map(lambda d: f"{column} > '{d}'"),
        day.map(lambda d: f"({column} = '{d}' OR {column} = '2026-01-06')"),
    )


def _orders(alias: str = "") -> st.SearchStrategy[str]:
    """A filter on orders' partition key, qualified by `alias` when given, sometimes with a filter on a column."""
    key = f"{alias}.order_date" if alias else "order_date"
    status = f"{alias}.status" if alias else "status"
    extra = st.sampled_from(["", f" AND {status} = 'returned'", f" AND {status} <> 'cancelled'"])
    return st.tuples(_filter(key, ORDER_DAYS), extra).map("".join)


SCALAR = st.tuples(_orders(), _orders(), st.sampled_from(["count(*)", "sum(total_amount)", "max(order_id)"])).map(
    lambda p: f"SELECT (SELECT count(*) FROM orders WHERE {p[0]}) AS a, (SELECT {p[2]} FROM orders WHERE {p[1]}) AS b")
SET_OPERATION = st.tuples(_orders(), _orders(), st.sampled_from(["UNION ALL", "UNION", "INTERSECT", "EXCEPT"]),
                          st.sampled_from(["customer_id", "channel, status", "order_date"])).map(
    lambda p: f"SELECT count(*) AS n FROM (SELECT {p[3]} FROM orders WHERE {p[0]} {p[2]} "
              f"SELECT {p[3]} FROM sales.orders WHERE {p[1]}) AS t")
SELF_JOIN = st.tuples(_orders("a"), _orders("b"), st.sampled_from(["JOIN", "LEFT JOIN"])).map(
    lambda p: f"SELECT count(*) AS n, count(b.order_id) AS matched FROM orders a {p[2]} orders b "
              f"ON a.customer_id = b.customer_id AND {p[1]} WHERE {p[0]}")
SELF_JOIN_WHERE = st.tuples(_orders("a"), _orders("b")).map(
    lambda p: f"SELECT count(*) AS n FROM orders a, orders b WHERE a.customer_id = b.customer_id AND {p[0]} "
              f"AND {p[1]}")
RETENTION = st.tuples(_orders(), _orders()).map(
    lambda p: "WITH first AS (SELECT DISTINCT customer_id FROM orders WHERE " + p[0] + "), "
              "later AS (SELECT DISTINCT customer_id FROM orders WHERE " + p[1] + ") "
              "SELECT count(*) AS cohort, count(l.customer_id) AS retained, "
              "CAST(count(l.customer_id) AS DOUBLE) / nullif(count(*), 0) > 0.5 AS most "
              "FROM first f LEFT JOIN later l ON f.customer_id = l.customer_id")
IN_SUBQUERY = st.tuples(_orders(), _orders(), st.sampled_from(["IN", "NOT IN"])).map(
    lambda p: f"SELECT count(*) AS n FROM orders WHERE {p[0]} AND customer_id {p[2]} "
              f"(SELECT customer_id FROM orders WHERE {p[1]})")
EXISTS = st.tuples(_orders("o"), _orders(), st.sampled_from(["EXISTS", "NOT EXISTS"])).map(
    lambda p: f"SELECT count(*) AS n FROM orders o WHERE {p[0]} AND {p[2]} (SELECT 1 FROM orders p "
              f"WHERE p.customer_id = o.customer_id AND p.order_id <> o.order_id AND {p[1]})")
WINDOW = st.tuples(_orders(), _orders()).map(
    lambda p: "SELECT d, n, sum(n) OVER (ORDER BY d) AS running, rank() OVER (ORDER BY n DESC, d) AS r FROM ("
              f"SELECT order_date AS d, count(*) AS n FROM orders WHERE {p[0]} GROUP BY order_date "
              f"UNION ALL SELECT order_date, count(*) FROM orders WHERE {p[1]} GROUP BY order_date) AS t")
FIRST_ORDERS = _orders().map(
    lambda f: "SELECT count(*) AS n, count(DISTINCT channel) AS channels FROM (SELECT customer_id, channel, "
              "row_number() OVER (PARTITION BY customer_id ORDER BY order_ts, order_id) AS rn FROM orders "
              f"WHERE {f}) AS t WHERE rn = 1")
ACROSS_TABLES = st.tuples(_orders("o"), _filter("r.ingest_date", INGEST_DAYS), _orders()).map(
    lambda p: f"SELECT count(*) AS n, count(DISTINCT c.segment) AS segments FROM orders o "
              f"JOIN customers c ON c.customer_id = o.customer_id JOIN raw_orders r ON r.order_id = o.order_id "
              f"WHERE {p[0]} AND {p[1]} AND o.customer_id IN (SELECT customer_id FROM orders WHERE {p[2]})")
RAW_TWICE = st.tuples(_filter("ingest_date", INGEST_DAYS), _filter("ingest_date", INGEST_DAYS)).map(
    lambda p: f"SELECT (SELECT count(*) FROM raw_orders WHERE {p[0]}) AS a, "
              f"(SELECT count(DISTINCT order_id) FROM raw_orders WHERE {p[1]}) AS b")
KEY_IN_SUBQUERY = st.tuples(_orders("o"), _orders("p"), st.sampled_from(["IN", "NOT IN"])).map(
    lambda p: f"SELECT count(*) AS n FROM orders o WHERE o.order_date {p[2]} (SELECT p.order_date FROM orders p "
              f"WHERE {p[1]}) AND {p[0]}")
CORRELATED_OUTER_KEY = st.tuples(st.sampled_from(ORDER_DAYS), st.sampled_from(ORDER_DAYS)).map(
    lambda p: f"SELECT count(*) AS n FROM orders o WHERE o.order_date = '{p[0]}' AND EXISTS (SELECT 1 FROM orders "
              f"WHERE customer_id = o.customer_id AND order_date = '{p[1]}')")

STATEMENTS = st.one_of(SCALAR, SET_OPERATION, SELF_JOIN, SELF_JOIN_WHERE, RETENTION, IN_SUBQUERY, EXISTS, WINDOW,
                       FIRST_ORDERS, ACROSS_TABLES, RAW_TWICE, KEY_IN_SUBQUERY, CORRELATED_OUTER_KEY)
CORPUS = settings(derandomize=True, database=None, deadline=None, max_examples=EXAMPLES, print_blob=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@CORPUS
@given(sql=STATEMENTS)
def test_every_statement_answers_what_duckdb_answers_over_every_file(athena: Any, oracle: duckdb.DuckDBPyConnection,
                                                                      sql: str) -> None:
    assert Counter(run_demo(athena, sql)) == Counter(run_oracle(oracle, sql)), sql


@pytest.mark.parametrize("sql", [
    "SELECT (SELECT count(*) FROM orders WHERE order_date = '2026-01-05') AS a, "
    "(SELECT count(*) FROM orders WHERE order_date = '2026-01-06') AS b",
    "SELECT order_date, count(*) FROM (SELECT order_date FROM orders WHERE order_date = '2026-01-05' UNION ALL "
    "SELECT order_date FROM orders WHERE order_date = '2026-03-02') AS t GROUP BY order_date",
    "SELECT count(*) FROM orders a JOIN orders b ON a.channel = b.channel AND a.status = b.status "
    "WHERE a.order_date = '2026-01-05' AND b.order_date = '2026-01-06'",
    "SELECT count(*) FROM orders o WHERE o.order_date IN (SELECT p.order_date FROM orders p "
    "WHERE p.order_date = '2026-01-05')",
])
def test_the_issues_statements_answer_what_each_read_answers_alone(athena: Any, oracle: duckdb.DuckDBPyConnection,
                                                                  sql: str) -> None:
    """The statements the issue found wrong ([0, 2084], a lost UNION side, a self-join of 0)."""
    answer = run_demo(athena, sql)
    assert Counter(answer) == Counter(run_oracle(oracle, sql))
    assert all(value not in ("0", None) for row in answer for value in row)


def test_the_oracle_reads_every_file(oracle: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    """The oracle is not pruned: it sees all 250,000 orders over 120 days."""
    assert oracle.execute("SELECT count(*), count(DISTINCT order_date) FROM orders").fetchone() == (250_000, 120)
