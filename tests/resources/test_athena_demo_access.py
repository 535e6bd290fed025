"""The demo's Athena checks what Athena checks as the caller: the demo caller (demo-analyst) queries every table
through athena_query and is refused exactly where real Athena would refuse them, with Athena's error.

One DemoAccount per process (it switches moto's IAM enforcement on process-wide), for this module only.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import CUSTOMER_FEATURE_COLUMNS
from support.demo_access import LAKE_FORMATION, REFUSED, RESULTS_REFUSED, count_query
from support.queries import answer, query
from support.servers import ServerThread, demo_query_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(20) as server:
        yield server


async def test_each_table_reads_or_is_refused_as_athena_refuses_the_demo_caller(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    refused = REFUSED["demo-analyst"]
    for name in lake_files():
        sql, rows = count_query(name)
        result = await query(query_server, "2026-07-28", sql=sql)
        got = answer(result)
        if name not in refused:
            assert not result.is_error and got["results"]["rows"] == [[rows]], (name, got)
            continue
        error = got["error"]
        assert result.is_error and got["state"] == "FAILED" and error["error"] == "access_denied", (name, got)
        assert error["athena"]["category"] == "USER" and got["statistics"]["data_scanned_bytes"] == 0, got
        if refused[name] == LAKE_FORMATION:
            assert error["athena"]["type"] == 234 and error.get("action") is None, got
            assert f"Insufficient Lake Formation permission(s) on {name.split('.')[1]}" in error["message"], got
        else:
            assert error["action"] == refused[name] and "Permission denied on S3 path: s3://" in error["message"], got


async def test_a_column_grant_shows_its_columns_only_and_refuses_the_others_as_athena_does(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    sql, _ = count_query("ml_features.customer_features")
    star = answer(await query(query_server, "2026-07-28", sql=sql.replace("count(*) AS n", "*") + " LIMIT 1"))
    assert [c["name"] for c in star["results"]["columns"]] == list(CUSTOMER_FEATURE_COLUMNS), star
    hidden = await query(query_server, "2026-07-28", sql="SELECT churn_risk_bucket FROM ml_features.customer_features")
    got = answer(hidden)
    assert hidden.is_error and got["error"]["athena"]["name"] == "COLUMN_NOT_FOUND", got
    assert "requester is not authorized" in got["error"]["message"], got


async def test_a_workgroup_whose_results_the_caller_cannot_write_fails_the_query(
        query_server: ServerThread, demo_caller: DemoAccount) -> None:
    result = await query(query_server, "2026-07-28", sql="SELECT 1", workgroup=RESULTS_REFUSED["demo-analyst"])
    got = answer(result)
    error = got["error"]
    assert result.is_error and error["error"] == "access_denied" and error["action"] == "s3:PutObject", got
    assert "Access denied when writing output to url: s3://acme-athena-results/partners/" in error["message"], got
