"""The guard on 1,388 read statements written by others (tests/data/read_corpus, SOURCES.md names each source): TPC-H
and TPC-DS in Trino's dialect, the examples of Trino's and Athena's documentation, public Athena queries over
CloudTrail, ALB, VPC flow, WAF and Security Lake logs.

Every statement is accepted, except those `refused.toml` names, each with the reason its refusal is right (another
catalog, a table function, syntax Athena lacks, a typo of the source). A statement added to the corpus later is
accepted or named there. Every accepted one is read alike by Trino's grammar (`assert_reads_alike`), apart from the
Hive-style SHOW and DESCRIBE forms Athena runs in its DDL engine.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.guard.read_only import read_only_statement
from support import trino_grammar

CORPUS = Path(__file__).parents[1] / "data" / "read_corpus"
SEPARATOR = re.compile(r"^-- @@ (\d+) .*$", re.MULTILINE)


@cache
def statements() -> dict[str, str]:
    """Every statement by its name, `<file>#<index>`: the text after its `-- @@` line up to the next one."""
    found: dict[str, str] = {}
    for path in sorted(CORPUS.glob("*.sql")):
        pieces = SEPARATOR.split(path.read_text(encoding="utf-8"))
        for index, text in zip(pieces[1::2], pieces[2::2], strict=True):
            found[f"{path.stem}#{index}"] = text.strip("\n").rstrip()
    return found


def rightly_refused() -> dict[str, str]:
    return tomllib.loads((CORPUS / "refused.toml").read_text(encoding="utf-8"))


def test_the_corpus_is_whole() -> None:
    texts = statements()
    assert len(texts) == 1_388 and all(texts.values())
    assert set(rightly_refused()) <= set(texts), set(rightly_refused()) - set(texts)
    assert all(len(reason) > 20 for reason in rightly_refused().values())


def test_every_read_is_accepted_and_every_refusal_is_named_with_its_reason() -> None:
    named = rightly_refused()
    falsely_refused: dict[str, str] = {}
    wrongly_accepted: list[str] = []
    for name, text in statements().items():
        try:
            answer = read_only_statement(text)
        except ResourceFailure as refusal:
            if name not in named:
                falsely_refused[name] = refusal.message
            continue
        if name in named:
            wrongly_accepted.append(name)
        trino_grammar.assert_reads_alike(answer.sql, answer.kind, answer.relations)
    assert falsely_refused == {}, "refused, not named in refused.toml"
    assert wrongly_accepted == [], "named in refused.toml, accepted"
    assert len(named) == 159  # of 1,388: 1,229 accepted


def test_no_refusal_of_sql_trino_reads_says_it_does_not_parse() -> None:
    """A refusal of a text Trino's grammar reads names what the guard refuses, or says this tool cannot check the
    form yet: never that the SQL does not parse."""
    for name in rightly_refused():
        text = statements()[name]
        if not trino_grammar.read(text).parsed:
            continue
        try:
            read_only_statement(text)
        except ResourceFailure as refusal:
            assert "does not parse" not in refusal.message, (name, refusal.message)
