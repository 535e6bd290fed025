"""athena_query's catalog: the query context (`catalog`), the catalogs the operator's patterns allow
(AWS_DATA_MCP_QUERY_CATALOGS), and `database`, which a statement naming every table by its database does not need.

Every refusal costs no AWS call; what is accepted reaches Athena with the context the caller asked for. The last
test reads each argument's description in the tool's input schema (as a client lists it) against what the tool
does with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.guard.catalog_patterns import catalog_allowed
from aws_data_mcp.guard.read_only import DEFAULT_CATALOGS
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.queries import answer
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]

BUCKET_CATALOG = "s3tablescatalog/acme-analytics"


@pytest.mark.parametrize(("name", "allowed"), [
    ("AwsDataCatalog", True), ("awsdatacatalog", True), (BUCKET_CATALOG, True), ("S3TablesCatalog/Sales", True),
    ("s3tablescatalog", False), ("s3tablescatalog/", False), ("s3tablescatalog/a/b", False),
    ("s3tablescatalogX", False), ("s3tablescatalogX/acme", False), ("xs3tablescatalog/acme", False),
    ("AwsDataCatalogX", False), ("lambda:s3tablescatalog/acme", False), ("lambda:mysql", False), ("mysql", False),
])
def test_the_default_patterns(name: str, allowed: bool) -> None:
    assert catalog_allowed(name, DEFAULT_CATALOGS) is allowed


def test_a_lambda_connector_needs_a_pattern_of_its_own() -> None:
    assert not catalog_allowed("lambda:sales-fn", ("*",))
    assert catalog_allowed("lambda:sales-fn", ("lambda:sales-*",))
    assert not catalog_allowed("lambda:other", ("lambda:sales-*",))


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with ServerThread(settings) as running:
        yield running


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The QueryExecutionContext of every StartQueryExecution the server makes from now on."""
    import botocore.client

    found: list[dict[str, Any]] = []
    original = botocore.client.BaseClient._make_api_call

    def recorded(self: Any, operation: str, params: Any) -> Any:
        if operation == "StartQueryExecution":
            found.append(dict(params["QueryExecutionContext"]))
        return original(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recorded)
    return found


async def _call(server: ServerThread, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    async with Client(server.url, mode="2026-07-28") as client:
        result = await client.call_tool("athena_query", arguments)
    return bool(result.is_error), answer(result)


@pytest.mark.parametrize("arguments", [
    {"sql": "SELECT 1", "database": "sales", "catalog": "s3tablescatalogX"},
    {"sql": "SELECT * FROM daily_orders", "database": "sales", "catalog": "lambda:any-function"},
    {"sql": "SELECT * FROM daily_orders", "database": "sales", "catalog": "s3tablescatalog/a/b"},
    {"sql": 'SELECT * FROM "s3tablescatalogX".sales.daily_orders'},
    {"sql": 'SELECT * FROM "s3tablescatalog".sales.daily_orders'},
    {"sql": 'SELECT * FROM "lambda:s3tablescatalog/x".sales.daily_orders'},
    {"sql": "SELECT * FROM orders"},  # no database, an unqualified table
    {"sql": "SHOW TABLES"},
])
async def test_refused_with_no_aws_call(server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str],
                                        arguments: dict[str, Any]) -> None:
    failed, got = await _call(server, arguments)
    assert failed and got["error"] == "invalid_argument" and got["details"], got
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"


async def test_a_catalog_outside_the_default_is_refused_where_the_operator_narrows_it(
        demo: DemoAccount, demo_caller: DemoAccount, aws_calls: Counter[str]) -> None:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10,
                        query_catalogs=("AwsDataCatalog",))
    with ServerThread(settings) as running:
        failed, got = await _call(running, {"sql": "SELECT 1", "database": "sales", "catalog": BUCKET_CATALOG})
    assert failed and "AWS_DATA_MCP_QUERY_CATALOGS" in got["details"][0], got
    assert not aws_calls


async def test_the_catalog_is_the_query_context(server: ServerThread, demo_caller: DemoAccount,
                                                contexts: list[dict[str, Any]]) -> None:
    await _call(server, {"sql": "SELECT 1", "database": "sales", "catalog": BUCKET_CATALOG})
    await _call(server, {"sql": "SELECT 1", "database": "sales"})
    assert contexts == [{"Database": "sales", "Catalog": BUCKET_CATALOG},
                        {"Database": "sales", "Catalog": "AwsDataCatalog"}]


async def test_a_statement_naming_every_table_by_its_database_needs_no_database(
        server: ServerThread, demo_caller: DemoAccount, contexts: list[dict[str, Any]]) -> None:
    failed, got = await _call(server, {"sql": "SELECT count(*) AS n FROM sales.orders WHERE order_date = "
                                              "'2026-01-01'"})
    assert not failed and got["state"] == "SUCCEEDED", got
    assert contexts == [{"Catalog": "AwsDataCatalog"}]


async def test_each_argument_is_described_as_it_behaves(server: ServerThread, demo_caller: DemoAccount,
                                                        contexts: list[dict[str, Any]]) -> None:
    """Each argument the schema lists: its description, and what the tool does with the argument."""
    async with Client(server.url, mode="2026-07-28") as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "athena_query")
    schema = tool.input_schema
    properties = schema["properties"]
    described = {name: str(p.get("description") or "") for name, p in properties.items()}
    assert all(described.values()), [name for name, text in described.items() if not text]
    assert not schema.get("required"), "every argument is optional: sql or named_query_id, database where needed"
    # database: optional where every table is qualified, required otherwise and for SHOW / DESCRIBE
    assert "Optional for a SELECT" in described["database"] and "required otherwise" in described["database"]
    assert not (await _call(server, {"sql": "SELECT count(*) FROM sales.customers"}))[0]
    assert (await _call(server, {"sql": "SELECT count(*) FROM customers"}))[0]
    assert (await _call(server, {"sql": "SHOW TABLES IN sales"}))[0]
    # catalog: AwsDataCatalog unless given; an S3 table bucket's name as athena://catalogs lists it
    assert "AwsDataCatalog" in described["catalog"] and BUCKET_CATALOG in described["catalog"]
    assert "AWS_DATA_MCP_QUERY_CATALOGS" in described["catalog"]
    contexts.clear()
    await _call(server, {"sql": "SELECT 1", "database": "sales"})
    await _call(server, {"sql": "SELECT 1", "database": "sales", "catalog": BUCKET_CATALOG})
    assert [c["Catalog"] for c in contexts] == ["AwsDataCatalog", BUCKET_CATALOG]
    # sql and named_query_id: one of them, not both
    assert "read-only" in described["sql"]
    assert "instead of `sql`" in described["named_query_id"]
    failed, got = await _call(server, {"database": "sales"})
    assert failed and "needs sql" in got["message"]
    failed, got = await _call(server, {"sql": "SELECT 1", "named_query_id": "x"})
    assert failed and "not both" in got["message"]
    # max_rows caps the first answer; wait_seconds bounds the wait; estimate_only runs nothing
    failed, got = await _call(server, {"sql": "SELECT x FROM UNNEST(sequence(1, 5)) AS t(x)", "max_rows": 2})
    assert "At most this many rows" in described["max_rows"] and len(got["results"]["rows"]) == 2, got
    failed, got = await _call(server, {"sql": "/* demo:running_seconds=30 */ SELECT 1", "wait_seconds": 0})
    assert "link to read later" in described["wait_seconds"] and got["state"] in ("QUEUED", "RUNNING"), got
    failed, got = await _call(server, {"sql": "SELECT count(*) FROM sales.orders", "estimate_only": True})
    assert "without running it" in described["estimate_only"] and got["statement"] == "EXPLAIN", got
    # workgroup: omitted, the first usable one, and the answer says which
    failed, got = await _call(server, {"sql": "SELECT 1"})
    assert "the answer says which" in described["workgroup"] and got["workgroup"] == QUERY_WORKGROUPS[0], got
    # account: omitted, the home account (the answers above); a name config://server does not list is refused
    failed, got = await _call(server, {"sql": "SELECT 1", "account": "no-such-account"})
    assert "omit it for your home account" in described["account"] and failed, got
    assert set(described) == {"sql", "database", "catalog", "workgroup", "max_rows", "wait_seconds",
                              "estimate_only", "named_query_id", "account"}
