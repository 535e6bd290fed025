"""The plain demo's caller (demo-analyst, alice's rights) queries each table of the `enterprise` database through
athena_query over MCP and gets what AWS's rules give (support/enterprise_access.py), as the hosted callers do
(tests/demo/test_enterprise_access.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.demo.account import DemoAccount
from aws_data_mcp.demo.seed_data import QUERY_WORKGROUPS
from support.enterprise_access import ENCRYPTED_RESULTS, EXPECTED, LAKE_FORMATION, Reads
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20)
    with ServerThread(settings) as server:
        yield server


@pytest.mark.parametrize("workgroup", [None, "encrypted-results"])
async def test_each_enterprise_table_and_the_encrypted_results_workgroup(
        query_server: ServerThread, demo_caller: DemoAccount, workgroup: str | None) -> None:
    cases = EXPECTED["demo-analyst"] if workgroup is None else {"SELECT 1": ENCRYPTED_RESULTS["demo-analyst"]}
    for name, expected in cases.items():
        sql = name if workgroup else f"SELECT * FROM enterprise.{name}"
        result = await query(query_server, "2026-07-28", sql=sql, database="enterprise",
                             workgroup=workgroup or "analytics")
        got = answer(result)
        if isinstance(expected, Reads):
            assert not result.is_error and len(got["results"]["rows"]) == expected.rows, (name, got)
            assert [c["name"] for c in got["results"]["columns"]] == list(expected.columns), (name, got)
            continue
        error = got["error"]
        assert result.is_error and got["state"] == "FAILED" and error["error"] == "access_denied", (name, got)
        assert got["statistics"]["data_scanned_bytes"] == 0, got
        if expected.action == LAKE_FORMATION:
            assert error.get("action") is None, got
        else:
            assert error.get("action") == expected.action, (name, got)
