"""Trino's meaning of a query, kept on its way to DuckDB (demo and tests only, never in Lambda).

sqlglot transpiles the words, but DuckDB computes by its own rules: `7 / 2` is 3 in Trino. So the
tree is first typed from the Glue columns. Then it is refused as Trino refuses it, or rewritten
where DuckDB can say the same. Where the demo would answer otherwise, it is refused by name
(docs/demo.md). The functions named are those whose documented examples differ
(tests/demo/test_trino_function_examples.py).
"""

import re
from collections.abc import Iterable
from typing import Any

from sqlglot import exp
from sqlglot.dialects import Athena, DuckDB, Hive
from sqlglot.errors import ErrorLevel, UnsupportedError
from sqlglot.optimizer.annotate_types import annotate_types

from aws_data_mcp_demo.engine.trino_function_names import TRINO_FUNCTIONS

_TEXT = {exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.TEXT, exp.DType.NCHAR, exp.DType.NVARCHAR}
_TEMPORAL = {exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ,
             exp.DType.DATETIME}
_INTEGERS = {exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT}
_OPERATORS = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
_TRINO_COMPARISON = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: "<", exp.GTE: "<="}
"""Trino checks ``a > b`` as ``b < a`` and names that operator in its refusal."""
_PRINTF = re.compile(r"%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?[sdfxXoe%]")
"""The ``format`` conversions C's printf (DuckDB's) computes as Java's Formatter does."""

UNSUPPORTED: dict[type[exp.Expr], str] = {
    exp.Typeof: "typeof",
    exp.AtTimeZone: "AT TIME ZONE",
    exp.JSONArray: "json_array",
}
"""sqlglot's expressions whose DuckDB reading computes another value than Trino (the type's words, the zone kept,
json_array's default ABSENT ON NULL)."""
UNSUPPORTED_NAMES = frozenset({
    "timezone", "at_timezone", "with_timezone", "from_iso8601_timestamp", "from_iso8601_timestamp_nanos",
    "from_iso8601_date", "map_entries", "murmur3", "bit_count", "json_array", "json_query",
})
"""Trino's functions that DuckDB has under the same name (or sqlglot maps) with another result."""


class TrinoRefusal(Exception):
    """The query refused as Athena words it (``query`` makes it a QueryFailure)."""

    def __init__(self, message: str, error_type: int = 1000) -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type


def position(sql: str, start: int | None) -> str:
    """Athena's ``line L:C: `` of an offset in the submitted text."""
    if start is None:
        return ""
    line = sql.count("\n", 0, start) + 1
    return f"line {line}:{start - (sql.rfind(chr(10), 0, start) + 1) + 1}: "


def _start(node: exp.Expr) -> int | None:
    """Where a node starts in the text: its own position, else its first positioned part's."""
    for part in node.walk():
        if part.meta and part.meta.get("start") is not None:
            return part.meta["start"]
    return None


def not_supported(name: str, sql: str = "", start: int | None = None) -> TrinoRefusal:
    where = position(sql, start).removesuffix(": ")
    return TrinoRefusal(f"NOT_SUPPORTED: {name} in the demo" + (f" ({where})" if where else ""))


def trino_name(node: exp.Expr) -> str:
    """A function's name as Trino spells it (sqlglot's reading generated back in Athena's dialect)."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    if type(node) in UNSUPPORTED:
        return UNSUPPORTED[type(node)]
    return node.sql(dialect=Athena).split("(", 1)[0].strip().lower() or type(node).__name__.lower()


# --------------------------------------------------------------------------- types

def _column_types(tables: list[exp.Table], definitions: list[dict[str, Any]],
                  ) -> tuple[dict[str, dict[str, exp.DataType]], dict[str, set[str]]]:
    """Each read's columns by its alias, and which aliases have a column of a name."""
    by_alias: dict[str, dict[str, exp.DataType]] = {}
    owners: dict[str, set[str]] = {}
    for table, definition in zip(tables, definitions, strict=True):
        alias = (table.alias_or_name or "").lower()
        columns = [*definition.get("StorageDescriptor", {}).get("Columns", []),
                   *(definition.get("PartitionKeys") or [])]
        typed = by_alias.setdefault(alias, {})
        for column in columns:
            try:
                typed[column["Name"].lower()] = exp.DataType.build(column["Type"], dialect=Hive)
            except Exception:  # a type sqlglot cannot read: left unknown, nothing is refused for it
                continue
            owners.setdefault(column["Name"].lower(), set()).add(alias)
    return by_alias, owners


def annotate(tree: exp.Expr, tables: list[exp.Table], definitions: list[dict[str, Any]]) -> None:
    """Type every node: the columns from the tables' Glue definitions, the rest as sqlglot infers for Trino."""
    by_alias, owners = _column_types(tables, definitions)
    annotate_types(tree, dialect=Athena)  # then again over what the columns' types leave unknown
    for column in tree.find_all(exp.Column):
        name, alias = column.name.lower(), column.table.lower()
        if not alias and len(owners.get(name, ())) == 1:
            alias = next(iter(owners[name]))
        found = by_alias.get(alias, {}).get(name)
        if found is not None:
            column.type = found.copy()
    annotate_types(tree, dialect=Athena, overwrite_types=False)


def _is(node: exp.Expr, kinds: set[exp.DType]) -> bool:
    return node.type is not None and node.type.this in kinds


def _trino_type(node: exp.Expr) -> str:
    """A type as Trino names it in a refusal (a string literal is ``varchar(<length>)``)."""
    if isinstance(node, exp.Literal) and node.is_string:
        return f"varchar({len(node.this)})"
    kind = node.type.sql(dialect=Athena).lower() if node.type is not None else "unknown"
    return "timestamp(3)" if kind == "timestamp" else kind


# --------------------------------------------------------------------------- refusals in Trino's words

def _token_start(sql: str, text: str, after: int) -> int | None:
    """The offset of the first token spelled ``text`` at or after ``after`` (sqlglot's Athena tokenizer)."""
    for token in Athena().tokenize(sql):
        if token.start >= after and token.text.upper() == text.upper():
            return token.start
    return None


def refuse(tree: exp.Expr, sql: str) -> None:
    """Raise the first refusal Trino would give for this typed tree (its analysis, before any data is read)."""
    for node in tree.walk():
        if isinstance(node, exp.ILike):
            start = _token_start(sql, "ILIKE", _start(node) or 0)
            raise TrinoRefusal(f"SYNTAX_ERROR: {position(sql, start)}mismatched input 'ILIKE'. Expecting: "
                               "'AND', 'BETWEEN', 'IN', 'IS', 'LIKE', 'NOT', 'OR', <predicate>", 1006)
        if isinstance(node, exp.Bracket) and _is(node.this, _TEXT):
            index = node.expressions[0] if node.expressions else node
            raise TrinoRefusal(f"TYPE_MISMATCH: {position(sql, _start(node))}Cannot use "
                               f"{_trino_type(index) if index.type else 'integer'} for subscript of "
                               f"{_trino_type(node.this)}")
        if type(node) in _TRINO_COMPARISON:
            left, right = node.this, node.expression
            if (_is(left, _TEXT) and _is(right, _TEMPORAL)) or (_is(left, _TEMPORAL) and _is(right, _TEXT)):
                if isinstance(node, exp.GT | exp.GTE):
                    left, right = right, left
                operator = _TRINO_COMPARISON[type(node)]
                start = _token_start(sql, _OPERATORS[type(node)], _start(node.this) or 0)
                raise TrinoRefusal(f"TYPE_MISMATCH: {position(sql, start)}Cannot apply operator: "
                                   f"{_trino_type(left)} {operator} {_trino_type(right)}")
        if isinstance(node, exp.Cast) and node.to.this in (exp.DType.CHAR, exp.DType.NCHAR):
            raise not_supported("char", sql, _start(node))
        name = trino_name(node) if isinstance(node, exp.Func) else None
        if type(node) in UNSUPPORTED or (isinstance(node, exp.Anonymous | exp.Func) and name in UNSUPPORTED_NAMES):
            raise not_supported(name or UNSUPPORTED[type(node)], sql, _start(node))



# --------------------------------------------------------------------------- rewrites to DuckDB's means

def _format(node: exp.Expr, sql: str) -> exp.Expr:
    """Trino's ``format`` is Java's String.format: DuckDB's ``printf`` where the conversions are C's too."""
    pattern = node.this if isinstance(node, exp.Format) else node.expressions[0]
    arguments = node.expressions if isinstance(node, exp.Format) else node.expressions[1:]
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise not_supported("format with a pattern that is not a literal", sql, _start(node))
    text = pattern.this
    if _PRINTF.sub("", text).count("%"):
        raise not_supported(f"format('{text}')", sql, _start(node))
    shown = [argument.copy() for argument in arguments]
    following = 0
    for conversion in _PRINTF.finditer(text):  # Java's %s prints any value: its text, to C's %s
        spec = conversion.group()
        if spec == "%%":
            continue
        place = int(spec[1:spec.index("$")]) - 1 if "$" in spec else following
        following += "$" not in spec
        if spec.endswith("s") and place < len(shown):
            shown[place] = exp.cast(shown[place], exp.DType.VARCHAR)
    return exp.Anonymous(this="printf", expressions=[pattern.copy(), *shown])


def _json_cast(node: exp.Cast, sql: str) -> exp.Expr:
    """Trino's casts to and from JSON: a varchar becomes a JSON string (never parsed), a JSON scalar becomes
    its value (an array or object is refused), a type holding JSON is beyond the demo."""
    target = node.to
    if target.this == exp.DType.JSON and _is(node.this, _TEXT) and not isinstance(node.this, exp.ParseJSON):
        return exp.Anonymous(this="to_json", expressions=[node.this.copy()])
    if target.this != exp.DType.JSON and any(part.this == exp.DType.JSON for part in target.find_all(exp.DataType)):
        raise not_supported(f"CAST to {target.sql(dialect=Athena).lower()}", sql, _start(node))
    if target.this in _TEXT and _is(node.this, {exp.DType.JSON}):
        value = node.this.copy()
        scalar = exp.Anonymous(this="json_extract_string", expressions=[value, exp.Literal.string("$")])
        return exp.Case(ifs=[exp.If(this=exp.In(this=exp.Anonymous(this="json_type", expressions=[value.copy()]),
                                                  expressions=[exp.Literal.string("ARRAY"),
                                                               exp.Literal.string("OBJECT")]),
                                    true=exp.Anonymous(this="error", expressions=[exp.Literal.string(
                                        "Cannot cast to varchar: a JSON array or object is not a scalar")]))],
                        default=scalar)
    return node


def _divide(node: exp.Div) -> exp.Expr:
    """Trino divides integers to an integer, truncated toward zero, and refuses a division by zero: DuckDB's
    ``//`` floors (so the remainder is taken off first) and refuses zero too; exact where a double is not."""
    if not (_is(node.this, _INTEGERS) and _is(node.expression, _INTEGERS)):
        return node
    dividend, divisor = exp.paren(node.this.copy()), exp.paren(node.expression.copy())
    exact = exp.Sub(this=dividend, expression=exp.Mod(this=dividend.copy(), expression=divisor))
    return exp.paren(exp.IntDiv(this=exp.paren(exact), expression=divisor.copy()))


def _avg(node: exp.Avg) -> exp.Expr:
    """Trino's avg of a decimal(p, s) is a decimal(p, s) (DuckDB's a double)."""
    if _is(node.this, {exp.DType.DECIMAL}):
        return exp.Cast(this=node.copy(), to=node.this.type.copy())
    return node


def _cardinality(node: exp.ArraySize) -> exp.Expr:
    if _is(node.this, {exp.DType.MAP}):
        return exp.Anonymous(this="cardinality", expressions=[node.this.copy()])
    return node


def _to_iso8601(node: exp.Anonymous, sql: str) -> exp.Expr:
    """Trino's ISO 8601 text of a date (``2020-05-11``) or a timestamp (``2020-05-11T11:15:05.055``)."""
    value = node.expressions[0] if node.expressions else None
    if value is not None and _is(value, {exp.DType.DATE}):
        shape = "%Y-%m-%d"
    elif value is not None and _is(value, {exp.DType.TIMESTAMP, exp.DType.DATETIME}):
        shape = "%Y-%m-%dT%H:%M:%S.%g"
    elif value is not None and _is(value, {exp.DType.TIMESTAMPTZ}):
        return exp.Anonymous(this="replace", expressions=[
            exp.Anonymous(this="strftime", expressions=[exp.AtTimeZone(this=value.copy(), zone=exp.Literal.string(
                "UTC")), exp.Literal.string("%Y-%m-%dT%H:%M:%S.%gZ")]), exp.Literal.string("+00:00"),
            exp.Literal.string("Z")])
    else:
        raise not_supported("to_iso8601 of this type", sql, _start(node))
    return exp.Anonymous(this="strftime", expressions=[value.copy(), exp.Literal.string(shape)])


def _regexp_replace(node: exp.RegexpReplace, sql: str) -> exp.Expr:
    """Java's ``$n`` groups in a replacement are RE2's ``\\n`` in DuckDB."""
    replacement = node.args.get("replacement")
    if replacement is None or not isinstance(replacement, exp.Literal):
        if replacement is not None:
            raise not_supported("regexp_replace with a computed replacement", sql, _start(node))
        return node
    text = replacement.this
    if "${" in text:
        raise not_supported("regexp_replace with named groups", sql, _start(node))
    rewritten = re.sub(r"\$(\d)", r"\\\1", text.replace("\\", "\\\\"))
    node.set("replacement", exp.Literal.string(rewritten))
    return node


def _unnest_map(node: exp.Unnest, sql: str) -> exp.Expr:
    """UNNEST of a map is two columns, its keys and its values: DuckDB unnests the two lists side by side in a
    (lateral) subquery named as the UNNEST was."""
    maps = [argument for argument in node.expressions if _is(argument, {exp.DType.MAP})]
    if not maps:
        return node
    alias = node.args.get("alias")
    names = [column.name for column in alias.columns] if alias is not None else []
    if len(node.expressions) != 1 or len(names) != 2 or node.args.get("offset"):
        raise not_supported("UNNEST of a map beside other arrays or WITH ORDINALITY", sql, _start(node))
    lists = (exp.Anonymous(this="map_keys", expressions=[maps[0].copy()]),
             exp.Anonymous(this="map_values", expressions=[maps[0].copy()]))
    select = exp.select(*(exp.alias_(exp.Unnest(expressions=[values]), name, quoted=True)
                          for values, name in zip(lists, names, strict=True)))
    return exp.Subquery(this=select, alias=exp.TableAlias(this=alias.this.copy()) if alias.this else None)


def rewrite(tree: exp.Expr, sql: str) -> exp.Expr:
    """The typed tree with Trino's computations written in DuckDB's means."""

    def step(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Format) or (isinstance(node, exp.Anonymous) and node.name.lower() == "format"):
            return _format(node, sql)
        if isinstance(node, exp.Div):
            return _divide(node)
        if isinstance(node, exp.Avg):
            return _avg(node)
        if isinstance(node, exp.ArraySize):
            return _cardinality(node)
        if isinstance(node, exp.Anonymous) and node.name.lower() == "to_iso8601":
            return _to_iso8601(node, sql)
        if isinstance(node, exp.RegexpReplace):
            return _regexp_replace(node, sql)
        if isinstance(node, exp.Unnest):
            return _unnest_map(node, sql)
        if isinstance(node, exp.Cast) and (_is(node.this, {exp.DType.JSON}) or any(
                part.this == exp.DType.JSON for part in node.to.find_all(exp.DataType))):
            return _json_cast(node, sql)
        return node

    return tree.transform(step, copy=False)


# --------------------------------------------------------------------------- DuckDB's text, or a refusal by name

def duckdb_sql(tree: exp.Expr, sql: str) -> str:
    """The tree as DuckDB SQL; what sqlglot says it cannot carry over refused by the function's name."""
    try:
        return tree.sql(dialect=DuckDB, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError:
        culprit = next((node for node in _deepest_first(tree) if isinstance(node, exp.Func) and _unsupported(node)),
                       None)
        name = trino_name(culprit) if culprit is not None else "this statement"
        raise not_supported(name, sql, _start(culprit) if culprit is not None else None) from None


def _unsupported(node: exp.Expr) -> bool:
    try:
        node.sql(dialect=DuckDB, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError:
        return True
    return False


def _deepest_first(tree: exp.Expr) -> Iterable[exp.Expr]:
    return reversed(list(tree.walk(bfs=True)))


def unknown_function(name: str, tree: exp.Expr, sql: str) -> TrinoRefusal:
    """DuckDB has no function of this (its) name: the Trino function the query called that became it, refused as
    not supported in the demo; a name Trino does not know either, Athena's FUNCTION_NOT_FOUND."""
    lowered = name.lower()
    for node in tree.walk():
        if not isinstance(node, exp.Func):
            continue
        called = trino_name(node)
        if called == lowered or node.sql(dialect=DuckDB).lower().startswith(f"{lowered}("):
            if called in TRINO_FUNCTIONS:
                return not_supported(called, sql, _start(node))
            return TrinoRefusal(f"FUNCTION_NOT_FOUND: {position(sql, _start(node))}Function '{called}' not "
                                "registered")
    if lowered in TRINO_FUNCTIONS:
        return not_supported(lowered, sql)
    return TrinoRefusal(f"FUNCTION_NOT_FOUND: Function '{lowered}' not registered")


_JSON_STANDARD = frozenset({"json_array", "json_object", "json_query", "json_value", "json_exists"})
"""Trino's SQL/JSON functions, whose clauses (FORMAT JSON, RETURNING, ON NULL, ...) sqlglot does not read."""


def syntax_refusal(sql: str, line: int, column: int) -> TrinoRefusal | None:
    """A statement sqlglot cannot read at ``line:column`` though Trino's grammar has it: inside a SQL/JSON
    function's clauses, or a ``type::function`` call. None: a syntax error as Athena would report it."""
    offset = sum(len(text) + 1 for text in sql.split("\n")[:line - 1]) + column - 1
    try:
        tokens = Athena().tokenize(sql)
    except Exception:  # the tokenizer's own refusal: the parser's error stands
        return None
    calls: list[str] = []
    for index, token in enumerate(tokens):
        if token.end >= offset:
            if index >= 2 and tokens[index - 1].text == "::":
                return not_supported(f"{tokens[index - 2].text}::{token.text}", sql, tokens[index - 2].start)
            break
        if token.text == "(":
            calls.append(tokens[index - 1].text.lower() if index else "")
        elif token.text == ")" and calls:
            calls.pop()
    inside = next((name for name in reversed(calls) if name in _JSON_STANDARD), None)
    return not_supported(f"{inside} with its SQL/JSON clauses", sql) if inside else None
