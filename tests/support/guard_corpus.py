"""Texts the query guard must refuse, shared by its grammar differential and its end-to-end tests over HTTP: the
issue's statements, undocumented statement forms, and a corpus generated from the places Trino's grammar
(`SqlBase.g4`) lets an expression stand, each holding a function call named by its catalog with every call suffix."""

from __future__ import annotations

import itertools
import random

ISSUE_STATEMENTS = [
    "SELECT othercat.db.f(order_id) FILTER (WHERE true) FROM orders WHERE order_date = DATE '2026-01-03'",
    "SELECT system.builtin.count(*) FILTER (WHERE true) FROM orders WHERE order_date = DATE '2026-01-03'",
    "SELECT othercat.db.f(order_id) IGNORE NULLS OVER () FROM orders WHERE order_date = DATE '2026-01-03'",
    "SELECT othercat.db.f(x) RESPECT NULLS OVER () FROM (VALUES 1) v(x)",
    "SELECT othercat.db.f(x) WITHIN GROUP (ORDER BY x) FROM (VALUES 1) AS v(x)",
]

UNDOCUMENTED_FORMS = [
    ("SELECT * FROM orders FOR SYSTEM_TIME AS OF TIMESTAMP '2026-01-01 00:00:00'", "FOR SYSTEM_TIME AS OF"),
    ("SELECT * FROM orders FOR SYSTEM_VERSION AS OF 3", "FOR SYSTEM_VERSION AS OF"),
    ("SELECT * FROM orders FOR TIMESTAMP BETWEEN 1 AND 2", "FOR TIMESTAMP BETWEEN"),
    ("DESCRIBE INPUT p", "DESCRIBE INPUT"),
    ("DESCRIBE OUTPUT p", "DESCRIBE OUTPUT"),
    ("DESCRIBE DATABASE sales", "DESCRIBE DATABASE"),
    ("DESCRIBE SCHEMA sales", "DESCRIBE SCHEMA"),
    ("DESCRIBE FUNCTION abs", "DESCRIBE FUNCTION"),
    ("WITH FUNCTION f() RETURNS int LANGUAGE PYTHON RETURN 1 SELECT f()", "WITH FUNCTION"),
    ("WITH FUNCTION f(x int) RETURNS int RETURN x + 1 SELECT f(1)", "WITH FUNCTION"),
    ("WITH SESSION query_max_run_time = '1h' SELECT 1", "WITH SESSION"),
    ("EXPLAIN WITH FUNCTION f() RETURNS int RETURN 1 SELECT f()", "WITH FUNCTION"),
    ("SELECT x FROM orders LIMIT 1 OFFSET 0", "OFFSET after LIMIT"),
]


NAMES = ["othercat.db.f", '"othercat".db.f', 'othercat."db"."f"', "`othercat`.db.f", "system.builtin.count",
         "AwsDataCatalog.sales.f", "a.b.c.d", "othercat . db /* x */ . f", 'OTHERCAT."DB".F', "x.y.\"z\""]
CALLS = ["{n}(x)", "{n}(*)", "{n}(DISTINCT x)", "{n}(x ORDER BY y)", "{n}(x, y ORDER BY y DESC)", "RUNNING {n}(x)",
         "FINAL {n}(x)", "{n}(t.*)"]
SUFFIXES = ["", " FILTER (WHERE true)", " OVER ()", " OVER w", " IGNORE NULLS OVER ()",
            " RESPECT NULLS OVER (PARTITION BY x)", " FILTER (WHERE x > 1) OVER (ORDER BY x)",
            " WITHIN GROUP (ORDER BY x)", " OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"]
PLACES = [
    "SELECT {e} FROM orders",
    "SELECT x, {e} AS y FROM orders WHERE order_date = DATE '2026-01-03'",
    "SELECT x FROM orders WHERE {e} > 1",
    "SELECT x FROM orders GROUP BY x HAVING {e} > 1",
    "SELECT x FROM orders ORDER BY {e}",
    "SELECT x FROM orders GROUP BY {e}",
    "SELECT sum(x) OVER (PARTITION BY {e}) FROM orders",
    "SELECT sum(x) OVER (ORDER BY {e}) FROM orders",
    "SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY x MEASURES {e} AS m PATTERN (A) DEFINE A AS true)",
    "SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY x PATTERN (A) DEFINE A AS {e} > 0)",
    "SELECT * FROM (SELECT {e} AS y FROM orders) s",
    "SELECT (SELECT {e} FROM orders) AS y",
    "SELECT x FROM orders WHERE x IN (SELECT {e} FROM orders)",
    "SELECT x FROM orders WHERE EXISTS (SELECT {e} FROM orders)",
    "SELECT transform(ARRAY[1], v -> {e}) FROM orders",
    "SELECT CASE WHEN {e} > 0 THEN 1 ELSE {e} END FROM orders",
    "SELECT CAST({e} AS varchar) FROM orders",
    "SELECT * FROM orders o JOIN customers c ON {e} = c.id",
    "VALUES ({e})",
    "SELECT abs({e}) + 1, -{e}, ROW({e}), ARRAY[{e}] FROM orders",
    "EXPLAIN ANALYZE SELECT {e} FROM orders",
    "EXPLAIN (TYPE IO) SELECT {e} FROM orders",
    "EXPLAIN SELECT x FROM orders WHERE {e} BETWEEN 1 AND 2",
    "WITH d AS (SELECT {e} AS y FROM orders) SELECT * FROM d",
    "SELECT 1 UNION ALL SELECT {e} FROM orders",
    "SELECT x FROM orders WINDOW w AS (PARTITION BY {e})",
    "SELECT * FROM UNNEST(ARRAY[{e}]) AS u(v)",
    "SELECT x FROM orders ORDER BY x OFFSET 1 LIMIT 2",
]
"""Where an expression may stand in Trino's grammar (`expression`): select items, WHERE, HAVING, ORDER BY, GROUP BY,
window specifications and definitions, MATCH_RECOGNIZE's MEASURES and DEFINE, subqueries of every kind, lambdas,
CASE, CAST, join criteria, VALUES, arithmetic, ROW and ARRAY constructors, UNNEST, and under EXPLAIN [ANALYZE]."""

SEED, SAMPLE = 30, 1_200


def corpus() -> list[str]:
    """Every (suffix, place) pair once with a drawn name and call form, then a seeded sample of the whole product,
    then the same shapes under a schema-qualified name (`sales.f`), which Trino calls in the session's catalog and
    the guard lets through: so the grammar is asked about texts the guard accepts too."""
    draw = random.Random(SEED)
    texts = []
    for suffix, place in itertools.product(SUFFIXES, PLACES):
        call = draw.choice(CALLS).format(n=draw.choice(NAMES)) + suffix
        texts.append(place.replace("{e}", call))
    product = list(itertools.product(NAMES, CALLS, SUFFIXES, PLACES))
    for name, call, suffix, place in draw.sample(product, SAMPLE):
        texts.append(place.replace("{e}", call.format(n=name) + suffix))
    for suffix, place in itertools.product(SUFFIXES, PLACES):
        texts.append(place.replace("{e}", f"sales.f(x){suffix}").replace("FINAL ", ""))
    return texts


