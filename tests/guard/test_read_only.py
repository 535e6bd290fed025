"""The query tool's read-only decision, over a corpus of reads and of writes dressed up as reads."""

from __future__ import annotations

import pytest

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.guard.read_only import MAX_SQL_BYTES, read_only_statement

READS: list[tuple[str, str]] = [
    ("SELECT 1", "SELECT"),
    ("select * from orders limit 10", "SELECT"),
    ('SELECT "order id", amount FROM "sales"."orders" WHERE order_date = DATE \'2024-01-01\'', "SELECT"),
    ("WITH recent AS (SELECT * FROM orders WHERE amount > 10) SELECT count(*) FROM recent", "SELECT"),
    ("WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM b", "SELECT"),
    ("SELECT 1 UNION ALL SELECT 2", "SELECT"),
    ("(SELECT 1) INTERSECT (SELECT 1)", "SELECT"),
    ("SELECT a FROM t EXCEPT SELECT a FROM u", "SELECT"),
    ("VALUES (1, 'a'), (2, 'b')", "VALUES"),
    ("SHOW TABLES", "SHOW"),
    ("SHOW TABLES IN sales", "SHOW"),
    ("SHOW DATABASES", "SHOW"),
    ("SHOW PARTITIONS sales.orders", "SHOW"),
    ("SHOW CREATE TABLE sales.orders", "SHOW"),
    ("SHOW COLUMNS IN sales.orders", "SHOW"),
    ("DESCRIBE sales.orders", "DESCRIBE"),
    ("EXPLAIN SELECT * FROM orders", "EXPLAIN"),
    ("EXPLAIN ANALYZE SELECT count(*) FROM orders", "EXPLAIN"),
    ("EXPLAIN (TYPE IO, FORMAT JSON) SELECT * FROM orders", "EXPLAIN"),
    ("SELECT 1;", "SELECT"),
    ("  SELECT 1 ;  ", "SELECT"),
    ("SELECT 1 ; ;", "SELECT"),
    ("/* a comment; DROP TABLE t */ SELECT 1 -- DELETE FROM t", "SELECT"),
    ("SELECT 'INSERT INTO t VALUES (1); DROP TABLE t' AS s", "SELECT"),
    ("SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t(x)", "SELECT"),
    ("SELECT approx_percentile(amount, 0.5) FROM orders", "SELECT"),
    ("SELECT x FROM t TABLESAMPLE BERNOULLI (10)", "SELECT"),
    ("SELECT '日本語', 'émoji 🎉' AS \"列\"", "SELECT"),
    ("SeLeCt CoUnT(*) FrOm orders", "SELECT"),
    ("SELECT * FROM orders ORDER BY amount DESC OFFSET 5 LIMIT 10", "SELECT"),
    ("SELECT * FROM (SELECT * FROM (SELECT 1 AS x)) WHERE x IN (SELECT 1)", "SELECT"),
]

WRITES: list[tuple[str, str]] = [
    ("INSERT INTO t SELECT 1", "INSERT"),
    ("insert into t values (1)", "INSERT"),
    ("CREATE TABLE t AS SELECT * FROM orders", "CREATE TABLE AS SELECT"),
    ("CREATE TABLE t (a int) LOCATION 's3://bucket/t/'", "CREATE TABLE"),
    ("CREATE EXTERNAL TABLE t (a int) LOCATION 's3://bucket/t/'", "CREATE"),
    ("CREATE VIEW v AS SELECT 1", "CREATE VIEW"),
    ("CREATE DATABASE d", "CREATE"),
    ("UNLOAD (SELECT * FROM orders) TO 's3://bucket/out/' WITH (format = 'PARQUET')", "UNLOAD"),
    ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "MERGE"),
    ("UPDATE t SET a = 1", "UPDATE"),
    ("DELETE FROM t WHERE a = 1", "DELETE"),
    ("DROP TABLE t", "DROP"),
    ("DROP DATABASE sales CASCADE", "DROP"),
    ("ALTER TABLE t ADD COLUMNS (b int)", "ALTER"),
    ("ALTER TABLE t ADD PARTITION (dt = '2024-01-01')", "ALTER"),
    ("MSCK REPAIR TABLE t", "MSCK REPAIR"),
    ("CALL system.sync_partition_metadata('sales', 'orders', 'FULL')", "CALL"),
    ("PREPARE q FROM SELECT * FROM orders WHERE a = ?", "PREPARE"),
    ("EXECUTE q USING 1", "EXECUTE"),
    ("DEALLOCATE PREPARE q", "DEALLOCATE PREPARE"),
    ("GRANT SELECT ON t TO alice", "GRANT"),
    ("VACUUM t", "VACUUM"),
    ("OPTIMIZE t REWRITE DATA USING BIN_PACK", "OPTIMIZE"),
    ("USE sales", "USE"),
    ("SET SESSION query_max_run_time = '1h'", "SET"),
    ("START TRANSACTION", "START TRANSACTION"),
    ("COMMIT", "COMMIT"),
    ("REFRESH MATERIALIZED VIEW v", "REFRESH"),
    ("WITH x AS (INSERT INTO t SELECT 1) SELECT * FROM x", "INSERT"),
    ("with x as (delete from t) select 1", "DELETE"),
    ("SELECT 1 INTO new_table", "SELECT ... INTO"),
    ("SELECT 1; DROP TABLE t", "2 statements"),
    ("SELECT 1;\nINSERT INTO t VALUES (1)", "2 statements"),
    ("SHOW TABLES; DELETE FROM t", "2 statements"),
    ("SELECT 1; SELECT 2", "2 statements"),
    ("EXPLAIN ANALYZE INSERT INTO t SELECT 1", "EXPLAIN"),
    ("EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1", "EXPLAIN"),
    ("EXPLAIN (TYPE DISTRIBUTED) DELETE FROM t", "EXPLAIN"),
    ("/* SELECT */ DROP TABLE t", "DROP"),
    ("-- SELECT 1\nDELETE FROM t", "DELETE"),
    ("\uff29\uff2e\uff33\uff25\uff32\uff34 INTO t VALUES (1)", "does not parse"),  # fullwidth INSERT
    ("SELECT 1;\u200bDROP TABLE t", "does not parse"),
    ("SELEC * FROM orders", "does not parse"),
    ("SELECT * FROM (DELETE FROM t)", "does not parse"),
]


@pytest.mark.parametrize(("sql", "kind"), READS)
def test_every_read_is_allowed_as_written(sql: str, kind: str) -> None:
    statement = read_only_statement(sql)
    assert statement.kind == kind
    assert statement.sql == sql.strip().rstrip("; ")  # the caller's text, never a rendering of it


@pytest.mark.parametrize(("sql", "named"), WRITES)
def test_every_write_is_refused_naming_what(sql: str, named: str) -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement(sql)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT
    assert named in refused.value.message
    assert refused.value.details  # and what to do instead


def test_the_corpus_is_large_enough() -> None:
    assert len(READS) + len(WRITES) >= 40


def test_a_statement_that_does_not_parse_says_where() -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement("SELECT a,\n  FROM orders WHERE")
    assert "line 2" in refused.value.message or "line 1" in refused.value.message
    assert "column" in refused.value.message


@pytest.mark.parametrize("sql", ["", "   ", "\n\t", None, 42, ["SELECT 1"], ";", "-- only a comment"])
def test_empty_or_not_text(sql: object) -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement(sql)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT


def test_sql_over_athenas_limit_is_refused_before_parsing() -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement("SELECT 1 -- " + "x" * MAX_SQL_BYTES)
    assert "262,144" in refused.value.message
    assert len(refused.value.message) < 200


def test_explain_type_io_of_a_select_is_an_estimate() -> None:
    assert read_only_statement("EXPLAIN (TYPE IO) SELECT * FROM orders").estimate
    assert read_only_statement("explain (format json, type io) select 1").estimate
    assert not read_only_statement("EXPLAIN SELECT * FROM orders").estimate


# --------------------------------------------------------------------------- read as Trino reads it

METADATA_READS = [
    "SHOW TABLES IN sales LIKE 'ord*'", "SHOW TABLES IN sales 'ord*'", "SHOW SCHEMAS", "SHOW DATABASES LIKE 's.*'",
    "SHOW VIEWS IN sales", "SHOW COLUMNS FROM orders IN sales", "SHOW CREATE VIEW sales.v",
    "SHOW TBLPROPERTIES sales.orders ('classification')", "SHOW FUNCTIONS LIKE 'date%'",
    "DESCRIBE FORMATTED sales.orders PARTITION (order_date = '2026-01-01') total_amount",
    "DESC `sales`.`orders`", "SHOW TABLES IN AwsDataCatalog.sales", "-- what is there\nSHOW TABLES",
]

MISREAD_TRICKS = [
    ("SELECT 1 /* /* */ ; DROP TABLE t -- */", "another '/*'"),
    ("SHOW TABLES /* x */", "block comment"),
    ("SHOW TABLES LIKE 'a\\'", "backslash"),
    ("SHOW STATS FOR (INSERT INTO t SELECT 1)", "SHOW STATS"),
    ("SHOW TABLES IN sales LIKE 'x' EXTRA", "unexpected text"),
    ("DESCRIBE", "expected a name"),
    ("SELECT 1\u2028", "U+2028"),
    ("SELECT 1\x0c", "U+000C"),
    ("SELECT 'open", "Unterminated string"),
    ('SELECT "open', "Unterminated quoted identifier"),
    ("SELECT 1 /* open", "Unterminated block comment"),
    ("SELECT X'0G'", "hexadecimal"),
    ("SELECT X'00 FF'", "binary literal with spaces"),
    ("SELECT 1abc", "reads two ways"),
    ("SELECT é FROM t", "U+00E9"),
    ('SELECT * FROM "lambda:f".db.t', "'lambda:f'"),
    ("SELECT * FROM mysql.db.t", "'mysql'"),
    ("SHOW TABLES IN mysql.db", "'mysql'"),
    ("SELECT * FROM TABLE(system.query(query => 'x'))", "table function"),
    ("SELECT cat.sch.fn(1)", "function named by its catalog"),
    ("USING EXTERNAL FUNCTION f(x int) RETURNS int LAMBDA 'fn' SELECT f(1)", "USING EXTERNAL FUNCTION"),
    ("EXPLAIN (TYPE IO,) SELECT 1", "EXPLAIN's options"),
    ("EXPLAIN EXPLAIN SELECT 1", "EXPLAIN of an EXPLAIN"),
    ("EXPLAIN", "EXPLAIN of nothing"),
    ("TABLE orders", "TABLE is not a read"),
]


@pytest.mark.parametrize("sql", METADATA_READS)
def test_documented_metadata_forms_are_read_to_their_end(sql: str) -> None:
    assert read_only_statement(sql).kind in ("SHOW", "DESCRIBE")


@pytest.mark.parametrize(("sql", "named"), MISREAD_TRICKS)
def test_what_athena_would_read_otherwise_is_refused_saying_why(sql: str, named: str) -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement(sql)
    assert named in refused.value.message, refused.value.message
    assert refused.value.details


def test_a_refusal_says_the_line_and_column_of_what_it_could_not_read() -> None:
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement("SELECT 1\n  /* a /* b */ FROM t")
    assert "line 2, column 8" in refused.value.message


def test_the_catalogs_the_operator_allows_decide_and_case_does_not_matter() -> None:
    assert read_only_statement("SELECT * FROM AWSDATACATALOG.sales.orders").kind == "SELECT"
    assert read_only_statement('SELECT * FROM "lambda:f".db.t', catalogs=("lambda:f",)).kind == "SELECT"
    assert read_only_statement("DESCRIBE MySQL.db.t", catalogs=("mysql", "AwsDataCatalog")).kind == "DESCRIBE"
    with pytest.raises(ResourceFailure) as refused:
        read_only_statement("SELECT * FROM awsdatacatalog.sales.orders", catalogs=("mysql",))
    assert "AWS_DATA_MCP_QUERY_CATALOGS" in refused.value.details[0]


def test_a_text_ending_in_a_comment_after_its_semicolon_is_sent_without_them() -> None:
    assert read_only_statement("SELECT 1; -- done\n").sql == "SELECT 1"
    assert read_only_statement("-- why\nSELECT 1 /* c */ ;").sql == "-- why\nSELECT 1 /* c */"


def test_deep_nesting_is_refused_not_a_crash() -> None:
    with pytest.raises(ResourceFailure):
        read_only_statement("SELECT " + "(" * 5000 + "1" + ")" * 5000)
