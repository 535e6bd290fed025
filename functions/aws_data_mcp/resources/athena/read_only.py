"""Which SQL the query tool runs: one read-only statement of Athena's dialect, decided by a parser.

Why a parser and not keywords: a keyword check is fooled by a write inside a `WITH`, a second statement after
`;`, `SELECT ... INTO`, comments and case. sqlglot parses Athena's dialect (engine v3 is Trino; DDL is Hive's),
so the decision is made on the statement's tree: an allow-list of statement kinds at the root, and no write
anywhere below it. Refusals happen before any AWS call, and say what was refused and why.

What reaches Athena is the caller's own text (less a trailing `;`), never sqlglot's rendering of it: the parser
decides, it does not rewrite.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo

# sqlglot warns (with the statement's text) for every statement it keeps as a raw command, SHOW and EXPLAIN
# included: an expected outcome here, decided below, not an operational event.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

MAX_SQL_BYTES = 262_144
"""Athena's own limit on a query string (StartQueryExecution's QueryString), in UTF-8 bytes."""
DIALECT = "athena"

READ_ROOTS: dict[type[exp.Expression], str] = {
    exp.Select: "SELECT",
    exp.Union: "SELECT",
    exp.Intersect: "SELECT",
    exp.Except: "SELECT",
    exp.Values: "VALUES",
    exp.Describe: "DESCRIBE",
}
"""Statement kinds that read, by the root of their tree. SHOW and EXPLAIN are raw commands to sqlglot."""

WRITES_BELOW: tuple[type[exp.Expression], ...] = (
    exp.DML, exp.DDL, exp.Drop, exp.Alter, exp.Into, exp.Command, exp.Grant, exp.Revoke, exp.TruncateTable,
    exp.Use, exp.Set, exp.Transaction, exp.Commit, exp.Rollback, exp.Refresh,
)
"""Nodes that write or change state, refused wherever they appear (a CTE, a subquery, `SELECT ... INTO`)."""

_EXPLAIN_OPTIONS = re.compile(r"^\s*(?:ANALYZE\s+)?(?:VERBOSE\s+)?(?:\((?P<options>[^()]*)\)\s*)?", re.IGNORECASE)
_ESTIMATE_OPTION = re.compile(r"\bTYPE\s+IO\b", re.IGNORECASE)

REFUSED_NAMES: dict[type[exp.Expression], str] = {
    exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE", exp.Merge: "MERGE", exp.Copy: "COPY",
    exp.Drop: "DROP", exp.Alter: "ALTER", exp.Grant: "GRANT", exp.Revoke: "REVOKE",
    exp.TruncateTable: "TRUNCATE", exp.Use: "USE", exp.Set: "SET", exp.Transaction: "START TRANSACTION",
    exp.Commit: "COMMIT", exp.Rollback: "ROLLBACK", exp.Refresh: "REFRESH", exp.Into: "SELECT ... INTO",
}
ALLOWED = "SELECT, WITH ... SELECT, VALUES, SHOW, DESCRIBE, or EXPLAIN of one of these"


@dataclass(frozen=True)
class ReadOnlyStatement:
    sql: str
    """The statement as Athena receives it: the caller's text without a trailing `;`."""
    kind: str
    """SELECT, VALUES, SHOW, DESCRIBE or EXPLAIN."""
    estimate: bool = False
    """`EXPLAIN (TYPE IO)`: asks Athena for the input it would read, without reading it."""


def read_only_statement(sql: object) -> ReadOnlyStatement:
    """`sql` if it is exactly one read-only statement; otherwise `invalid_argument` saying what and why."""
    if not isinstance(sql, str) or not sql.strip():
        raise _refused("The SQL is empty", "Send one statement, e.g. SELECT * FROM orders LIMIT 10.")
    size = len(sql.encode("utf-8", "surrogatepass"))
    if size > MAX_SQL_BYTES:
        raise _refused(f"The SQL is {size:,} bytes; Athena takes at most {MAX_SQL_BYTES:,}",
                       "Send a shorter statement.")
    statement = _one_statement(sql)
    text = sql.strip().rstrip("; \t\r\n")
    if isinstance(statement, exp.Command):
        return _command(statement, text)
    kind = READ_ROOTS.get(type(statement))
    if kind is None:
        raise _refused(f"{_name(statement)} is not a read: this tool runs {ALLOWED} only",
                       "Writes, DDL and statements that change session or catalog state are refused.")
    _no_write_below(statement)
    return ReadOnlyStatement(text, kind)


def _one_statement(sql: str) -> exp.Expression:
    try:
        parsed = [statement for statement in sqlglot.parse(sql, read=DIALECT) if statement is not None]
    except (ParseError, TokenError) as exc:
        raise _refused(f"The SQL does not parse: {_where(exc)}",
                       "Check the statement against Athena's SQL (Trino) reference.") from None
    if not parsed:
        raise _refused("The SQL holds no statement (only comments or semicolons)", f"Send one of: {ALLOWED}.")
    if len(parsed) > 1:
        raise _refused(f"The SQL holds {len(parsed)} statements; this tool runs exactly one",
                       f"Send the statements one at a time; a second one ({_name(parsed[1])}) was refused.")
    return parsed[0]


def _command(statement: exp.Command, text: str) -> ReadOnlyStatement:
    """SHOW and EXPLAIN, which sqlglot keeps as raw commands; every other raw command (UNLOAD, MSCK, CALL,
    PREPARE, EXECUTE, VACUUM, OPTIMIZE...) is refused."""
    keyword = str(statement.this).upper()
    if keyword == "SHOW":
        return ReadOnlyStatement(text, "SHOW")
    if keyword != "EXPLAIN":
        raise _refused(f"{keyword} is not a read: this tool runs {ALLOWED} only",
                       "Writes, DDL, procedures and prepared statements are refused.")
    rest = statement.expression.name if isinstance(statement.expression, exp.Literal) else ""
    options = _EXPLAIN_OPTIONS.match(rest)
    inner = rest[options.end():] if options else rest
    try:
        explained = read_only_statement(inner)
    except ResourceFailure as failure:
        raise _refused(f"EXPLAIN of a statement this tool would not run: {failure.message}",
                       "EXPLAIN ANALYZE executes its statement, so only reads may be explained.") from None
    estimate = bool(options and options.group("options") and _ESTIMATE_OPTION.search(options.group("options")))
    return ReadOnlyStatement(text, "EXPLAIN", estimate=estimate and explained.kind == "SELECT")


def _no_write_below(statement: exp.Expression) -> None:
    for node in statement.walk():
        if isinstance(node, WRITES_BELOW):
            raise _refused(f"The statement holds a write ({_name(node)}) inside a {_name(statement)}",
                           "A write inside a WITH clause or a subquery is still a write: it is refused.")


def _name(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Create):
        kind = str(node.args.get("kind") or "").upper()
        as_select = isinstance(node.expression, exp.Query)
        return f"CREATE {kind} AS SELECT".replace("  ", " ") if as_select else f"CREATE {kind}".strip()
    for kind, name in REFUSED_NAMES.items():
        if isinstance(node, kind):
            return name
    return READ_ROOTS.get(type(node), type(node).__name__.upper())


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
