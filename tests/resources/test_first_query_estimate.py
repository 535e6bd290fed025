"""athena://databases/{database}/tables/{table}/first-query on the demo: the table resource's sample query with the
estimate athena_query's estimate_only answers for the same SQL, read every way (both revisions, get_resource, the
Lambda handler). The table resource itself starts no query: it links the sub-resource.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aws_data_mcp_demo.account.emulated import DemoAccount
from support.queries import answer, query
from support.reading import read_everywhere
from support.servers import ServerThread, demo_query_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(query_wait_seconds=20) as server:
        yield server


@pytest.mark.parametrize("name", ["sales.orders", "enterprise.shared_invoices"])
async def test_the_first_query_estimate_is_what_athena_query_estimates(
        query_server: ServerThread, demo_query_lambda: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount, name: str) -> None:
    database, table = name.split(".")
    described = await read_everywhere(query_server.url, demo_query_lambda, f"athena://databases/{database}/tables/{table}")
    sample = described["first_query"]
    assert sample["estimated"] == f"athena://databases/{database}/tables/{table}/first-query", sample
    got = await read_everywhere(query_server.url, demo_query_lambda, sample["estimated"])
    assert got["sql"] == sample["sql"] and got["database"] == database, got
    tool = answer(await query(query_server, "2026-07-28", sql=got["sql"], database=database, estimate_only=True))
    assert got["estimate"] == tool["estimate"] and got["estimate"]["available"] is True, (got, tool)
    assert got["workgroup"] == tool["workgroup"] and got["cutoff_bytes"] == tool["cutoff_bytes"], (got, tool)
    assert got["estimate"]["input_bytes"] > 0 and got["estimate"]["over_cutoff"] is False, got
    assert got["run"] == {"tool": "athena_query", "arguments": {"sql": sample["sql"], "database": database,
                                                                 "workgroup": tool["workgroup"]}}
    ran = answer(await query(query_server, "2026-07-28", **got["run"]["arguments"]))
    assert ran["state"] == "SUCCEEDED" and 0 < len(ran["results"]["rows"]) <= 10, ran


async def test_an_unknown_table_has_no_first_query_and_starts_none(
        query_server: ServerThread, demo_query_lambda: Callable[[dict[str, Any]], dict[str, Any]],
        demo_caller: DemoAccount) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    async with Client(query_server.url, mode="2026-07-28") as client:
        with pytest.raises(MCPError) as failed:
            await client.read_resource("athena://databases/sales/tables/no_such_table/first-query")
    assert failed.value.error.data["error"] == "not_found", failed.value.error.data
