"""The query tool's read-only guard judged by Trino's own grammar (`SqlBase.g4`, parsed by ANTLR).

For every text the guard accepts, Trino's parser must read exactly one statement of an allowed kind (a query, a
metadata read, an EXPLAIN of one of these; no `WITH FUNCTION`/`WITH SESSION`), and every qualified name in it must be
one the guard saw and allowed: the tables it reads (FROM, JOIN, `TABLE t`, time-travel sources) among the guard's,
in an allowed catalog; no function named by its catalog; no table function; SHOW and DESCRIBE naming no other
catalog. SHOW and DESCRIBE forms that only Athena's Hive DDL engine knows (SHOW PARTITIONS, DESCRIBE t col...) are
not Trino's to read: there only the names Trino does read are compared.

Fed with the hand tricks of the differential and end-to-end tests, and a corpus generated from the grammar's own
rules: every function-call suffix Trino allows in every place an expression may stand. The hostile and benign fuzz of
`test_athena_guard_differential` asks the grammar too (its `assert_agrees`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.guard import trino_parser
from aws_data_mcp.guard.read_only import ReadOnlyStatement, read_only_statement
from support import trino_grammar
from support.guard_corpus import ISSUE_STATEMENTS, NAMES, SAMPLE, UNDOCUMENTED_FORMS, corpus
from support.trino_grammar import QUERY


def grammar_agrees(answer: ReadOnlyStatement) -> trino_grammar.Reading:
    return trino_grammar.assert_reads_alike(answer.sql, answer.kind, answer.relations)


def guarded(text: str) -> ReadOnlyStatement | ResourceFailure:
    try:
        answer = read_only_statement(text)
    except ResourceFailure as refusal:
        return refusal
    grammar_agrees(answer)
    return answer


# ------------------------------------------------------------------------------------------ the oracle itself

def test_the_grammar_reads_the_issues_statements_as_calls_named_by_their_catalog() -> None:
    for text in ISSUE_STATEMENTS:
        reading = trino_grammar.read(text)
        if "WITHIN GROUP" in text:  # Trino allows WITHIN GROUP after listagg only: a syntax error elsewhere
            assert not reading.parsed
            continue
        assert reading.parsed and reading.kind == QUERY, (text, reading.errors)
        assert any(len(name) == 3 for name in reading.names.functions), reading.names


@pytest.mark.parametrize(("text", "what", "names"), [
    ("SELECT * FROM a.b.c JOIN d ON true", "relations", [("a", "b", "c"), ("d",)]),
    ('SELECT * FROM "Cat"."DB".t FOR VERSION AS OF 1', "relations", [("cat", "db", "t")]),
    ("TABLE x.y.z", "relations", [("x", "y", "z")]),
    ("SELECT * FROM TABLE(sys.q(query => 'x'))", "table_functions", [("sys", "q")]),
    ("SELECT x.y.f(1) OVER () FROM t", "functions", [("x", "y", "f")]),
    ("SHOW TABLES IN c.s", "metadata", [("c", "s")]),
    ("WITH SESSION a = 1 SELECT 1", "scoped", ["WITH SESSION"]),
])
def test_the_grammar_files_each_name_by_what_it_names(text: str, what: str, names: list[object]) -> None:
    reading = trino_grammar.read(text)
    assert reading.parsed, reading.errors
    assert getattr(reading.names, what) == names


def test_the_grammar_refuses_what_trino_refuses() -> None:
    for text in ("SELECT", "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2026-01-01 00:00:00'",
                 "SELECT 1; SELECT 2", "SELECT 1 \u2028"):
        assert not trino_grammar.read(text).parsed, text


# ------------------------------------------------------------------------------------------ the issue and forms

@pytest.mark.parametrize("text", ISSUE_STATEMENTS)
def test_the_issues_statements_are_refused(text: str) -> None:
    answer = guarded(text)
    assert isinstance(answer, ResourceFailure) and "function named by its catalog" in answer.message, answer


@pytest.mark.parametrize(("text", "named"), UNDOCUMENTED_FORMS)
def test_undocumented_forms_are_refused_by_name(text: str, named: str) -> None:
    answer = guarded(text)
    assert isinstance(answer, ResourceFailure) and named in answer.message, answer
    assert answer.details, "a refusal says what to do instead"


@pytest.mark.parametrize("text", [
    "WITH function AS (SELECT 1 AS x) SELECT * FROM function",
    "SELECT * FROM orders FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00'",
    "SELECT * FROM orders FOR VERSION AS OF 3",
    "SELECT substring('abc' FROM 1 FOR 2), db.f(x) FROM orders",
    "DESCRIBE input",
    "DESCRIBE VIEW sales.recent",
    "SELECT count(*) FILTER (WHERE x > 1) OVER (PARTITION BY y) FROM t",
    "SELECT listagg(x, ',') WITHIN GROUP (ORDER BY x) FROM t",
    "SELECT lag(x) IGNORE NULLS OVER (ORDER BY y) FROM t",
])
def test_the_documented_neighbours_of_those_forms_still_pass(text: str) -> None:
    assert isinstance(guarded(text), ReadOnlyStatement)


# ------------------------------------------------------------------------------------------ the grammar's corpus

def test_the_grammars_corpus_every_catalog_named_call_is_refused_and_what_passes_trino_reads_alike() -> None:
    accepted, refused = 0, 0
    for text in corpus():
        answer = guarded(text)
        catalogued = any(name in text for name in NAMES)
        if catalogued:
            assert isinstance(answer, ResourceFailure), f"accepted {text!r}"
            refused += 1
        else:
            accepted += isinstance(answer, ReadOnlyStatement)
    assert refused > SAMPLE and accepted > 100, (refused, accepted)  # the corpus bites both ways


def test_the_hand_tricks_of_the_end_to_end_tests_agree_with_the_grammar() -> None:
    from guard.test_end_to_end import AWKWARD_READS, TRICKS

    for text in TRICKS:
        assert isinstance(guarded(text), ResourceFailure), text
    for text in AWKWARD_READS:
        assert isinstance(guarded(text), ReadOnlyStatement), text


# ------------------------------------------------------------------------------------------ the shipped parser

def test_the_shipped_parser_is_what_trinos_grammar_generates() -> None:
    """The guard's parser (generated code in the package) is exactly what ANTLR generates from `SqlBase.g4` now,
    but for the first line, which names the grammar's path: `make grammar` writes it again."""
    shipped = Path(trino_parser.__file__).parent / "trino_sql"
    fresh = trino_grammar.generated()
    for name in ("SqlBaseLexer.py", "SqlBaseParser.py"):
        ours, theirs = (path.read_text(encoding="utf-8").split("\n", 1) for path in (shipped / name, fresh / name))
        assert ours[1] == theirs[1], f"{name} differs from what SqlBase.g4 generates: run make grammar"
