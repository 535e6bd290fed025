"""Which SQL the query tool runs: one read-only statement, read exactly as Athena (Trino) reads it.

Each step refuses before any AWS call. Trino's lexer rules split the text (`trino_lexer`). It holds
one statement, whose first token decides its kind. sqlglot's tree is built from the same tokens
(docs/queries.md). Athena gets the caller's own text, less a trailing `;`. The guard never rewrites.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.trino import Trino
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token as SqlglotToken
from sqlglot.tokens import TokenType

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.guard import trino_parser
from aws_data_mcp.guard.catalog_patterns import DEFAULT_CATALOGS, catalog_allowed
from aws_data_mcp.guard.metadata_statements import NotAMetadataRead, metadata_read
from aws_data_mcp.guard.token_shapes import Refusal, refused_shape
from aws_data_mcp.guard.tree_shapes import lenient_reading
from aws_data_mcp.guard.trino_lexer import (
    HIDDEN,
    Kind,
    LexError,
    Token,
    TooManyTokens,
    position,
    tokens,
)

# sqlglot warns (with the statement's text) when it keeps a statement as a raw command: decided below.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

MAX_SQL_BYTES = 262_144
"""Athena's own limit on a query string (StartQueryExecution's QueryString), in UTF-8 bytes."""
MAX_TOKENS = 10_000
"""The most significant tokens (words, literals, symbols) the guard reads: about a 5,000-item IN list. sqlglot's
parse costs about 0.1 ms a token, so a statement near Athena's byte limit (130,000 tokens) would hold a core for
10-20 s; refused past this, before parsing, the guard stays well under a second on any text."""
MAX_DEPTH = 24
"""The deepest nesting of parentheses and brackets the guard reads (the corpus of reads by others nests at most 11):
the parser of Trino's grammar looks ahead across every level, so its work grows with the square of the depth."""
TOO_LONG_ADVICE = ("Split it into smaller statements, use a smaller IN list, or put the values in a table (e.g. a "
                   "CSV in S3 read by a Glue table) and join or filter on it.")
CATALOGS_SETTING = "AWS_DATA_MCP_QUERY_CATALOGS"
ALLOWED = "SELECT, WITH ... SELECT, VALUES, SHOW, DESCRIBE, or EXPLAIN of one of these"
QUERY_STARTS = ("SELECT", "WITH", "VALUES")
STATEMENT_STARTS = frozenset({
    *QUERY_STARTS, "ALTER", "ANALYZE", "CALL", "COMMENT", "COMMIT", "CREATE", "DEALLOCATE", "DELETE", "DENY", "DROP",
    "EXECUTE", "EXPLAIN", "GRANT", "INSERT", "MERGE", "MSCK", "OPTIMIZE", "PREPARE", "REFRESH", "RESET", "REVOKE",
    "ROLLBACK", "SET", "START", "TABLE", "TRUNCATE", "UNLOAD", "UPDATE", "USE", "USING", "VACUUM",
})
"""The words that begin a statement in Trino's grammar or Athena's: anything else does not parse."""

READ_ROOTS: dict[type[exp.Expression], str] = {
    exp.Select: "SELECT", exp.Union: "SELECT", exp.Intersect: "SELECT", exp.Except: "SELECT",
    exp.Subquery: "SELECT", exp.Values: "VALUES",
}
"""Trees a query may have at its root."""

WRITES_BELOW: tuple[type[exp.Expression], ...] = (
    exp.DML, exp.DDL, exp.Drop, exp.Alter, exp.Into, exp.Command, exp.Grant, exp.Revoke, exp.TruncateTable,
    exp.Use, exp.Set, exp.Transaction, exp.Commit, exp.Rollback, exp.Refresh,
)
"""Nodes that write or change state, refused wherever the parser puts them."""

REFUSED_NAMES: dict[type[exp.Expression], str] = {
    exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE", exp.Merge: "MERGE", exp.Into: "SELECT ... INTO",
}

_COMPOUND_NAMES = {"MSCK": 2, "DEALLOCATE": 2, "START": 2, "USING": 3, "REFRESH": 2}
"""Statements named by more than their first word in a refusal (`MSCK REPAIR`, `USING EXTERNAL FUNCTION`)."""
_EXPLAIN_OPTIONS = {"FORMAT": ("TEXT", "GRAPHVIZ", "JSON"), "TYPE": ("LOGICAL", "DISTRIBUTED", "VALIDATE", "IO")}
_ANALYZE_OPTIONS = {"FORMAT": ("TEXT", "JSON")}
"""EXPLAIN ANALYZE's options in Athena ("Using EXPLAIN and EXPLAIN ANALYZE"); Trino's grammar has none."""
_NEST_LESS = "Nest fewer parentheses or subqueries (a WITH clause can name a subquery)."
_TRINO = Trino()
_COMMENTS = frozenset({Kind.LINE_COMMENT, Kind.BLOCK_COMMENT})


@dataclass(frozen=True)
class ReadOnlyStatement:
    sql: str
    """The statement as Athena receives it: the caller's text without a trailing `;`."""
    kind: str
    """SELECT, VALUES, SHOW, DESCRIBE or EXPLAIN."""
    estimate: bool = False
    """`EXPLAIN (TYPE IO)`: asks Athena for the input it would read, without reading it."""
    relations: tuple[str, ...] = ()
    """Every table the guard saw the statement read, as dotted lower-case names (catalogs checked)."""
    in_context: bool = True
    """Whether a name is read in the query context's catalog (a table named without its catalog, a SHOW or
    DESCRIBE): only then does the context's catalog matter."""


def estimate_of(statement: ReadOnlyStatement) -> ReadOnlyStatement:
    """`EXPLAIN (TYPE IO, FORMAT JSON)` of a SELECT the guard accepted: the same tokens after a fixed prefix, so
    the verdict holds without reading the text a second time."""
    if statement.estimate:
        return statement
    return ReadOnlyStatement(f"EXPLAIN (TYPE IO, FORMAT JSON) {statement.sql}", "EXPLAIN", estimate=True,
                             relations=statement.relations, in_context=statement.in_context)


@dataclass(frozen=True)
class _Statement:
    """One statement's tokens (hidden ones too) in the caller's text, which it keeps for positions."""

    source: str
    found: list[Token]

    @property
    def words(self) -> list[Token]:
        return [token for token in self.found if token.kind not in HIDDEN]

    @property
    def text(self) -> str:
        return self.source[self.found[0].start:self.found[-1].end].strip(" \t\r\n")

    @property
    def offset(self) -> int:
        """Where `text` begins in the caller's text."""
        return self.source.index(self.text, self.found[0].start)

    def after(self, token: Token) -> _Statement:
        return _Statement(self.source, [found for found in self.found if found.start >= token.start])

    def refused(self, message: str, advice: str, at: Token | None) -> ResourceFailure:
        return self.refused_at(message, advice, None if at is None else at.start)

    def refused_at(self, message: str, advice: str, offset: int | None) -> ResourceFailure:
        if offset is not None:
            line, column = position(self.source, offset)
            message = f"{message} (line {line}, column {column})"
        return _refused(message, advice)


class _Unread(Exception):
    """sqlglot reads the text otherwise than Trino's grammar may (or not at all as Trino reads it): `message`,
    what to do instead, and where."""

    def __init__(self, message: str, advice: str, at: Token | None) -> None:
        super().__init__(message)
        self.message, self.advice, self.at = message, advice, at


def read_only_statement(sql: object, catalogs: Collection[str] = DEFAULT_CATALOGS) -> ReadOnlyStatement:
    """`sql` if it is exactly one read-only statement reading only `catalogs`; otherwise `invalid_argument` saying
    what was refused, where and why."""
    if not isinstance(sql, str) or not sql.strip():
        raise _refused("The SQL is empty", "Send one statement, e.g. SELECT * FROM orders LIMIT 10.")
    size = len(sql.encode("utf-8", "surrogatepass"))
    if size > MAX_SQL_BYTES:
        raise _refused(f"The SQL is {size:,} bytes; Athena takes at most {MAX_SQL_BYTES:,}",
                       "Send a shorter statement.")
    try:
        found = tokens(sql, most=MAX_TOKENS)
    except TooManyTokens:
        raise _refused(f"The SQL holds more than {MAX_TOKENS:,} words, literals and symbols: more than this tool "
                       "reads in one statement", TOO_LONG_ADVICE) from None
    except LexError as exc:
        raise _refused(f"The SQL does not parse as Athena reads it: {exc}",
                       "Check the statement against Athena's SQL (Trino) reference.") from None
    allowed = {catalog.lower() for catalog in catalogs}
    return _decide(_one_statement(sql, found), allowed, explained=False)


def _one_statement(sql: str, found: list[Token]) -> _Statement:
    statements: list[list[Token]] = [[]]
    for token in found:
        if token.is_symbol(";"):
            statements.append([])
        else:
            statements[-1].append(token)
    holding = [statement for statement in statements if any(token.kind not in HIDDEN for token in statement)]
    if not holding:
        raise _refused("The SQL holds no statement (only comments or semicolons)", f"Send one of: {ALLOWED}.")
    if len(holding) > 1:
        second = _Statement(sql, holding[1])
        raise _refused(f"The SQL holds {len(holding)} statements; this tool runs exactly one",
                       f"Send the statements one at a time; a second one ({_name(second.words)}) was refused.")
    # From after any empty statement before it (`;` alone) to its own terminating `;`: comments stay the caller's.
    return _Statement(sql, holding[0])


def _decide(statement: _Statement, catalogs: set[str], *, explained: bool) -> ReadOnlyStatement:
    words = statement.words
    first = words[0]
    _by_token(statement, catalogs)
    if first.is_word("SHOW", "DESCRIBE", "DESC"):
        return _metadata(statement, catalogs)
    if first.is_word("EXPLAIN") and not explained:
        return _explain(statement, catalogs)
    if not first.is_symbol("(") and not first.is_word(*STATEMENT_STARTS):
        raise statement.refused(f"The SQL does not parse: {echo(first.text[:40])!r} does not begin a statement",
                                f"Send one of: {ALLOWED}.", first)
    if not (first.is_word(*QUERY_STARTS) or first.is_symbol("(")):
        name = "EXPLAIN of an EXPLAIN" if first.is_word("EXPLAIN") else _name(words)
        raise statement.refused(f"{name} is not a read: this tool runs {ALLOWED} only",
                                "Writes, DDL, UNLOAD, procedures, prepared statements, external functions and "
                                "statements that change session or catalog state are refused.", first)
    return _query(statement, catalogs)


def _query(statement: _Statement, catalogs: set[str]) -> ReadOnlyStatement:
    """A query, read twice: by Trino's grammar, which must read it as one allowed query (Athena reads nothing
    else), then by sqlglot, whose tree the older checks walk. A text sqlglot cannot parse at all is decided by the
    grammar's reading alone; one sqlglot reads otherwise than the grammar is refused, honestly: as a form this tool
    cannot check yet, not as SQL that does not parse."""
    shape = refused_shape(statement.words)
    if shape is not None and shape.policy:
        raise statement.refused(shape.message, shape.advice, shape.at)
    reading = _grammar_reading(statement)
    if not reading.parsed:
        raise _not_trino(statement, reading, shape, catalogs)
    if shape is not None:
        raise _cannot_check(statement, _Unread(shape.message, shape.advice, shape.at))
    relations = _allowed_by_grammar(statement, reading, catalogs)
    in_context = any(len(relation) < 3 for relation in reading.names.relations)
    try:
        checked = _second_reading(statement, catalogs)
    except _Unread as unread:
        raise _cannot_check(statement, unread) from None
    if checked is not None:
        return dataclasses.replace(checked, in_context=in_context)
    kind = "VALUES" if statement.words[0].is_word("VALUES") else "SELECT"
    return ReadOnlyStatement(statement.text, kind, relations=relations, in_context=in_context)


def _second_reading(statement: _Statement, catalogs: set[str]) -> ReadOnlyStatement | None:
    """sqlglot's reading and the checks on its tree; None where sqlglot cannot parse the text at all. Raises
    `_Unread` where it reads the text otherwise than Trino's grammar may, a refusal where the tree reads or writes
    what the guard refuses."""
    _literals_read_alike(statement)
    tree = _parsed(statement)
    if tree is None:
        return None
    kind = READ_ROOTS.get(type(tree))
    if kind is None:
        raise statement.refused(f"The statement parses as {type(tree).__name__.upper()}, not a query",
                                f"Send one of: {ALLOWED}.", statement.words[0])
    for node in tree.walk():
        if isinstance(node, WRITES_BELOW):
            raise statement.refused(f"The statement holds a write ({_node_name(node)})",
                                    "A write inside a WITH clause or a subquery is still a write: it is refused.",
                                    None)
    lenient = lenient_reading(tree, statement.words)
    if lenient is not None:
        raise _Unread(lenient.message, lenient.advice, None)
    relations = _sources_in_tree(statement, tree, catalogs)
    return ReadOnlyStatement(statement.text, kind, relations=relations)


def _grammar_reading(statement: _Statement) -> trino_parser.Reading:
    depth = 0
    for token in statement.words:
        depth += token.is_symbol("(", "[") - token.is_symbol(")", "]")
        if depth > MAX_DEPTH:
            raise _cannot_check(statement, _Unread(f"It nests parentheses or brackets more than {MAX_DEPTH} deep",
                                                   _NEST_LESS, token))
    try:
        return trino_parser.read(statement.text)
    except (RecursionError, trino_parser.TooIntricate):
        raise _cannot_check(statement, _Unread("It nests deeper, or asks more look-ahead, than this tool's reader of "
                                               "Athena's grammar follows", _NEST_LESS, statement.words[0])) from None


def _not_trino(statement: _Statement, reading: trino_parser.Reading, shape: Refusal | None,
               catalogs: set[str]) -> ResourceFailure:
    """The refusal of a text Trino's grammar does not read: the guard's own name for the problem where it has
    one (`OFFSET after LIMIT`, a reserved word as a name...), else where Trino's parser stopped."""
    if shape is not None:
        return statement.refused(shape.message, shape.advice, shape.at)
    try:
        _second_reading(statement, catalogs)
    except _Unread as unread:
        return statement.refused(unread.message, unread.advice, unread.at)
    problem = reading.errors[0]
    return statement.refused_at(f"The SQL does not parse as Athena (Trino) reads it: {problem.message}",
                                "Check the statement against Athena's SQL (Trino) reference.",
                                statement.offset + problem.offset)


def _allowed_by_grammar(statement: _Statement, reading: trino_parser.Reading, catalogs: set[str]) -> tuple[str, ...]:
    """The policy on the grammar's own names, whatever sqlglot makes of the text: one query, no `WITH FUNCTION` or
    `WITH SESSION`, no table function, no function named by its catalog, tables only in allowed catalogs. Returns
    the tables it reads, dotted and lower-cased."""
    names = reading.names
    if reading.kind != trino_parser.QUERY:
        raise statement.refused(f"Athena reads this statement as {reading.statement.removesuffix('Context')}, "
                                "not a query", f"Send one of: {ALLOWED}.", statement.words[0])
    if names.scoped:
        raise statement.refused(f"{names.scoped[0]} is refused: it runs code of the caller's own or changes the "
                                "session", "Send the query alone, with Athena's built-in functions.", None)
    if names.table_functions:
        raise statement.refused(f"A table function ({'.'.join(names.table_functions[0])}) is refused",
                                _catalogs_advice(), None)
    catalogued = next((name for name in names.functions if len(name) >= 3), None)
    if catalogued is not None:
        raise statement.refused(f"A function named by its catalog ({'.'.join(catalogued)}) is refused",
                                "Call functions by their name alone (or schema.name).", None)
    for relation in names.relations:
        if len(relation) > 3:
            raise statement.refused(f"{'.'.join(relation)} names a table by more than catalog.schema.table",
                                    "Name a table as table, schema.table or catalog.schema.table.", None)
        if len(relation) == 3:
            _allowed_catalog(statement, relation[0], catalogs, None)
    return tuple(".".join(relation) for relation in names.relations)


def _cannot_check(statement: _Statement, unread: _Unread) -> ResourceFailure:
    return statement.refused(f"Athena reads this SQL, but this tool cannot check that form yet. {unread.message}",
                             f"Write it another way for now. {unread.advice}", unread.at)


def _metadata(statement: _Statement, catalogs: set[str]) -> ReadOnlyStatement:
    try:
        kind, named = metadata_read(statement.words, [token for token in statement.found if token.kind in HIDDEN])
    except NotAMetadataRead as refusal:
        raise statement.refused(f"Not a metadata statement this tool runs: {refusal.reason}",
                                "SHOW and DESCRIBE are accepted in the forms Athena documents, written plainly.",
                                refusal.at) from None
    for catalog in named:
        _allowed_catalog(statement, catalog.name, catalogs, catalog)
    try:
        _literals_read_alike(statement)
    except _Unread as unread:
        raise statement.refused(unread.message, unread.advice, unread.at) from None
    return ReadOnlyStatement(statement.text, kind)


def _explain(statement: _Statement, catalogs: set[str]) -> ReadOnlyStatement:
    """EXPLAIN [(option, ...)], or EXPLAIN ANALYZE [VERBOSE] [(FORMAT TEXT|JSON)] (Athena's own extension of
    Trino's grammar, which has no options after ANALYZE), of a statement this tool would run: ANALYZE executes it,
    so only reads may be explained."""
    words = statement.words
    rest, estimate = words[1:], False
    if rest and rest[0].is_word("ANALYZE"):
        rest = rest[2:] if len(rest) > 1 and rest[1].is_word("VERBOSE") else rest[1:]
        if rest and rest[0].is_symbol("("):
            _, rest = _explain_options(statement, rest, _ANALYZE_OPTIONS)
    elif rest and rest[0].is_symbol("("):
        options, rest = _explain_options(statement, rest, _EXPLAIN_OPTIONS)
        estimate = any(option[0].is_word("TYPE") and option[1].is_word("IO") for option in options)
    if not rest:
        raise statement.refused("EXPLAIN of nothing", f"Send EXPLAIN of one of: {ALLOWED}.", None)
    try:
        explained = _decide(statement.after(rest[0]), catalogs, explained=True)
    except ResourceFailure as failure:
        raise _refused(f"EXPLAIN of a statement this tool would not run: {failure.message}",
                       "EXPLAIN ANALYZE executes its statement, so only reads may be explained.") from None
    return ReadOnlyStatement(statement.text, "EXPLAIN", estimate=estimate and explained.kind == "SELECT",
                             relations=explained.relations, in_context=explained.in_context)


def _explain_options(statement: _Statement, rest: list[Token],
                     allowed: dict[str, tuple[str, ...]]) -> tuple[list[list[Token]], list[Token]]:
    """The `(name value, ...)` options at the head of `rest`, each one `allowed`, and the tokens after them."""
    close = next((index for index, token in enumerate(rest) if token.is_symbol(")")), len(rest))
    options = [rest[index:index + 2] for index in range(1, close, 3)]
    separators = rest[3:close:3]
    known = all(len(option) == 2 and option[1].is_word(*allowed.get(option[0].upper, ())) for option in options)
    if close != 3 * len(options) or not known or not all(token.is_symbol(",") for token in separators):
        written = " and ".join(f"{name} {'|'.join(values)}" for name, values in allowed.items())
        raise statement.refused(f"EXPLAIN{' ANALYZE' if allowed is _ANALYZE_OPTIONS else ''}'s options are "
                                f"{written}, between parentheses", "Write e.g. EXPLAIN (TYPE IO) SELECT ...",
                                rest[0])
    return options, rest[close + 1:]


def _parsed(statement: _Statement) -> exp.Expression | None:
    """sqlglot's Trino tree of the statement, after proving its tokenizer splits the text where ours does; None
    where sqlglot cannot parse it."""
    base = statement.found[0].start
    text = statement.source[base:statement.found[-1].end]
    try:
        theirs = _TRINO.tokenize(text)
        _same_tokens(statement, theirs, base)
        trees = [tree for tree in _TRINO.parser().parse(theirs, text) if tree is not None]
    except (ParseError, TokenError):
        return None
    except RecursionError:
        raise _Unread("The SQL nests too deeply to read", _NEST_LESS, None) from None
    if len(trees) != 1:
        raise _Unread("The SQL does not parse as one statement", f"Send one of: {ALLOWED}.", None)
    return trees[0]


def _same_tokens(statement: _Statement, theirs: list[SqlglotToken], base: int) -> None:
    """sqlglot's tokens cover ours one for one (a keyword such as ORDER BY may span several words and the spaces
    between them, never a comment); any other split means the two read the text differently: refused."""
    found, index = statement.found, 0
    numbers = {token.start for token in found if token.kind is Kind.NUMBER and token.text.startswith(".")}
    for start, end in _spans(theirs, base, numbers):
        while index < len(found) and found[index].kind in HIDDEN:
            index += 1
        first = index
        while index < len(found) and found[index].end < end and found[index].kind not in _COMMENTS:
            index += 1
        if (index == len(found) or found[first].start != start or found[index].end != end
                or found[index].kind in HIDDEN):
            raise _Unread("The SQL reads two ways (the guard's parser splits it differently from Athena)",
                          "Write the statement more plainly (e.g. without unusual literals).",
                          found[min(first, len(found) - 1)])
        index += 1
    rest = next((token for token in found[index:] if token.kind not in HIDDEN), None)
    if rest is not None:
        raise _Unread("The SQL reads two ways (the guard's parser drops part of it)",
                      "Write the statement more plainly.", rest)


def _spans(theirs: list[SqlglotToken], base: int, numbers: set[int]) -> Iterator[tuple[int, int]]:
    """Where each of sqlglot's tokens lies in the caller's text (end exclusive); its `.` and `5` are one span where
    Trino reads one number `.5`."""
    index = 0
    while index < len(theirs):
        token, start = theirs[index], base + theirs[index].start
        following = theirs[index + 1] if index + 1 < len(theirs) else None
        if (start in numbers and token.text == "." and following is not None
                and following.start == token.end + 1 and following.token_type is TokenType.NUMBER):
            token, index = following, index + 1
        yield start, base + token.end + 1
        index += 1


def _by_token(statement: _Statement, catalogs: set[str]) -> None:
    """What the tokens alone show, whatever a parser makes of them: a table function, a Lambda connector named as a
    catalog (`"lambda:function".db.t`), or a literal valid to Trino that sqlglot cannot read (a binary literal with
    spaces, a number with digit separators)."""
    words = statement.words
    for token, following in itertools.pairwise([*words, None]):
        if token.is_word("TABLE") and following is not None and following.is_symbol("("):
            raise statement.refused("A table function (TABLE(...)) is refused: it reads a source outside the "
                                    "allowed catalogs, or hands it a query of its own", _catalogs_advice(), token)
        if token.kind is Kind.QUOTED and token.name.lower().startswith("lambda:"):
            _allowed_catalog(statement, token.name, catalogs, token)


def _literals_read_alike(statement: _Statement) -> None:
    """Literals valid to Trino that sqlglot cannot read as Trino does: a number with digit separators or a 0b/0o
    prefix, a binary literal with spaces."""
    for token in statement.words:
        if token.kind is Kind.NUMBER and ("_" in token.text or token.upper.startswith(("0B", "0O"))):
            raise _Unread("A number with digit separators or a 0b/0o prefix is refused (the guard's parser cannot read "
                          "it as Athena does)", "Write it in plain decimal (or 0x...).", token)
        if token.kind is Kind.BINARY and any(char in token.text for char in " \t\r\n"):
            raise _Unread("A binary literal with spaces is refused (the guard's parser cannot read it as Athena does)",
                          "Write it without spaces, e.g. X'00FF'.", token)


def _sources_in_tree(statement: _Statement, tree: exp.Expression, catalogs: set[str]) -> tuple[str, ...]:
    """The tables the tree reads (each catalog checked). A function the tree holds under a qualified name of three
    or more parts, in whatever node (a `Column` whose table and db hold the catalog, a `Dot` chain), was refused by
    its tokens already: finding one here means the tree and the tokens read the text two ways."""
    relations: list[str] = []
    for node in tree.walk():
        if isinstance(node, exp.Table):
            if isinstance(node.this, exp.Func) and not isinstance(node.this, exp.JSONTable):  # json_table reads JSON
                raise statement.refused(f"A table function ({node.this.sql('trino')[:60]}) is refused",
                                        _catalogs_advice(), None)
            if node.catalog:
                _allowed_catalog(statement, node.catalog, catalogs, None)
            relations.append(".".join(part.name for part in node.parts).lower())
        elif _qualified_call(node):
            raise statement.refused(f"The SQL reads two ways (a function under a qualified name the guard's "
                                    f"parser holds as {type(node).__name__}: {node.sql('trino')[:60]})",
                                    _catalogs_advice(), None)
    return tuple(relations)


def _qualified_call(node: exp.Expression) -> bool:
    """A call under two or more qualifiers: `Column(this=<not a name>, table=.., db=..)` or `Dot(Dot(..), call)`."""
    if isinstance(node, exp.Column):
        return not isinstance(node.this, exp.Identifier | exp.Star) and bool(node.args.get("db"))
    if isinstance(node, exp.Dot):
        return isinstance(node.this, exp.Dot) and node.expression.find(exp.Func) is not None
    return False


def _allowed_catalog(statement: _Statement, name: str, catalogs: set[str], at: Token | None) -> None:
    if not catalog_allowed(name, catalogs):
        raise statement.refused(f"The catalog {echo(name)!r} is not one this deployment lets queries read",
                                _catalogs_advice(), at)


def _catalogs_advice() -> str:
    return (f"Queries read the catalogs {CATALOGS_SETTING} allows (config://server shows its patterns; the default "
            "is AwsDataCatalog, the Glue catalog, and s3tablescatalog/*, every S3 table bucket's): an operator adds "
            "a catalog or a pattern there to allow it.")


def _name(words: list[Token]) -> str:
    """What a statement is, by its first words, as a refusal names it."""
    first = words[0].upper if words[0].kind is Kind.WORD else words[0].text
    if first == "CREATE":
        return _create_name(words)
    count = _COMPOUND_NAMES.get(first, 1)
    return " ".join(token.upper for token in words[:count] if token.kind is Kind.WORD)


def _create_name(words: list[Token]) -> str:
    kind = next((token.upper for token in words[1:4] if token.is_word("TABLE", "VIEW", "DATABASE", "SCHEMA")), "")
    as_select = any(following.is_word("SELECT", "WITH") or following.is_symbol("(")
                    for token, following in itertools.pairwise(words) if token.is_word("AS"))
    name = f"CREATE {kind}".strip()
    return f"{name} AS SELECT" if kind == "TABLE" and as_select else name


def _node_name(node: exp.Expression) -> str:
    for kind, name in REFUSED_NAMES.items():
        if isinstance(node, kind):
            return name
    return type(node).__name__.upper()


def _where(exc: ParseError | TokenError) -> str:
    errors = getattr(exc, "errors", None) or []
    if not errors:
        return echo(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    first = errors[0]
    near = f"{first.get('start_context') or ''}{first.get('highlight') or ''}"
    return (f"{first.get('description')} at line {first.get('line')}, column {first.get('col')}"
            f" (near {echo(near[-40:])!r})")


def _refused(message: str, advice: str) -> ResourceFailure:
    return ResourceFailure(ErrorCode.INVALID_ARGUMENT, message, details=[advice])
