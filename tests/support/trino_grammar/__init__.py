"""Trino's own grammar as an oracle: what Trino's parser reads in a text, to judge the query guard by.

`SqlBase.g4` is Trino's grammar file, unchanged (licence header kept): `core/trino-grammar/src/main/antlr4/io/trino/
grammar/sql/SqlBase.g4` of trinodb/trino at commit 0157c179f00350f8679258317e706524532e5a5b, the version the project's
code index holds (a Trino 47x grammar: newer than the Trino release Athena engine v3 forked from, and a superset of
its query syntax, e.g. `WITH FUNCTION`/`WITH SESSION`, which the guard refuses by name). Its `caseInsensitive`
option makes the lexer case-insensitive as Trino's own (older Trino wrapped the input in an upper-casing stream).

The guard reads every query by the Python parser ANTLR generates from it, shipped in the package
(`functions/aws_data_mcp/guard/trino_sql/`, read by `antlr4-python3-runtime`): `make grammar` writes it
again, and the tests generate it afresh here (the ANTLR 4.13 tool jar that the npm package `antlr4ng-cli` ships,
pinned by `package-lock.json`; `make test` installs it with `npm ci`) into `node_modules/.generated/<grammar hash>/`
to check the shipped copy is exactly what this grammar generates. The differentials judge the guard by the same
reading (`read`, re-exported): what the guard accepts, Trino's grammar reads as one allowed statement.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from aws_data_mcp.guard.trino_parser import EXPLAIN, METADATA, QUERY, Reading, read

__all__ = ["EXPLAIN", "METADATA", "QUERY", "Reading", "assert_reads_alike", "generated", "read"]

HERE = Path(__file__).parent
GRAMMAR = HERE / "SqlBase.g4"
TOOL = HERE / "node_modules" / "antlr4ng-cli" / "antlr4-4.13.2-SNAPSHOT-complete.jar"


def generated() -> Path:
    """The directory holding the parser generated from `SqlBase.g4`: generated on first use (about 10 s), then
    reused while the grammar is unchanged. Concurrent test workers race harmlessly: each renames its own."""
    digest = hashlib.sha256(GRAMMAR.read_bytes()).hexdigest()[:16]
    target = HERE / "node_modules" / ".generated" / digest
    if (target / "SqlBaseParser.py").exists():
        return target
    if not TOOL.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent))
    shutil.copy(GRAMMAR, scratch / GRAMMAR.name)
    subprocess.run(["java", "-jar", str(TOOL), "-Dlanguage=Python3", "-no-listener", "-no-visitor",
                    "-Xexact-output-dir", "-o", str(scratch), str(scratch / GRAMMAR.name)],
                   check=True, capture_output=True)
    try:
        os.replace(scratch, target)
    except OSError:  # another worker's is there already
        shutil.rmtree(scratch, ignore_errors=True)
    return target


GLUE = "awsdatacatalog"
HIVE_ONLY = ("SHOW", "DESCRIBE")
"""The guard's kinds whose documented forms include Hive DDL that Trino's grammar does not know."""
ATHENA_EXPLAIN = re.compile(r"\s*EXPLAIN\s+ANALYZE(?:\s+VERBOSE)?\s*\(\s*FORMAT\s+(?:TEXT|JSON)\s*\)", re.IGNORECASE)
"""Athena's own EXPLAIN ANALYZE (FORMAT TEXT|JSON), which Trino's grammar lacks: the statement it explains is read."""
READS: list[int] = [0]
"""How many texts the grammar read for the guard's differentials in this process (the closing note's count)."""


def assert_reads_alike(sql: str, kind: str, relations: tuple[str, ...]) -> Reading:
    """Trino's grammar reads `sql`, which the guard accepted as `kind` reading `relations`, as exactly one allowed
    statement whose every qualified name the guard saw and allowed."""
    READS[0] += 1
    extension = ATHENA_EXPLAIN.match(sql)
    reading = read(sql[extension.end():] if extension else sql)
    if kind in HIVE_ONLY and not reading.parsed:
        return reading
    assert reading.parsed, f"the guard accepted {sql!r}, which Trino's grammar does not parse: {reading.errors}"
    assert reading.kind in (QUERY, METADATA, EXPLAIN), (sql, reading.statement)
    names = reading.names
    assert not names.scoped, (sql, names.scoped)
    assert not names.table_functions, (sql, names.table_functions)
    catalogued = [name for name in names.functions if len(name) >= 3]
    assert not catalogued, f"the guard accepted {sql!r}, calling {catalogued}"
    seen = set(relations)
    for relation in names.relations:
        assert ".".join(relation) in seen, f"the guard did not see {relation} in {sql!r} (saw {seen})"
        assert len(relation) < 3 or relation[0] == GLUE, (sql, relation)
    for named in names.metadata:
        assert len(named) < 3 or named[0] == GLUE, (sql, named)
    if reading.statement == "ShowSchemasContext":
        assert all(name[0] == GLUE for name in names.metadata), (sql, names.metadata)
    return reading
