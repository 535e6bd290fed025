"""The read-only guard as a client meets it: through athena_query over HTTP against the demo account.

Every trick is refused with no AWS call at all (no GetWorkGroup, no StartQueryExecution), and every read written
awkwardly runs, Athena receiving the caller's own text unchanged (less a trailing `;`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.guard_corpus import ISSUE_STATEMENTS, NAMES, UNDOCUMENTED_FORMS, corpus
from support.queries import answer, query
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]

TRICKS = [
    # Comments that nest to one reader and not to Athena's (Trino's): a write after the first `*/`.
    "SHOW TABLES /* /* */ ; DROP TABLE orders -- */",
    "SELECT X'00 FF' /* /* */ ; DELETE FROM orders -- */",
    "SELECT 1 /* /* */ ; INSERT INTO orders SELECT * FROM orders -- */",
    "SELECT 1 /* /* */ ; UNLOAD (SELECT * FROM orders) TO 's3://elsewhere/' -- */",
    "SELECT 1 /* /* */ ; CREATE TABLE t2 AS SELECT * FROM orders -- */",
    "SELECT 1 /* /* */ ; ALTER TABLE orders SET LOCATION 's3://elsewhere/' -- */",
    "SELECT 1 /* /* */ ; EXPLAIN ANALYZE INSERT INTO orders SELECT * FROM orders -- */",
    "CREATE /* /* */ TABLE t2 AS SELECT 1 -- */",
    "DROP /* SELECT */ TABLE orders",
    "MSCK /* /* */ REPAIR TABLE orders -- */",
    "ALTER TABLE orders /* /* */ SET LOCATION 's3://elsewhere/' -- */",
    # SHOW and DESCRIBE read to their end.
    "SHOW STATS FOR (INSERT INTO orders SELECT * FROM orders)",
    "SHOW TABLES; DROP TABLE orders",
    "DESCRIBE orders; DELETE FROM orders",
    "SHOW CREATE TABLE orders /* x */",
    "SHOW TABLES LIKE 'a\\' DROP TABLE orders --'",
    # Sources outside the allowed catalogs.
    'SELECT * FROM "lambda:any-function".db.t',
    "SELECT * FROM TABLE(mysql.system.query(query => 'DELETE FROM x RETURNING *'))",
    "SELECT * FROM mysql.shop.orders",
    "USING EXTERNAL FUNCTION f(x int) RETURNS int LAMBDA 'any-function' SELECT f(1)",
    # Characters Athena does not read as its whitespace, and literals left open.
    "SELECT 1\u2028; DROP TABLE orders",
    "SELECT 1 -- comment\u2028DROP TABLE orders\n; DELETE FROM orders",
    "SELECT '1; DROP TABLE orders",
    "EXPLAIN ANALYZE DELETE FROM orders",
    "EXPLAIN (TYPE IO) UNLOAD (SELECT 1) TO 's3://elsewhere/'",
    # Functions named by their catalog, whatever suffix follows the call; forms Athena does not document.
    *ISSUE_STATEMENTS,
    *(text for text, _ in UNDOCUMENTED_FORMS),
]
TRINO_READS = [
    # Once refused, each a read Athena documents or Trino's grammar reads (tests/data/read_corpus).
    "EXPLAIN ANALYZE (FORMAT JSON) SELECT * FROM orders LIMIT 10",
    "SELECT json_exists('{\"a\": [1, 11]}', 'strict $.a[1]?(@ > 10)' UNKNOWN ON ERROR) AS above_ten",
    "SELECT json_query('[1]', 'lax $[*]' WITH ARRAY WRAPPER EMPTY ARRAY ON EMPTY) AS a, "
    "json_array(true, null ABSENT ON NULL RETURNING varchar(100)) AS b",
    "SELECT (CAST(ROW(1, true) AS ROW(field1 bigint, field2 boolean))).* AS (alias1, alias2)",
    "SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY order_id MEASURES LAST(U.order_id) AS top ONE ROW PER MATCH "
    "PATTERN (A B+ C+) SUBSET U = (B, C) DEFINE B AS order_id > PREV(order_id), C AS order_id > PREV(order_id))",
    "SELECT order_id, value OVER w FROM orders WINDOW w AS (ORDER BY order_id MEASURES RUNNING LAST(order_id) AS "
    "value ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING PATTERN (A B+) DEFINE B AS B.order_id > PREV(B.order_id))",
]
"""Reads that reach Athena (the demo's engine may answer that it lacks the form: the guard let them through)."""
NOT_TRINO = [
    # Texts sqlglot reads and Trino's grammar does not: refused as Athena would refuse them, before any AWS call.
    "SELECT * FROM sales.orders$snapshots",
    "SELECT (1 > 0) IS TRUE",
    "SELECT 3 BETWEEN ASYMMETRIC 2 AND 6",
    "SELECT overlay('Txxxxas' PLACING 'hom' FROM 2 FOR 4)",
    "SELECT 'Hello, World!'.length()",
    "SELECT * FROM (VALUES (1, 'a')) AS t(id, name) UNION CORRESPONDING SELECT * FROM (VALUES ('b', 2)) AS t(name, id)",
    "SELECT * FROM ${mutableTables.hive.datatype}",
]
CANNOT_CHECK_YET = [
    ("SELECT 1_000_000 AS n", "line 1, column 8"),
    ("SELECT " + "(" * 30 + "1" + ")" * 30, "line 1, column 32"),
]
"""Forms Trino's grammar reads that the guard cannot check yet: refused saying so, where, and what to write instead."""
GRAMMAR_VARIANTS = 120
"""How many of the grammar corpus's catalog-named calls (every suffix, every place) go through HTTP too."""

AWKWARD_READS = [
    "/* leading; DROP TABLE orders */ SELECT count(*) AS n FROM orders WHERE order_date = '2026-01-01' -- trailing",
    "SELECT '--' AS dashes, '/*' AS opener, 'it''s' AS quote, \"*/\" FROM (SELECT 1 AS \"*/\")",
    "SELECT order_date, row_number() OVER (PARTITION BY order_date ORDER BY order_id) AS n FROM orders "
    "WHERE order_date = '2026-01-01' LIMIT 3;",
    "SELECT x FROM UNNEST(ARRAY[1, 2, 3]) AS t(x)",
    "SELECT n, s FROM (VALUES (1, 'a'), (2, 'b')) AS t(n, s)",
    "SELECT 1 -- a comment that runs past U+2028\u2028 to the end of the line\n",
    "WITH d AS (SELECT order_date FROM orders WHERE order_date = '2026-01-02') SELECT count(*) FROM d ; ",
]


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with ServerThread(settings) as running:
        yield running


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The QueryString of every StartQueryExecution the server makes from now on: what Athena receives."""
    import botocore.client

    texts: list[str] = []
    original = botocore.client.BaseClient._make_api_call

    def recorded(self: Any, operation: str, params: Any) -> Any:
        if operation == "StartQueryExecution":
            texts.append(params["QueryString"])
        return original(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", recorded)
    return texts


@pytest.mark.parametrize("sql", TRICKS)
async def test_every_trick_is_refused_with_no_aws_call(server: ServerThread, demo_caller: DemoAccount,
                                                       aws_calls: Counter[str], sql: str) -> None:
    result = await query(server, "2026-07-28", sql=sql)
    got = answer(result)
    assert result.is_error and got["error"] == "invalid_argument", got
    assert got["details"], "a refusal says what to do instead"
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"


async def test_the_grammar_corpus_variants_are_refused_over_http_with_no_aws_call(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str]) -> None:
    variants = [text for text in corpus() if any(name in text for name in NAMES)]
    sample = variants[:len(variants) // 4:len(variants) // 4 // GRAMMAR_VARIANTS or 1][:GRAMMAR_VARIANTS]
    for sql in sample:
        got = answer(await query(server, "2026-07-28", sql=sql))
        assert got["error"] == "invalid_argument" and got["details"], (sql, got)
    assert len(sample) == GRAMMAR_VARIANTS
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"


@pytest.mark.parametrize("sql", AWKWARD_READS)
async def test_reads_written_awkwardly_run_and_athena_receives_the_callers_text(
        server: ServerThread, demo_caller: DemoAccount, started: list[str], sql: str) -> None:
    result = await query(server, "legacy", sql=sql)
    got = answer(result)
    assert not result.is_error, got
    assert started == [sql.strip(" \t\r\n").removesuffix(";").rstrip(" \t\r\n")]


async def test_a_catalog_the_operator_allows_is_read(demo: DemoAccount, demo_caller: DemoAccount,
                                                     started: list[str]) -> None:
    """The setting decides: with `mysql` allowed, its tables pass the guard and reach Athena (which, in the demo,
    has no such catalog and says so), and Glue's catalog, no longer listed, is refused."""
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10,
                        query_catalogs=("mysql",))
    with ServerThread(settings) as running:
        federated = answer(await query(running, "legacy", sql="SELECT * FROM mysql.shop.orders"))
        glue = answer(await query(running, "legacy", sql="SELECT * FROM awsdatacatalog.sales.orders"))
    assert started == ["SELECT * FROM mysql.shop.orders"], federated
    assert glue["error"] == "invalid_argument" and "AWS_DATA_MCP_QUERY_CATALOGS" in glue["details"][0]


@pytest.mark.parametrize("sql", TRINO_READS)
async def test_reads_the_guard_once_refused_reach_athena(server: ServerThread, demo_caller: DemoAccount,
                                                         started: list[str], sql: str) -> None:
    got = answer(await query(server, "legacy", sql=sql))
    assert started == [sql], got


@pytest.mark.parametrize("sql", NOT_TRINO)
async def test_what_trinos_grammar_does_not_read_is_refused_with_no_aws_call(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str], sql: str) -> None:
    got = answer(await query(server, "2026-07-28", sql=sql))
    assert got["error"] == "invalid_argument" and "does not parse as Athena (Trino) reads it" in got["message"], got
    assert "line 1, column" in got["message"] and got["details"]
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"


@pytest.mark.parametrize(("sql", "where"), CANNOT_CHECK_YET)
async def test_a_form_the_guard_cannot_check_yet_is_refused_saying_so(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str], sql: str, where: str) -> None:
    got = answer(await query(server, "2026-07-28", sql=sql))
    assert got["error"] == "invalid_argument" and "cannot check that form yet" in got["message"], got
    assert where in got["message"] and "does not parse" not in got["message"]
    assert got["details"][0].startswith("Write it another way for now.")
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"
