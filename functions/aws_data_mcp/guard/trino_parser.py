"""Trino's own grammar (`SqlBase.g4`, through ANTLR's parser) reading a statement as Athena does.

Why in the request path: the guard promises Athena reads what it accepts as one allowed statement.
Only Trino's grammar can say so. Any other parser is more lenient somewhere (`IS TRUE`, `a.b$c`). It
loads on the first query (about 0.5 s) and runs in the guard's thread, off the event loop. It files
each qualified name by what it names. It notes `WITH FUNCTION` and `WITH SESSION` for the guard.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

MAX_LOOKAHEAD = 100_000
"""The most tokens the parser may step through, look-ahead included (each token once when parsing, again for every
prediction that scans past it: a `(` at depth d is scanned by the d predictions around it). The whole corpus of
reads by others needs under 5,000; a 10,000-token text nested 24 deep about 100,000, a few tenths of a second of
CPU. A bound on work, not on time: the same text gets the same verdict on a busy machine as on an idle one."""

QUERY, EXPLAIN, METADATA, OTHER = "query", "explain", "metadata", "other"
METADATA_STATEMENTS = frozenset({
    "ShowTablesContext", "ShowSchemasContext", "ShowColumnsContext", "ShowCreateTableContext",
    "ShowCreateViewContext", "ShowFunctionsContext",
})
"""The metadata statements of Trino's grammar the guard may accept (DESCRIBE is `showColumns` to Trino)."""
_REFUSED_IDENTIFIERS = {
    "DigitIdentifierContext": "identifiers must not start with a digit; surround the identifier with double quotes",
    "BackQuotedIdentifierContext": "backquoted identifiers are not supported; use double quotes to quote identifiers",
}
"""Identifiers the grammar reads and Trino's parser then refuses, in the words of its AstBuilder."""
_RELATION_PARENTS = {"TableNameContext", "TableContext", "TableArgumentTableContext", "CopartitionTablesContext"}


@dataclass
class Names:
    """Every qualified name the grammar read, by what it names: lower-cased parts, quotes removed."""

    relations: list[tuple[str, ...]] = field(default_factory=list)
    """Tables read: in FROM and JOIN, `TABLE name`, a time-travel source, a table argument."""
    functions: list[tuple[str, ...]] = field(default_factory=list)
    table_functions: list[tuple[str, ...]] = field(default_factory=list)
    metadata: list[tuple[str, ...]] = field(default_factory=list)
    """The names SHOW and DESCRIBE read (a schema, a table, a catalog)."""
    scoped: list[str] = field(default_factory=list)
    """`WITH FUNCTION` or `WITH SESSION` before the query."""
    time_travel: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SyntaxProblem:
    """Where Trino's parser stopped: line and column from 1, the offset in the text, and ANTLR's message."""

    line: int
    column: int
    offset: int
    message: str

    def __str__(self) -> str:
        return f"{self.message} at line {self.line}, column {self.column}"


@dataclass
class Reading:
    text: str
    errors: list[SyntaxProblem]
    kind: str = OTHER
    statement: str = ""
    """The grammar's label of the statement (`ExplainContext`...), or of the statement an EXPLAIN explains."""
    names: Names = field(default_factory=Names)

    @property
    def parsed(self) -> bool:
        return not self.errors


class TooIntricate(ValueError):
    """The parser stepped through more than `MAX_LOOKAHEAD` tokens: refused rather than read on."""


class _Errors:
    """An ANTLR error listener that keeps the problems (ANTLR's default prints them)."""

    def __init__(self, text: str) -> None:
        self.problems: list[SyntaxProblem] = []
        self._lines = text.split("\n")

    def syntaxError(self, recognizer: Any, offending: Any, line: int, column: int, message: str,
                    error: Any) -> None:
        offset = sum(len(before) + 1 for before in self._lines[:line - 1]) + column
        self.problems.append(SyntaxProblem(line, column + 1, offset, message[:160]))

    def reportAmbiguity(self, *args: Any) -> None:
        pass

    def reportAttemptingFullContext(self, *args: Any) -> None:
        pass

    def reportContextSensitivity(self, *args: Any) -> None:
        pass


@cache
def _modules() -> tuple[Any, Any, Any, type]:
    antlr4 = importlib.import_module("antlr4")
    lexer = importlib.import_module(f"{__package__}.trino_sql.SqlBaseLexer").SqlBaseLexer
    parser = importlib.import_module(f"{__package__}.trino_sql.SqlBaseParser").SqlBaseParser

    class Bounded(antlr4.CommonTokenStream):
        """The lexer's tokens, counting every step the parser takes through them."""

        def __init__(self, source: Any) -> None:
            super().__init__(source)
            self.steps = 0

        def consume(self) -> None:
            self.steps += 1
            if self.steps > MAX_LOOKAHEAD:
                raise TooIntricate(f"more than {MAX_LOOKAHEAD:,} steps of look-ahead")
            super().consume()

    return antlr4, lexer, parser, Bounded


def read(text: str) -> Reading:
    """What Trino's parser reads in `text`, as one statement (`singleStatement`): SLL first, LL where SLL fails, as
    Trino's own SqlParser does. `TooIntricate` past `MAX_LOOKAHEAD`; RecursionError where the text nests deeper
    than Python's stack."""
    antlr4, lexer_class, parser_class, stream_class = _modules()
    errors = _Errors(text)
    tree = None
    for mode in ("SLL", "LL"):
        lexer = lexer_class(antlr4.InputStream(text))
        lexer.removeErrorListeners()
        lexer.addErrorListener(errors)
        parser = parser_class(stream_class(lexer))
        parser.removeErrorListeners()
        if mode == "SLL":
            parser._interp.predictionMode = antlr4.PredictionMode.SLL
            parser._errHandler = antlr4.BailErrorStrategy()
            try:
                tree = parser.singleStatement()
                break
            except antlr4.error.Errors.ParseCancellationException:
                errors.problems.clear()
                continue
        parser.addErrorListener(errors)
        parser._interp.predictionMode = antlr4.PredictionMode.LL
        tree = parser.singleStatement()
    reading = Reading(text, list(errors.problems))
    if reading.errors or tree is None:
        return reading
    statement = tree.statement()
    reading.kind, reading.statement = _kind(statement)
    _collect(statement, reading)
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
    names compare without case, as Athena's Glue catalog does)."""
    text = context.getText()
    if text[:1] in ('"', "`"):
        text = text[1:-1].replace(text[0] * 2, text[0])
    return text.lower()


def _parts(qualified: Any) -> tuple[str, ...]:
    return tuple(identifier(part) for part in qualified.identifier())


def _collect(root: Any, reading: Reading) -> None:
    """Every qualified name under `root`, filed by its parent rule (an explicit stack: no recursion limit); and the
    identifiers Trino's parser refuses after the grammar read them, as its AST builder does."""
    names, stack = reading.names, [root]
    while stack:
        node = stack.pop()
        label = type(node).__name__
        if label in _REFUSED_IDENTIFIERS:
            start = node.start
            reading.errors.append(SyntaxProblem(start.line, start.column + 1, start.start, _REFUSED_IDENTIFIERS[label]))
        elif label == "QualifiedNameContext":
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
