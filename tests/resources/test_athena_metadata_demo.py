"""SHOW and DESCRIBE answer rows in the demo, as Athena answers them: one varchar column named as Hive names it, no
header row, DESCRIBE's fields aligned and tab-separated; a Lake Formation column grant hides the other columns here
too. Through the MCP protocol (athena_query) against the demo account, as its caller (demo-analyst)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.enterprise import DATABASE as ENTERPRISE
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.lakehouse import DATABASE as LAKEHOUSE
from aws_data_mcp_demo.account.seed_data import CUSTOMER_FEATURE_COLUMNS, QUERY_WORKGROUPS, TABLES
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
ORDERS = next(t for t in TABLES if (t.database, t.name) == ("sales", "orders"))


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with ServerThread(settings) as running:
        yield running


async def rows(server: ServerThread, sql: str, database: str = "sales") -> tuple[str, list[str]]:
    result = await query(server, "2026-07-28", sql=sql, database=database)
    assert not result.is_error, result.content[0].text
    got = answer(result)
    [column] = got["results"]["columns"]
    return column["name"], [row[0] for row in got["results"]["rows"]]


SALES_VIEWS = ("orders_by_channel", "returns_summary")
"""The views of sales (account/table_facts.py): SHOW TABLES lists them too, as Athena does."""


@pytest.mark.parametrize(("sql", "column", "expected"), [
    ("SHOW TABLES", "tab_name", sorted([*(t.name for t in TABLES if t.database == "sales"), *SALES_VIEWS])),
    ("SHOW TABLES IN marketing 'camp*'", "tab_name", ["campaign_events", "campaigns"]),
    ("SHOW DATABASES", "database_name", sorted({t.database for t in TABLES} | {ENTERPRISE, LAKEHOUSE})),
    ("SHOW SCHEMAS LIKE 's*'", "database_name", ["sales"]),
    ("SHOW COLUMNS IN orders", "field", [c[0] for c in (*ORDERS.columns, *ORDERS.partition_keys)]),
    ("SHOW PARTITIONS sales.orders", "partition", sorted(lake_files()["sales.orders"].rows)),
    ("SHOW TBLPROPERTIES orders ('numRows')", "prpt_name", [str(sum(lake_files()["sales.orders"].rows.values()))]),
    ("SHOW VIEWS", "views", list(SALES_VIEWS)),
])
async def test_show_answers_rows(server: ServerThread, demo_caller: DemoAccount, sql: str, column: str,
                                 expected: list[str]) -> None:
    assert await rows(server, sql) == (column, expected)


async def test_describe_answers_hives_layout_with_the_partition_keys(server: ServerThread,
                                                                    demo_caller: DemoAccount) -> None:
    column, lines = await rows(server, "DESCRIBE orders")
    assert column == "col_name"
    fields = [line.split("\t") for line in lines]
    assert [f[0].rstrip() for f in fields[:len(ORDERS.columns)]] == [c[0] for c in ORDERS.columns]
    assert all(len(f[0]) >= 20 and len(f) == 3 for f in fields[:len(ORDERS.columns)])
    assert "# Partition Information" in lines
    assert lines[-1].split("\t")[0].rstrip() == "order_date"


async def test_show_create_table_and_properties(server: ServerThread, demo_caller: DemoAccount) -> None:
    column, lines = await rows(server, "SHOW CREATE TABLE sales.orders")
    assert column == "createtab_stmt" and lines[0] == "CREATE EXTERNAL TABLE `sales`.`orders`("
    assert "PARTITIONED BY ( " in lines and "  's3://acme-datalake-curated/sales/orders/'" in lines
    column, lines = await rows(server, "SHOW TBLPROPERTIES orders")
    assert column == "prpt_name" and "numRows\t250000" in lines


async def test_describe_shows_only_the_columns_lake_formation_grants(server: ServerThread,
                                                                   demo_caller: DemoAccount) -> None:
    _, lines = await rows(server, "DESCRIBE customer_features", database="ml_features")
    shown = {line.split("\t")[0].rstrip() for line in lines if line and not line.startswith("#")}
    assert shown == set(CUSTOMER_FEATURE_COLUMNS)
    _, fields = await rows(server, "SHOW COLUMNS IN ml_features.customer_features")
    assert "avg_basket" not in fields
