"""What the table resource says of a demo table before any query, read as the demo caller through every path (both
protocol revisions, get_resource, the Lambda handler): Glue's column statistics, checked against an independent
DuckDB computation over every file of the table as the emulated S3 holds it.

One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from moto.s3.models import s3_backends

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.lakehouse import DATABASE as LAKEHOUSE
from aws_data_mcp_demo.account.lakehouse import TABLE as ICEBERG_TABLE
from aws_data_mcp_demo.account.table_facts import (
    ORDERS_BY_CHANNEL_SQL,
    ORDERS_RULES,
    ORDERS_RULESET,
    RETURNS_SUMMARY_SQL,
    VIEW_DEFINER_ROLE,
)
from support.events import load_event
from support.queries import answer, query
from support.reading import read_everywhere
from support.servers import ServerThread, demo_query_server, free_port, lambda_container

pytestmark = pytest.mark.anyio

NUMBERS = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "date")
STRINGS = ("string", "varchar", "char")


@pytest.fixture(scope="module")
def demo_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="demo", port=free_port())) as server:
        yield server


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(query_wait_seconds=20) as server:
        yield server


@pytest.fixture(scope="module")
def demo_handler(demo: DemoAccount) -> Callable[[dict[str, Any]], dict[str, Any]]:
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    return lambda_container(Settings(mode="demo", allowed_hosts=(host,)))


def _table_files(account_id: str, location: str, into: Path) -> list[str]:
    """Every object under the table's location as the emulated S3 holds it (read from moto's store, whatever the
    caller may read), as Athena lists them: no `_` or `.` files."""
    bucket, _, prefix = location.removeprefix("s3://").partition("/")
    paths = []
    for key, stored in sorted(s3_backends[account_id]["aws"].buckets[bucket].keys.items()):
        if not key.startswith(prefix) or key.rsplit("/", 1)[-1][:1] in ("_", "."):
            continue
        local = into / key
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(stored.value)
        paths.append(str(local))
    return paths


def _reader(table: dict[str, Any], paths: list[str]) -> str:
    files = "[" + ", ".join(f"'{p}'" for p in paths) + "]"
    if "parquet" in (table["serde"] or "").lower():
        return f"read_parquet({files}, hive_partitioning = false)"
    # Nested columns read as JSON text: Glue computes no statistics for them, so only their presence matters.
    types = {c["name"]: "json" if c["type"].startswith(("struct", "array", "map")) else c["type"]
             for c in table["columns"]}
    columns = "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in types.items()) + "}"
    if "json" in (table["serde"] or "").lower():
        return f"read_json({files}, format = 'newline_delimited', columns = {columns})"
    return f"read_csv({files}, header = true, columns = {columns})"


def _expected(connection: duckdb.DuckDBPyConnection, scan: str, name: str, kind: str) -> dict[str, Any]:
    """What a reader should be told of one column, computed here in plain SQL."""
    column = f'"{name}"'
    nulls, distinct = connection.execute(f"SELECT count(*) - count({column}), count(DISTINCT {column}) "
                                         f"FROM {scan}").fetchone()
    if kind == "boolean":
        trues, falses = connection.execute(f"SELECT sum(CASE WHEN {column} THEN 1 ELSE 0 END), "
                                           f"sum(CASE WHEN NOT {column} THEN 1 ELSE 0 END) FROM {scan}").fetchone()
        return {"nulls": nulls, "trues": int(trues or 0), "falses": int(falses or 0)}
    if kind.startswith(STRINGS):
        longest, average = connection.execute(f"SELECT max(length({column})), avg(length({column})) "
                                              f"FROM {scan}").fetchone()
        return {"nulls": nulls, "distinct": distinct, "max_length": longest, "average_length": average}
    low, high = connection.execute(f"SELECT min({column}), max({column}) FROM {scan}").fetchone()
    if kind.startswith("decimal"):
        low, high = Decimal(low), Decimal(high)
    elif kind == "date":
        low, high = low.isoformat(), high.isoformat()
    return {"nulls": nulls, "distinct": distinct, "min": low, "max": high}


def _shown(kind: str, statistic: dict[str, Any]) -> dict[str, Any]:
    """The resource's figures for one column, decimals read back as numbers."""
    keys = ("nulls", "trues", "falses") if kind == "boolean" else (
        ("nulls", "distinct", "max_length", "average_length") if kind.startswith(STRINGS) else
        ("nulls", "distinct", "min", "max"))
    shown = {key: statistic.get(key) for key in keys}
    if kind.startswith("decimal"):
        shown["min"], shown["max"] = Decimal(shown["min"]), Decimal(shown["max"])
    return shown


async def test_column_statistics_equal_duckdb_over_every_file_of_each_lake_table(
        demo_server: ServerThread, demo_handler: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount, tmp_path: Path) -> None:
    compared: dict[str, int] = {}
    hidden: list[str] = []
    for database, names in demo_caller.inventory.databases.items():
        if database in (LAKEHOUSE, "enterprise"):
            continue
        for name in names:
            table = await read_everywhere(demo_server.url, demo_handler,
                                          f"athena://databases/{database}/tables/{name}")
            if "view" in table:
                continue
            statistics = table["column_statistics"]
            assert statistics["source"] == "glue:GetColumnStatisticsForTable" and "error" not in statistics, name
            paths = _table_files(demo_caller.account_id, table["location"], tmp_path / database / name)
            with duckdb.connect() as connection:
                scan = _reader(table, paths)
                for column in table["columns"]:
                    kind = column["type"]
                    if column.get("readable") is False:  # Lake Formation keeps its values from the caller
                        assert column["name"] not in {*statistics["columns"], *statistics["missing"]}, name
                        hidden.append(f"{database}.{name}.{column['name']}")
                        continue
                    if not kind.startswith((*NUMBERS, *STRINGS, "boolean")):
                        assert column["name"] in statistics["not_computed"], (name, column)
                        continue
                    expected = _expected(connection, scan, column["name"], kind)
                    assert _shown(kind, statistics["columns"][column["name"]]) == pytest.approx(expected), \
                        (name, column["name"])
                    compared[f"{database}.{name}"] = compared.get(f"{database}.{name}", 0) + 1
            assert statistics["missing"] == [] and statistics["compute"] is None, name
            readable = [c for c in table["columns"] if c.get("readable") is not False]
            assert ("first_query" in table) == bool(readable), name
    assert len(compared) >= 13 and sum(compared.values()) >= 60, (compared, hidden)
    # Lake Formation's column grants (seed_data): the caller reads none of churn_labels, not avg_basket
    assert "ml_features.customer_features.avg_basket" in hidden and "ml_features.churn_labels.churned" in hidden


async def test_a_table_without_statistics_says_so_with_the_command_that_computes_them(
        demo_server: ServerThread, demo_handler: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount) -> None:
    table = await read_everywhere(demo_server.url, demo_handler,
                                  f"athena://databases/{LAKEHOUSE}/tables/{ICEBERG_TABLE}")
    statistics = table["column_statistics"]
    assert statistics["columns"] == {} and statistics["missing"]
    assert statistics["compute"].startswith(
        f"aws glue start-column-statistics-task-run --database-name {LAKEHOUSE} --table-name {ICEBERG_TABLE} --role")
    assert "no column statistics" in statistics["note"]


@pytest.mark.usefixtures("quick_queries")
async def test_the_views_read_as_their_sql_with_their_base_tables_linked_and_athena_answers_on_them(
        demo_server: ServerThread, query_server: ServerThread,
        demo_handler: Callable[[dict[str, Any]], dict[str, Any]], demo_caller: DemoAccount) -> None:
    athena_view = await read_everywhere(demo_server.url, demo_handler, "athena://databases/sales/tables/orders_by_channel")
    catalog_view = await read_everywhere(demo_server.url, demo_handler, "athena://databases/sales/tables/returns_summary")
    orders = {"database": "sales", "table": "orders", "uri": "athena://databases/sales/tables/orders",
              "explain": "permissions://tables/sales/orders"}
    assert athena_view["view"] == {
        "kind": "athena_view", "sql": ORDERS_BY_CHANNEL_SQL, "truncated": False, "runs_as": "invoker",
        "base_tables": [orders], "note": athena_view["view"]["note"]}
    assert catalog_view["view"]["sql"] == RETURNS_SUMMARY_SQL and catalog_view["view"]["runs_as"] == "definer"
    assert catalog_view["view"]["definer"] == f"arn:aws:iam::{demo_caller.account_id}:role/{VIEW_DEFINER_ROLE}"
    assert catalog_view["view"]["dialects"] == [{"dialect": "ATHENA", "version": "3", "stale": None}]
    assert catalog_view["view"]["base_tables"] == [orders]
    assert "column_statistics" not in athena_view and "column_statistics" not in catalog_view

    day = "2026-03-01"
    by_channel = answer(await query(query_server, "2026-07-28", sql=(
        f"SELECT channel, orders FROM sales.orders_by_channel WHERE order_date = '{day}' ORDER BY channel")))
    direct = answer(await query(query_server, "2026-07-28", sql=(
        f"SELECT channel, count(*) AS orders FROM sales.orders WHERE order_date = '{day}' GROUP BY channel "
        "ORDER BY channel")))
    assert by_channel["state"] == "SUCCEEDED" and by_channel["results"]["rows"] == direct["results"]["rows"]
    returns = answer(await query(query_server, "2026-07-28", sql=(
        f"SELECT sum(returned_orders) AS n FROM sales.returns_summary WHERE order_date = '{day}'")))
    returned = answer(await query(query_server, "2026-07-28", sql=(
        f"SELECT count(*) AS n FROM sales.orders WHERE order_date = '{day}' AND status = 'returned'")))
    assert returns["state"] == "SUCCEEDED" and returns["results"]["rows"] == returned["results"]["rows"]


async def test_freshness_names_the_newest_partition_and_the_failed_data_quality_rule(
        demo_server: ServerThread, demo_handler: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount) -> None:
    orders = await read_everywhere(demo_server.url, demo_handler, "athena://databases/sales/tables/orders")
    fresh = orders["freshness"]
    newest = max(lake_files()["sales.orders"].rows)
    assert fresh["newest_partition"]["values"] == {"order_date": newest.split("=")[1]}
    assert fresh["newest_partition"]["written"] and fresh["partitions_complete"] is True
    assert fresh["partition_indexes"] == [] and "errors" not in fresh
    quality = fresh["data_quality"]
    assert quality["ruleset"] == ORDERS_RULESET and quality["rules"] == len(ORDERS_RULES) and quality["score"] == 0.75
    assert quality["failed_rules"] == [{"name": "Rule_4", "rule": 'ColumnValues "currency" in ["USD", "EUR"]',
                                        "message": "Value: GBP does not meet the constraint requirement!"}]
    customers = await read_everywhere(demo_server.url, demo_handler, "athena://databases/sales/tables/customers")
    assert customers["freshness"]["data_quality"] is None and "newest_partition" not in customers["freshness"]
    assert "no result" in customers["freshness"]["note"]


@pytest.mark.usefixtures("quick_queries")
async def test_the_first_query_reads_the_newest_partition_and_its_estimate_is_what_athena_query_answers(
        demo_server: ServerThread, query_server: ServerThread,
        demo_handler: Callable[[dict[str, Any]], dict[str, Any]], demo_caller: DemoAccount) -> None:
    orders = await read_everywhere(demo_server.url, demo_handler, "athena://databases/sales/tables/orders")
    first = orders["first_query"]
    newest = max(lake_files()["sales.orders"].rows)
    day = newest.split("=")[1]
    assert first["sql"] == ('SELECT "order_id", "customer_id", "order_ts", "status", "currency", "order_date"\n'
                            f'FROM "sales"."orders"\nWHERE "order_date" = \'{day}\'\nLIMIT 10')
    assert first["estimate"] == {"tool": "athena_query", "arguments": {
        "sql": first["sql"], "database": "sales", "estimate_only": True}}
    estimate = answer(await query(query_server, "2026-07-28", **first["estimate"]["arguments"]))
    assert estimate["state"] == "SUCCEEDED" and estimate["estimate"]["available"], estimate
    ran = answer(await query(query_server, "2026-07-28", sql=first["sql"], database="sales"))
    assert ran["state"] == "SUCCEEDED" and len(ran["results"]["rows"]) == 10
    assert {row[-1] for row in ran["results"]["rows"]} == {day}
    everything = answer(await query(query_server, "2026-07-28", database="sales", estimate_only=True,
                                    sql="SELECT * FROM sales.orders"))
    sample, whole = estimate["estimate"]["input_bytes"], everything["estimate"]["input_bytes"]
    assert 0 < sample * 50 < whole and estimate["estimate"]["over_cutoff"] is False  # one day of 120
