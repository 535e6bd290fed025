"""Trino's own grammar as an oracle: what Trino's parser reads in a text, to judge the query guard by.

`SqlBase.g4` is Trino's grammar file, unchanged (licence header kept): `core/trino-grammar/src/main/antlr4/io/trino/
grammar/sql/SqlBase.g4` of trinodb/trino at commit 0157c179f00350f8679258317e706524532e5a5b, the version the project's
code index holds (a Trino 47x grammar: newer than the Trino release Athena engine v3 forked from, and a superset of
its query syntax, e.g. `WITH FUNCTION`/`WITH SESSION`, which the guard refuses by name). Its `caseInsensitive`
option makes the lexer case-insensitive as Trino's own (older Trino wrapped the input in an upper-casing stream).

A Python parser is generated from it once per grammar version, by the ANTLR 4.13 tool jar that the npm package
`antlr4ng-cli` ships (pinned by `package-lock.json` here; `make test` installs it with `npm ci`, as the views' tools),
into `node_modules/.generated/<grammar hash>/`, and read by `antlr4-python3-runtime` (the dev extra). Test tooling
only: nothing of it is on the request path. To regenerate by hand:

    cd tests/support/trino_grammar && npm ci && java -jar node_modules/antlr4ng-cli/antlr4-*-complete.jar \\
        -Dlanguage=Python3 -no-listener -no-visitor -Xexact-output-dir -o /tmp/trino SqlBase.g4
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
GRAMMAR = HERE / "SqlBase.g4"
TOOL = HERE / "node_modules" / "antlr4ng-cli" / "antlr4-4.13.2-SNAPSHOT-complete.jar"

QUERY, EXPLAIN, METADATA, OTHER = "query", "explain", "metadata", "other"
METADATA_STATEMENTS = frozenset({
    "ShowTablesContext", "ShowSchemasContext", "ShowColumnsContext", "ShowCreateTableContext",
    "ShowCreateViewContext", "ShowFunctionsContext",
})
"""The metadata statements of Trino's grammar the guard may accept (DESCRIBE is `showColumns` to Trino)."""


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


@cache
def _modules() -> tuple[Any, Any, Any]:
    path = str(generated())
    if path not in sys.path:
        sys.path.insert(0, path)
    antlr4 = importlib.import_module("antlr4")
    return antlr4, importlib.import_module("SqlBaseLexer").SqlBaseLexer, importlib.import_module(
        "SqlBaseParser").SqlBaseParser


@dataclass
class Names:
    """Every qualified name Trino's parser read, by what it names: lower-cased parts, quotes removed."""

    relations: list[tuple[str, ...]] = field(default_factory=list)
    """Tables read: in FROM and JOIN, `TABLE name`, a time-travel source, a table argument."""
    functions: list[tuple[str, ...]] = field(default_factory=list)
    table_functions: list[tuple[str, ...]] = field(default_factory=list)
    metadata: list[tuple[str, ...]] = field(default_factory=list)
    """The names SHOW and DESCRIBE read (a schema, a table, a catalog)."""
    scoped: list[str] = field(default_factory=list)
    """`WITH FUNCTION` or `WITH SESSION` before the query."""
    time_travel: list[str] = field(default_factory=list)


@dataclass
class Reading:
    text: str
    errors: list[str]
    kind: str = OTHER
    statement: str = ""
    """The grammar's label of the statement (`ExplainContext`...), or of the statement an EXPLAIN explains."""
    names: Names = field(default_factory=Names)

    @property
    def parsed(self) -> bool:
        return not self.errors


class _Errors:
    """An ANTLR error listener that keeps the messages (ANTLR's default prints them)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def syntaxError(self, recognizer: Any, offending: Any, line: int, column: int, message: str,
                    error: Any) -> None:
        self.messages.append(f"{line}:{column} {message[:160]}")

    def reportAmbiguity(self, *args: Any) -> None:
        pass

    def reportAttemptingFullContext(self, *args: Any) -> None:
        pass

    def reportContextSensitivity(self, *args: Any) -> None:
        pass


def read(text: str) -> Reading:
    """What Trino's parser reads in `text`, as one statement (`singleStatement`): SLL first, LL where SLL fails, as
    Trino's own SqlParser does."""
    antlr4, lexer_class, parser_class = _modules()
    errors = _Errors()
    tree = None
    for mode in ("SLL", "LL"):
        lexer = lexer_class(antlr4.InputStream(text))
        lexer.removeErrorListeners()
        lexer.addErrorListener(errors)
        parser = parser_class(antlr4.CommonTokenStream(lexer))
        parser.removeErrorListeners()
        if mode == "SLL":
            parser._interp.predictionMode = antlr4.PredictionMode.SLL
            parser._errHandler = antlr4.BailErrorStrategy()
            try:
                tree = parser.singleStatement()
                break
            except antlr4.error.Errors.ParseCancellationException:
                errors.messages.clear()
                continue
        parser.addErrorListener(errors)
        parser._interp.predictionMode = antlr4.PredictionMode.LL
        tree = parser.singleStatement()
    reading = Reading(text, list(errors.messages))
    if reading.errors or tree is None:
        return reading
    statement = tree.statement()
    reading.kind, reading.statement = _kind(statement)
    _collect(statement, reading.names)
    return reading


def _kind(statement: Any) -> tuple[str, str]:
    label = type(statement).__name__
    if label in ("ExplainContext", "ExplainAnalyzeContext"):
        inner, inner_label = _kind(statement.statement())
        return (EXPLAIN if inner in (QUERY, METADATA) else OTHER), inner_label
    if label == "StatementDefaultContext":
        return QUERY, label
    if label in METADATA_STATEMENTS:
        return METADATA, label
    return OTHER, label


def identifier(context: Any) -> str:
    """An identifier's name as Trino resolves it: unquoted ones folded, quoted ones unescaped (lower-cased too:
    the guard compares names without case, as Athena's Glue catalog does)."""
    text = context.getText()
    if text[:1] in ('"', "`"):
        text = text[1:-1].replace(text[0] * 2, text[0])
    return text.lower()


def _parts(qualified: Any) -> tuple[str, ...]:
    return tuple(identifier(part) for part in qualified.identifier())


_RELATION_PARENTS = {"TableNameContext", "TableContext", "TableArgumentTableContext", "CopartitionTablesContext"}


def _collect(root: Any, names: Names) -> None:
    """Every qualified name under `root`, filed by its parent rule (an explicit stack: no recursion limit)."""
    stack = [root]
    while stack:
        node = stack.pop()
        label = type(node).__name__
        if label == "QualifiedNameContext":
            parent = type(node.parentCtx).__name__
            parts = _parts(node)
            if parent in _RELATION_PARENTS:
                names.relations.append(parts)
            elif parent == "FunctionCallContext":
                names.functions.append(parts)
            elif parent == "TableFunctionCallContext":
                names.table_functions.append(parts)
            elif parent.startswith(("Show", "Describe")):
                names.metadata.append(parts)
        elif label == "ShowSchemasContext" and node.identifier() is not None:
            names.metadata.append((identifier(node.identifier()),))
        elif label == "QueryScopedContext":
            names.scoped.append("WITH FUNCTION" if node.withFunction() is not None else "WITH SESSION")
        elif label == "QueryPeriodContext":
            names.time_travel.append(node.rangeType().getText().upper())
        stack.extend(reversed(list(node.getChildren() or [])) if hasattr(node, "getChildren") else [])


GLUE = "awsdatacatalog"
HIVE_ONLY = ("SHOW", "DESCRIBE")
"""The guard's kinds whose documented forms include Hive DDL that Trino's grammar does not know."""
READS: list[int] = [0]
"""How many texts the grammar read for the guard's differentials in this process (the closing note's count)."""


def assert_reads_alike(sql: str, kind: str, relations: tuple[str, ...]) -> Reading:
    """Trino's grammar reads `sql`, which the guard accepted as `kind` reading `relations`, as exactly one allowed
    statement whose every qualified name the guard saw and allowed."""
    READS[0] += 1
    reading = read(sql)
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
