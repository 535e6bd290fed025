"""An independent reading of SQL text as Trino (Athena's engine) lexes it, to judge the query tool's guard by.

Written for the tests from the lexer rules of Trino's grammar (`SqlBase.g4`), sharing nothing with the guard: a
character-by-character scanner, no regular expressions. What it follows, rule by rule:
- the longest match wins and a tie goes to the rule written first; a rule that cannot finish falls back to the
  longest prefix some rule accepts (ANTLR's lexer), so an unclosed `'` is one unrecognised character and an unclosed
  `/*` is the symbols `/` and `*`;
- block comments never nest: `/* ... */` ends at the first `*/`;
- a line comment `--` ends at CR or LF only (taking one optional CR then one optional LF);
- strings `'..'` and `U&'..'` double their quote to escape it, with no backslash escapes; `X'..'` holds any character
  but a quote; quoted identifiers `".."` and backquoted ones double their quote;
- whitespace is space, tab, CR and LF only; letters are ASCII only; any other character outside a literal, a comment
  or an identifier is unrecognised (U+2028, NBSP, form feed...), which Trino's parser refuses.

On top of the tokens it reads statements as far as the guard's promise needs: the text splits at every `;`, the first
significant token gives a statement's kind, and a few token shapes mark a write or an external data source.
"""

from __future__ import annotations

from dataclasses import dataclass

SPACE, COMMENT = "space", "comment"
WORD, DIGIT_WORD, QUOTED, BACKQUOTED = "word", "digit word", "quoted", "backquoted"
STRING, UNICODE, BINARY, NUMBER = "string", "unicode string", "binary", "number"
SYMBOL, UNRECOGNISED = "symbol", "unrecognised"
NAMES = frozenset({WORD, DIGIT_WORD, QUOTED, BACKQUOTED})

_WHITESPACE = " \t\r\n"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_PAIRS = ("<>", "!=", "<=", ">=", "||", "->", "=>", "{-", "-}")
_SINGLES = "=<>+-*/%?;(),.[]{}|^$:"

QUERY, METADATA, EXPLAIN, OTHER = "query", "metadata", "explain", "other"
_QUERY_STARTS = {"SELECT", "WITH", "VALUES"}
_METADATA_STARTS = {"SHOW", "DESCRIBE", "DESC"}
WRITES = frozenset({
    "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "UNLOAD", "MSCK", "GRANT", "REVOKE",
    "DENY", "CALL", "VACUUM", "OPTIMIZE", "REFRESH", "COMMENT", "ANALYZE", "SET", "RESET", "USE", "PREPARE", "EXECUTE",
    "DEALLOCATE", "START", "COMMIT", "ROLLBACK", "USING", "LOAD",
})
"""Words that, beginning a statement, make it change data, metadata, permissions or session state (or run a stored
statement, or an external function)."""
_CLAUSE_ENDS = {"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FETCH", "WINDOW", "UNION", "INTERSECT",
                "EXCEPT"}
"""Words after which a `,` no longer separates the relations of a FROM clause (a join's ON or USING does not end it:
`FROM a JOIN b ON a.k = b.k, c` reads three relations)."""
_GLUE = "awsdatacatalog"
_METADATA_NAMES: dict[tuple[str, ...], int] = {
    ("SHOW", "TABLES"): 2, ("SHOW", "VIEWS"): 2, ("SHOW", "FUNCTIONS"): 2, ("SHOW", "SCHEMAS"): 1,
    ("SHOW", "DATABASES"): 1, ("SHOW", "COLUMNS"): 3,
}
"""SHOW forms naming a schema or table after IN / FROM: a name of this many parts starts with its catalog."""
_METADATA_TABLES = {("SHOW", "PARTITIONS"), ("SHOW", "CREATE", "TABLE"), ("SHOW", "CREATE", "VIEW"),
                    ("SHOW", "TBLPROPERTIES"), ("DESCRIBE",), ("DESC",), ("DESCRIBE", "EXTENDED"),
                    ("DESCRIBE", "FORMATTED")}
"""Metadata forms followed by a table's name: with three parts, the first is its catalog."""


@dataclass(frozen=True)
class Lexeme:
    kind: str
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == WORD else ""

    @property
    def identifier(self) -> str:
        """The name an identifier token stands for (quotes removed, doubled quotes undone)."""
        if self.kind in (QUOTED, BACKQUOTED):
            quote = self.text[0]
            return self.text[1:-1].replace(quote * 2, quote)
        return self.text


def lex(text: str) -> list[Lexeme]:
    """Every token of `text`, comments and whitespace included, as Trino's lexer splits it."""
    found: list[Lexeme] = []
    start = 0
    while start < len(text):
        kind, end = _token_at(text, start)
        found.append(Lexeme(kind, text[start:end]))
        start = end
    return found


def _token_at(text: str, at: int) -> tuple[str, int]:
    char, following = text[at], text[at + 1:at + 2]
    if char in _WHITESPACE:
        end = at
        while end < len(text) and text[end] in _WHITESPACE:
            end += 1
        return SPACE, end
    if char == "-" and following == "-":
        return COMMENT, _line_comment_end(text, at + 2)
    if char == "/" and following == "*":
        end = _block_comment_end(text, at + 2)
        if end is not None:
            return COMMENT, end
    if char in "'\"`":
        end = _quoted_end(text, at + 1, char)
        kinds = {"'": STRING, '"': QUOTED, "`": BACKQUOTED}
        return (kinds[char], end) if end is not None else (UNRECOGNISED, at + 1)
    if char in "uU" and text[at + 1:at + 3] == "&'":
        end = _quoted_end(text, at + 3, "'")
        if end is not None:
            return UNICODE, end
    if char in "xX" and following == "'":
        close = text.find("'", at + 2)
        if close >= 0:
            return BINARY, close + 1
    if char in _LETTERS or char == "_":
        return WORD, _word_end(text, at)
    if char in _DIGITS or (char == "." and following != "" and following in _DIGITS):
        return _number(text, at)
    if text[at:at + 2] in _PAIRS:
        return SYMBOL, at + 2
    if char in _SINGLES:
        return SYMBOL, at + 1
    return UNRECOGNISED, at + 1


def _line_comment_end(text: str, at: int) -> int:
    end = at
    while end < len(text) and text[end] not in "\r\n":
        end += 1
    if text[end:end + 1] == "\r":
        end += 1
    if text[end:end + 1] == "\n":
        end += 1
    return end


def _block_comment_end(text: str, at: int) -> int | None:
    """Just past the first `*/` from `at`; None when the comment never closes."""
    position = at
    while position + 1 < len(text):
        if text[position] == "*" and text[position + 1] == "/":
            return position + 2
        position += 1
    return None


def _quoted_end(text: str, at: int, quote: str) -> int | None:
    """Just past the closing `quote` of a body starting at `at` (a doubled quote is one quote of the body). At the
    end of the text without a close, the longest literal the lexer could accept: up to the last quote seen."""
    accepted: int | None = None
    position = at
    while position < len(text):
        if text[position] == quote:
            accepted = position + 1
            if text[position + 1:position + 2] != quote:
                return accepted
            position += 2
        else:
            position += 1
    return accepted


def _word_end(text: str, at: int) -> int:
    end = at
    while end < len(text) and (text[end] in _LETTERS or text[end] in _DIGITS or text[end] == "_"):
        end += 1
    return end


def _digits(text: str, at: int, allowed: str, underscores: bool) -> int:
    """End of a run of `allowed` characters from `at` (single `_` between them if `underscores`); `at` if none."""
    end = at
    while end < len(text):
        if text[end] in allowed:
            end += 1
        elif underscores and text[end] == "_" and end > at and text[end + 1:end + 2] != "" \
                and text[end + 1] in allowed:
            end += 2
        else:
            break
    return end


def _number(text: str, at: int) -> tuple[str, int]:
    """INTEGER_VALUE, DECIMAL_VALUE, DOUBLE_VALUE or DIGIT_IDENTIFIER at `at`: the longest, the first on a tie."""
    candidates: list[tuple[int, str]] = []
    if text[at] != ".":
        integer = _digits(text, at, _DIGITS, underscores=True)
        prefix = text[at:at + 2].upper()
        for radix, allowed in (("0X", _DIGITS + "ABCDEFabcdef"), ("0O", "01234567"), ("0B", "01")):
            if prefix == radix:
                body = at + 2
                if text[body:body + 1] == "_":
                    body += 1
                end = _digits(text, body, allowed, underscores=True)
                if end > body:
                    integer = max(integer, end)
        candidates.append((integer, NUMBER))
        plain = _digits(text, at, _DIGITS, underscores=False)
        decimal_integer = _digits(text, at, _DIGITS, underscores=True)
        if text[decimal_integer:decimal_integer + 1] == ".":
            candidates.append((_digits(text, decimal_integer + 1, _DIGITS, underscores=True), NUMBER))
        mantissa = plain
        if text[plain:plain + 1] == ".":
            mantissa = _digits(text, plain + 1, _DIGITS, underscores=False)
        candidates.append((_exponent_end(text, mantissa) or 0, NUMBER))
        candidates.append((_word_end(text, at), DIGIT_WORD))
        candidates = [(end, kind) for end, kind in candidates if kind != DIGIT_WORD or end - at >= 2]
    else:
        fraction = _digits(text, at + 1, _DIGITS, underscores=True)
        candidates.append((fraction, NUMBER))
        candidates.append((_exponent_end(text, _digits(text, at + 1, _DIGITS, underscores=False)) or 0, NUMBER))
    longest = max(end for end, _ in candidates)
    kind = next(kind for end, kind in candidates if end == longest)
    return kind, longest


def _exponent_end(text: str, at: int) -> int | None:
    if text[at:at + 1] not in ("e", "E"):
        return None
    position = at + 1
    if text[position:position + 1] in ("+", "-"):
        position += 1
    end = _digits(text, position, _DIGITS, underscores=False)
    return end if end > position else None


# ----------------------------------------------------------------------------------------------- statements

@dataclass(frozen=True)
class Statement:
    """One statement as Trino would receive it, judged by its tokens."""

    kind: str
    """query, metadata, explain or other, by the first significant token."""
    explained: str | None = None
    """For an EXPLAIN, the kind of the statement it explains."""
    writes: tuple[str, ...] = ()
    """Why the statement writes (or changes state), if it does."""
    external: tuple[str, ...] = ()
    """The data sources outside the Glue catalog it reads (Lambda, table functions, other catalogs)."""
    unrecognised: tuple[str, ...] = ()
    """Characters Trino's lexer does not know: the statement would not parse."""


@dataclass(frozen=True)
class Reading:
    text: str
    statements: tuple[Statement, ...]

    def problems(self) -> list[str]:
        """Why running this text would not be one plain read of the Glue catalog (empty: it would be)."""
        if len(self.statements) != 1:
            return [f"{len(self.statements)} statements"]
        statement = self.statements[0]
        found = [f"writes: {why}" for why in statement.writes]
        found += [f"external source: {what}" for what in statement.external]
        found += [f"unrecognised character {char!r}" for char in statement.unrecognised]
        allowed = statement.kind in (QUERY, METADATA) or (
            statement.kind == EXPLAIN and statement.explained in (QUERY, METADATA))
        if not allowed:
            found.append(f"kind {statement.kind}" + (f" of {statement.explained}" if statement.explained else ""))
        return found

    @property
    def writes(self) -> bool:
        return any(statement.writes for statement in self.statements)


def read(text: str) -> Reading:
    """`text` split into its non-empty statements (at every `;` Trino's lexer sees), each judged."""
    groups: list[list[Lexeme]] = [[]]
    for token in lex(text):
        if token.kind in (SPACE, COMMENT):
            continue
        if token.kind == SYMBOL and token.text == ";":
            groups.append([])
        else:
            groups[-1].append(token)
    return Reading(text, tuple(_statement(group) for group in groups if group))


def _statement(tokens: list[Lexeme]) -> Statement:
    kind, explained, body = _kind(tokens)
    writes = [" ".join(token.text for token in tokens[:2])] if tokens[0].upper in WRITES else []
    writes += _nested_writes(tokens)
    external = _external(tokens)
    if kind == EXPLAIN and body:
        inner = _statement(body)
        writes += [f"EXPLAIN of {why}" for why in inner.writes]
        external += inner.external
    return Statement(kind, explained, tuple(dict.fromkeys(writes)), tuple(dict.fromkeys(external)),
                     tuple(token.text for token in tokens if token.kind == UNRECOGNISED))


def _kind(tokens: list[Lexeme]) -> tuple[str, str | None, list[Lexeme]]:
    """The statement's kind, the kind it explains, and the tokens of the statement it is (or explains)."""
    first = tokens[0]
    if first.upper in _QUERY_STARTS or (first.kind == SYMBOL and first.text == "("):
        return QUERY, None, tokens
    if first.upper in _METADATA_STARTS:
        return METADATA, None, tokens
    if first.upper != "EXPLAIN":
        return OTHER, None, tokens
    rest = tokens[1:]
    if rest and rest[0].upper == "ANALYZE":
        after = rest[2:] if len(rest) > 1 and rest[1].upper == "VERBOSE" else rest[1:]
        # EXPLAIN ANALYZE t is the explanation of the statement ANALYZE t (which computes statistics).
        starts = _QUERY_STARTS | _METADATA_STARTS | WRITES | {"EXPLAIN"}
        rest = after if after and (after[0].upper in starts or after[0].text == "(") else rest
    elif len(rest) > 1 and rest[0].text == "(" and rest[1].upper in ("FORMAT", "TYPE"):
        depth = 0
        for index, token in enumerate(rest):
            depth += (token.text == "(") - (token.text == ")") if token.kind == SYMBOL else 0
            if depth == 0:
                rest = rest[index + 1:]
                break
        else:
            rest = []
    if not rest:
        return EXPLAIN, None, rest
    explained, _, _ = _kind(rest)
    return EXPLAIN, explained, rest


def _nested_writes(tokens: list[Lexeme]) -> list[str]:
    """Writes past the statement's first word: `WITH x AS (INSERT ...)`, `SHOW STATS FOR (DELETE ...)`,
    `WITH x AS (SELECT 1) INSERT INTO t ...`, `SELECT 1 DELETE FROM t`. Trino's grammar allows none of them (the words
    are reserved), so they are errors to Trino, but a reader that takes a reserved word for a name may read on."""
    found = []
    for index in range(1, len(tokens)):
        before = tokens[index - 1]
        after_parenthesis = before.kind == SYMBOL and before.text in "()"
        reserved = _reserved_write(tokens, index) and before.text != "." and before.upper != "SHOW"
        if reserved or (after_parenthesis and _write_shape(tokens, index)):
            found.append(f"{tokens[index].upper} ...")
    return found


def _reserved_write(tokens: list[Lexeme], at: int) -> bool:
    """A write begun by reserved words (never a name in Trino, so never part of a read)."""
    word = tokens[at].upper
    following = tokens[at + 1] if at + 1 < len(tokens) else Lexeme(SPACE, "")
    if word in ("CREATE", "DROP", "ALTER"):
        return following.kind == WORD
    shapes = {"INSERT": ("INTO", "OVERWRITE"), "MERGE": ("INTO",), "DELETE": ("FROM",), "TRUNCATE": ("TABLE",)}
    return following.upper in shapes.get(word, ())


def _write_shape(tokens: list[Lexeme], at: int) -> bool:
    """A write begun by reserved words, or by words that may also be names (where a statement could begin)."""
    word = tokens[at].upper
    following = tokens[at + 1] if at + 1 < len(tokens) else Lexeme(SPACE, "")
    if word == "MSCK":
        return following.upper == "REPAIR"
    if word == "UNLOAD":
        return following.kind == SYMBOL and following.text == "("
    if word == "UPDATE":
        end = _name_end(tokens, at + 1)
        return at + 1 < end < len(tokens) and tokens[end].upper == "SET"
    return _reserved_write(tokens, at)


def _name_end(tokens: list[Lexeme], at: int) -> int:
    """Index just past a dotted name starting at `at` (`at` itself if there is none)."""
    if at >= len(tokens) or tokens[at].kind not in NAMES:
        return at
    end = at + 1
    while end + 1 < len(tokens) and tokens[end].text == "." and tokens[end + 1].kind in NAMES:
        end += 2
    return end


def _name_parts(tokens: list[Lexeme], at: int) -> list[str]:
    return [token.identifier for token in tokens[at:_name_end(tokens, at):2]]


def _external(tokens: list[Lexeme]) -> list[str]:
    found: list[str] = []
    if tokens[0].upper == "USING":
        found.append("USING (an external function)")
    for index, token in enumerate(tokens):
        if token.kind in (QUOTED, BACKQUOTED) and token.identifier.lower().startswith("lambda:"):
            found.append(f"Lambda connector {token.text}")
        if token.upper == "TABLE" and index + 1 < len(tokens) and tokens[index + 1].text == "(":
            found.append("table function TABLE(...)")
    for at in _relation_positions(tokens):
        parts = _name_parts(tokens, at)
        if len(parts) >= 3 and parts[0].lower() != _GLUE:
            found.append(f"catalog {parts[0]}")
    if tokens[0].upper in _METADATA_STARTS:
        found += _metadata_catalogs(tokens)
    return found


def _relation_positions(tokens: list[Lexeme]) -> list[int]:
    """Where a relation may begin: after the FROM of a SELECT (not the FROM of `EXTRACT(x FROM y)`, `SUBSTRING`,
    `TRIM` or `IS DISTINCT FROM`, which takes a value), after JOIN, after a `,` of a FROM clause, after a `(` at such
    a place, and after TABLE (the query `TABLE name`, which may stand in any parenthesised query)."""
    positions: list[int] = []
    selects, in_from = [False], [False]  # per parenthesis depth: a SELECT began here; its FROM clause is open
    for index, token in enumerate(tokens):
        previous = tokens[index - 1].upper if index else ""
        if token.kind == SYMBOL and token.text == "(":
            if index in positions:
                positions.append(index + 1)
            selects.append(False)
            in_from.append(False)
        elif token.kind == SYMBOL and token.text == ")":
            if len(in_from) > 1:
                selects.pop()
                in_from.pop()
        elif token.upper == "SELECT":
            selects[-1], in_from[-1] = True, False
        elif token.upper == "FROM" and selects[-1] and previous != "DISTINCT":
            in_from[-1] = True
            positions.append(index + 1)
        elif token.upper == "JOIN" or token.upper == "TABLE":
            positions.append(index + 1)
        elif token.upper in _CLAUSE_ENDS:
            in_from[-1] = False
        elif token.kind == SYMBOL and token.text == "," and in_from[-1]:
            positions.append(index + 1)
    return positions


def _metadata_catalogs(tokens: list[Lexeme]) -> list[str]:
    """The catalog a SHOW or DESCRIBE names, other than the Glue catalog."""
    words = [token.upper for token in tokens]
    found: list[str] = []
    for form, parts in _METADATA_NAMES.items():
        if tuple(words[:len(form)]) == form and len(words) > len(form) and words[len(form)] in ("IN", "FROM"):
            named = _name_parts(tokens, len(form) + 1)
            if len(named) == parts and named[0].lower() != _GLUE:
                found.append(f"catalog {named[0]}")
            # SHOW COLUMNS IN table FROM catalog.schema
            after = len(form) + 2 * len(named)
            if form == ("SHOW", "COLUMNS") and len(words) > after and words[after] in ("IN", "FROM"):
                schema = _name_parts(tokens, after + 1)
                if len(schema) == 2 and schema[0].lower() != _GLUE:
                    found.append(f"catalog {schema[0]}")
    for form in _METADATA_TABLES:
        if tuple(words[:len(form)]) == form:
            named = _name_parts(tokens, len(form))
            if len(named) >= 3 and named[0].lower() != _GLUE:
                found.append(f"catalog {named[0]}")
    return found
