"""A column the caller may not read (a Lake Formation column grant) is reported as Athena reports it: COLUMN_NOT_FOUND
naming the column, under an alias too, with the table's resource and explainer to read.

Through the MCP protocol against the demo account, as its caller (demo-analyst), who is granted some columns of
ml_features.customer_features (``seed_data.CUSTOMER_FEATURE_COLUMNS``) and not avg_basket.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcp import Client

from aws_data_mcp.explainer.uris import table_uri
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import CUSTOMER_FEATURE_COLUMNS
from support.queries import answer, query
from support.servers import ServerThread, demo_query_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(10) as running:
        yield running


@pytest.mark.parametrize(("sql", "named", "position"), [
    ("SELECT x.avg_basket FROM customer_features x WHERE x.snapshot_date = '2026-04-30'", "x.avg_basket", "1:8"),
    ("SELECT customer_id, avg_basket FROM ml_features.customer_features", "avg_basket", "1:21"),
    ("SELECT f.customer_id FROM customer_features AS f WHERE f.avg_basket > 10", "f.avg_basket", "1:56"),
])
async def test_a_hidden_column_is_column_not_found_with_the_tables_resource_and_explainer(
        server: ServerThread, demo_caller: DemoAccount, sql: str, named: str, position: str) -> None:
    assert "avg_basket" not in CUSTOMER_FEATURE_COLUMNS
    result = await query(server, "2026-07-28", sql=sql, database="ml_features")
    assert result.is_error
    got = answer(result)
    error = got["error"]
    assert error["error"] == "invalid_argument", error
    assert f"COLUMN_NOT_FOUND: line {position}: Column '{named}' cannot be resolved" in error["message"]
    assert "SYNTAX_ERROR" not in error["message"]
    assert error["explain"] == table_uri("ml_features", "customer_features")
    assert "athena://databases/ml_features/tables/customer_features" in " ".join(error["details"])


async def test_the_granted_columns_still_read(server: ServerThread, demo_caller: DemoAccount) -> None:
    result = await query(server, "2026-07-28", database="ml_features",
                         sql="SELECT x.customer_id, x.recency_days FROM customer_features x LIMIT 3")
    assert not result.is_error, result.content[0].text
    assert len(answer(result)["results"]["rows"]) == 3


async def test_the_table_resource_marks_the_columns_the_caller_may_not_read(server: ServerThread,
                                                                          demo_caller: DemoAccount) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        read = await client.read_resource("athena://databases/ml_features/tables/customer_features")
    table = json.loads(read.contents[0].text)
    hidden = {c["name"] for c in [*table["columns"], *table["partition_keys"]] if c.get("readable") is False}
    every = {c["name"] for c in [*table["columns"], *table["partition_keys"]]}
    assert hidden == every - set(CUSTOMER_FEATURE_COLUMNS) and "avg_basket" in hidden
    access = table["column_access"]
    assert access["known"] is True and access["decided_by"] == "lake_formation"
    assert set(access["hidden_columns"]) == hidden
    assert access["explain"] == table_uri("ml_features", "customer_features")


async def test_a_table_iam_decides_marks_no_column(server: ServerThread, demo_caller: DemoAccount) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        read = await client.read_resource("athena://databases/sales/tables/orders")
    table = json.loads(read.contents[0].text)
    assert not any("readable" in c for c in table["columns"])
    assert table["column_access"]["hidden_columns"] == []
    assert table["column_access"]["decided_by"] in ("iam", None)
