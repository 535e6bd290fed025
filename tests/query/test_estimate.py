"""athena_query's estimate_only: what Athena's EXPLAIN (TYPE IO) says a query would read and cost, or that it
has no statistics to say it with, and never a guess.

Through the MCP protocol against the demo account, whose Athena answers EXPLAIN (TYPE IO) from the Glue statistics
of the partitions a query reads (every demo table has them); the reading of output without statistics on samples of
Athena's JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.query.answers import NO_STATISTICS, estimate
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import CUSTOMER_FEATURE_COLUMNS, QUERY_CUTOFF_BYTES, QUERY_WORKGROUPS
from support.demo_access import LAKE_FORMATION, REFUSED
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
JOINED = ("SELECT c.customer_id, count(*) AS orders FROM orders o JOIN sales.customers c "
          "ON o.customer_id = c.customer_id WHERE o.order_date = '2026-01-02' GROUP BY c.customer_id")
PRICE_PER_TB = 5.0
MB = 1 << 20
TB = 1 << 40


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10,
                        athena_price_per_tb=PRICE_PER_TB)
    with ServerThread(settings) as running:
        yield running


def expected(name: str, partition: str = "") -> tuple[int, int]:
    """The rows and bytes of a table's files (of one partition), as the seed stored them."""
    lake = lake_files()[name]
    keys = [key for key in lake.files if key.startswith(partition)]
    rows = lake.rows[partition.rstrip("/")] if partition else sum(lake.rows.values())
    return rows, sum(len(lake.files[key]) for key in keys)


def read_bytes(name: str, partition: str, columns: set[str], tmp_path: Path) -> int:
    """What Athena reads of a Parquet table's files (of one partition) for `columns`: each file's footer and those
    columns' chunks, from the files' own Parquet metadata."""
    lake = lake_files()[name]
    total = 0
    for index, (key, body) in enumerate(sorted(lake.files.items())):
        if not key.startswith(partition):
            continue
        path = tmp_path / f"{index}.parquet"
        path.write_bytes(body)
        with duckdb.connect() as connection:
            chunks = connection.execute("SELECT path_in_schema, total_compressed_size FROM parquet_metadata(?)",
                                        [str(path)]).fetchall()
        total += len(body) - sum(size for _, size in chunks) + sum(size for column, size in chunks if column in columns)
    return total


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_estimate_of_a_join_gives_each_table_its_rows_and_bytes_and_scans_nothing(
        server: ServerThread, demo_caller: DemoAccount, mode: str, tmp_path: Path) -> None:
    """Each table its rows (statistics) and the bytes of the columns the query uses (customer_id of each)."""
    result = await query(server, mode, sql=JOINED, estimate_only=True)
    assert not result.is_error, result.content[0].text
    got = answer(result)
    assert got["state"] == "SUCCEEDED" and got["statement"] == "EXPLAIN"
    assert got["results"] is None and got["error"] is None  # an estimate, not Athena's raw rows
    (order_rows, _), (customer_rows, _) = (expected("sales.orders", "order_date=2026-01-02/"),
                                           expected("sales.customers"))
    order_bytes = read_bytes("sales.orders", "order_date=2026-01-02/", {"customer_id"}, tmp_path)
    customer_bytes = read_bytes("sales.customers", "", {"customer_id"}, tmp_path)
    assert order_bytes < expected("sales.orders", "order_date=2026-01-02/")[1]
    total = order_bytes + customer_bytes
    billed = max(-(-total // MB), 10) * MB  # by the MB, 10 MB at least
    assert got["estimate"] == {
        "available": True,
        "tables": [{"table": "awsdatacatalog.sales.orders", "input_bytes": order_bytes, "input_rows": order_rows},
                   {"table": "awsdatacatalog.sales.customers", "input_bytes": customer_bytes,
                    "input_rows": customer_rows}],
        "input_bytes": total, "input_rows": order_rows + customer_rows, "billed_bytes": billed,
        "cost_usd": pytest.approx(billed * PRICE_PER_TB / TB, rel=1e-3), "price_per_tb_usd": PRICE_PER_TB,
        "over_cutoff": False,
    }
    assert got["statistics"]["data_scanned_bytes"] == 0
    assert got["statistics"]["billed_bytes"] == 0 and got["statistics"]["cost_usd"] == 0


async def test_every_demo_table_has_an_estimate_and_pruning_lowers_it(server: ServerThread, demo_caller: DemoAccount,
                                                                       tmp_path: Path) -> None:
    def granted(name: str, partition: str, size: int) -> int:
        """SELECT * under the analyst's Lake Formation column grant reads the granted columns only."""
        if name != "ml_features.customer_features":
            return size
        return read_bytes(name, partition, set(CUSTOMER_FEATURE_COLUMNS), tmp_path)

    for name, lake in lake_files().items():
        if REFUSED["demo-analyst"].get(name) == LAKE_FORMATION:  # EXPLAIN needs the table's grant, as on Athena
            continue
        got = answer(await query(server, "2026-07-28", sql=f"SELECT * FROM {name}", estimate_only=True))["estimate"]
        rows, size = expected(name)
        size = granted(name, "", size)
        assert got["available"] and (got["input_rows"], got["input_bytes"]) == (rows, size), (name, got)
        if lake.table.partition_keys:
            partition = min(lake.rows)
            key, value = partition.split("=")
            pruned = answer(await query(server, "2026-07-28", sql=f"SELECT * FROM {name} WHERE {key} = '{value}'",
                                        estimate_only=True))["estimate"]
            rows, size = expected(name, f"{partition}/")
            assert (pruned["input_rows"], pruned["input_bytes"]) == (rows, granted(name, f"{partition}/", size)), name
            assert pruned["input_bytes"] < got["input_bytes"], name


async def test_an_estimate_counts_the_columns_selected_and_says_whether_it_is_over_the_cutoff(
        server: ServerThread, demo_caller: DemoAccount) -> None:
    """Of Parquet, one column reads less than every column; a query over the cutoff is said to be, before it runs."""
    async def estimated(sql: str) -> dict[str, Any]:
        return answer(await query(server, "2026-07-28", sql=sql, estimate_only=True))["estimate"]

    every = await estimated("SELECT * FROM sales.orders")
    three = await estimated("SELECT order_id, status, total_amount FROM sales.orders")
    one = await estimated("SELECT order_id FROM sales.orders")
    count = await estimated("SELECT count(*) FROM sales.orders")

    assert every["input_bytes"] == expected("sales.orders")[1] > QUERY_CUTOFF_BYTES
    assert every["over_cutoff"] is True
    assert every["input_bytes"] > three["input_bytes"] > one["input_bytes"] > count["input_bytes"] > 0
    assert one["over_cutoff"] is False and count["over_cutoff"] is False


async def test_the_explain_itself_pages_athenas_one_row_of_json(server: ServerThread,
                                                                demo_caller: DemoAccount) -> None:
    got = answer(await query(server, "2026-07-28", sql="SELECT * FROM orders", estimate_only=True))
    async with Client(server.url, mode="2026-07-28") as client:
        read = json.loads((await client.read_resource(got["uri"])).contents[0].text)
    assert read["results"]["columns"] == [{"name": "Query Plan", "type": "varchar"}]
    [[plan]] = read["results"]["rows"]
    [table] = json.loads(plan)["inputTableColumnInfos"]
    assert table["table"]["schemaTable"] == {"schema": "sales", "table": "orders"}
    assert table["estimate"]["outputSizeInBytes"] == expected("sales.orders")[1]
    assert got["estimate"]["input_bytes"] > QUERY_CUTOFF_BYTES  # what the cutoff would stop, known before running


async def test_an_estimate_of_a_missing_table_is_athenas_refusal(server: ServerThread,
                                                                 demo_caller: DemoAccount) -> None:
    result = await query(server, "2026-07-28", sql="SELECT * FROM no_such_table", estimate_only=True)
    error = answer(result)["error"]
    assert result.is_error and error["error"] == "invalid_argument" and answer(result)["state"] == "FAILED"
    assert "TABLE_NOT_FOUND" in error["message"] and "no_such_table" in error["message"]


def plan_with(orders: dict[str, Any], customers: dict[str, Any]) -> str:
    """Athena's EXPLAIN (TYPE IO, FORMAT JSON) output for JOINED, with these estimates of its two tables."""
    def table(name: str, figures: dict[str, Any]) -> dict[str, Any]:
        return {"table": {"catalog": "awsdatacatalog", "schemaTable": {"schema": "sales", "table": name}},
                "columnConstraints": [], "estimate": {"cpuCost": 1.0e9, "maxMemory": 0.0, "networkCost": 0.0,
                                                      **figures}}

    return json.dumps({"inputTableColumnInfos": [table("orders", orders), table("customers", customers)],
                       "estimate": {"outputRowCount": 5000.0, "outputSizeInBytes": 90000.0, "cpuCost": 2.0e9,
                                    "maxMemory": 1.0e6, "networkCost": 9.0e4}}, indent=2)


def test_statistics_give_the_bytes_and_rows_per_table_their_total_and_the_cost() -> None:
    plan = plan_with({"outputRowCount": 250000.0, "outputSizeInBytes": 3.5e9},
                     {"outputRowCount": 20000.0, "outputSizeInBytes": 1200000.5})
    got = estimate(plan, PRICE_PER_TB)
    total = 3_500_000_000 + 1_200_001
    assert got == {
        "available": True,
        "tables": [{"table": "awsdatacatalog.sales.orders", "input_bytes": 3_500_000_000, "input_rows": 250_000},
                   {"table": "awsdatacatalog.sales.customers", "input_bytes": 1_200_001, "input_rows": 20_000}],
        "input_bytes": total, "input_rows": 270_000, "billed_bytes": -(-total // MB) * MB,
        "cost_usd": pytest.approx(-(-total // MB) * MB * PRICE_PER_TB / TB), "price_per_tb_usd": PRICE_PER_TB,
        "over_cutoff": None,
    }
    # Athena may answer the JSON a line a row, after a header row: the same estimate
    assert estimate("Query Plan\n" + plan, PRICE_PER_TB) == got


def test_a_small_estimate_costs_what_athena_bills_at_least() -> None:
    got = estimate(plan_with({"outputRowCount": 10.0, "outputSizeInBytes": 800.0},
                             {"outputRowCount": 5.0, "outputSizeInBytes": 200.0}), PRICE_PER_TB)
    assert got["input_bytes"] == 1000 and got["billed_bytes"] == 10 * MB


@pytest.mark.parametrize("customers", [{"outputRowCount": "NaN", "outputSizeInBytes": "NaN"},
                                       {"outputRowCount": 20000.0}, {}])
def test_one_table_without_statistics_is_no_estimate_not_a_partial_one(customers: dict[str, Any]) -> None:
    got = estimate(plan_with({"outputRowCount": 250000.0, "outputSizeInBytes": 3.5e9}, customers), PRICE_PER_TB)
    assert got["available"] is False and got["reason"] == NO_STATISTICS
    assert got["input_bytes"] is None and got["cost_usd"] is None and got["billed_bytes"] is None
    assert got["tables"][0] == {"table": "awsdatacatalog.sales.orders", "input_bytes": 3_500_000_000,
                                "input_rows": 250_000}
    assert got["tables"][1]["input_bytes"] is None


@pytest.mark.parametrize("plan", ["Fragment 0 [SINGLE]\n    Output layout: [orderkey]", '{"estimate": {}}',
                                  '{"inputTableColumnInfos": [{"table": {}}'])
def test_output_that_is_not_the_json_expected_says_so_and_keeps_it(plan: str) -> None:
    got = estimate(plan, PRICE_PER_TB)
    assert got["available"] is False and got["plan"] == plan
    assert got["reason"].startswith("Athena's EXPLAIN (TYPE IO) output is not the JSON expected")
    assert "tables" not in got and "cost_usd" not in got
