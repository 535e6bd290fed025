"""SQL text split into tokens exactly where Athena's engine (Trino) splits it, or refused.

Why a lexer of our own: the guard's verdict is only worth its reading of the text. sqlglot re-reads
a text its Trino tokenizer rejects with Hive's rules. There comments nest, so a write could hide in
one. This module follows Trino's `SqlBase.g4` lexer rules, nothing more lenient. Where it is
stricter, it refuses with the line and column (fail closed). docs/queries.md lists the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    WORD = "word"
    """An unquoted identifier or keyword: Trino does not tell them apart in the lexer."""
    QUOTED = "quoted identifier"
    BACKQUOTED = "backquoted identifier"
    STRING = "string"
    UNICODE_STRING = "unicode string"
    BINARY = "binary literal"
    NUMBER = "number"
    DIGIT_WORD = "identifier starting with a digit"
    SYMBOL = "symbol"
    LINE_COMMENT = "line comment"
    BLOCK_COMMENT = "block comment"
    SPACE = "whitespace"


HIDDEN = frozenset({Kind.LINE_COMMENT, Kind.BLOCK_COMMENT, Kind.SPACE})

RESERVED = frozenset({
    "ALTER", "AND", "AS", "BETWEEN", "BY", "CASE", "CAST", "CONSTRAINT", "CREATE", "CROSS", "CUBE",
    "CURRENT_CATALOG", "CURRENT_DATE", "CURRENT_PATH", "CURRENT_ROLE", "CURRENT_SCHEMA", "CURRENT_TIME",
    "CURRENT_TIMESTAMP", "CURRENT_USER", "DEALLOCATE", "DELETE", "DESCRIBE", "DISTINCT", "DROP", "ELSE", "END",
    "ESCAPE", "EXCEPT", "EXECUTE", "EXISTS", "EXTRACT", "FALSE", "FOR", "FROM", "FULL", "GROUP", "GROUPING",
    "HAVING", "IN", "INNER", "INSERT", "INTERSECT", "INTO", "IS", "JOIN", "JSON_ARRAY", "JSON_EXISTS",
    "JSON_OBJECT", "JSON_QUERY", "JSON_TABLE", "JSON_VALUE", "LEFT", "LIKE", "LISTAGG", "LOCALTIME",
    "LOCALTIMESTAMP", "NATURAL", "NORMALIZE", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER", "PREPARE", "RECURSIVE",
    "RIGHT", "ROLLUP", "SELECT", "SKIP", "TABLE", "THEN", "TRIM", "TRUE", "UESCAPE", "UNION", "UNNEST", "USING",
    "VALUES", "WHEN", "WHERE", "WITH",
})
"""Trino's reserved words: never a name unless quoted (`"order"`), so Trino does not parse a text using one so."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str
    start: int
    """Offset of the first character in the statement's text."""

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def upper(self) -> str:
        return self.text.upper()

    @property
    def name(self) -> str:
        """The identifier it names: a word upper-cased as Trino folds it for keywords, a quoted one unescaped."""
        if self.kind is Kind.QUOTED:
            return self.text[1:-1].replace('""', '"')
        if self.kind is Kind.BACKQUOTED:
            return self.text[1:-1].replace("``", "`")
        return self.text

    def is_word(self, *words: str) -> bool:
        return self.kind is Kind.WORD and self.upper in words

    def is_symbol(self, *symbols: str) -> bool:
        return self.kind is Kind.SYMBOL and self.text in symbols


class TooManyTokens(ValueError):
    """The text holds more significant tokens than the guard reads (`most`): refused before anything parses it."""

    def __init__(self, most: int) -> None:
        self.most = most
        super().__init__(f"more than {most:,} tokens")


class LexError(ValueError):
    """The text cannot be read as Trino reads it: `reason` at `line`:`column` (both from 1)."""

    def __init__(self, reason: str, text: str, offset: int) -> None:
        self.reason = reason
        self.line, self.column = position(text, offset)
        super().__init__(f"{reason} at line {self.line}, column {self.column}")


def position(text: str, offset: int) -> tuple[int, int]:
    """Line and column (from 1) of `offset`, lines ending at LF, CR LF or CR as Trino counts them."""
    before = text[:offset].replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n") + 1
    return line, len(before) - before.rfind("\n")


_FLAGS = re.ASCII | re.IGNORECASE
"""Trino's grammar is case-insensitive over ASCII letters only: the long s (U+017F) and the Kelvin sign (U+212A)
are no `S` or `K` to it."""

_DECIMAL = r"[0-9](?:_?[0-9])*"


def _rule(kind: Kind, pattern: str, flags: int = 0) -> tuple[Kind, re.Pattern[str]]:
    return kind, re.compile(pattern, _FLAGS | flags)


# Trino's lexer rules, each list in the grammar's order: on a tie in length the earlier rule wins, as in ANTLR.
_STRING = _rule(Kind.STRING, r"'(?:[^']|'')*'")
_UNICODE_STRING = _rule(Kind.UNICODE_STRING, r"U&'(?:[^']|'')*'")
_BINARY = _rule(Kind.BINARY, r"X'[^']*'")
_INTEGER = _rule(Kind.NUMBER, rf"0X(?:_?[0-9A-F])+|0O(?:_?[0-7])+|0B(?:_?[01])+|{_DECIMAL}")
_DECIMAL_VALUE = _rule(Kind.NUMBER, rf"{_DECIMAL}\.(?:{_DECIMAL})?|\.{_DECIMAL}")
_DOUBLE = _rule(Kind.NUMBER, r"[0-9]+(?:\.[0-9]*)?E[+-]?[0-9]+|\.[0-9]+E[+-]?[0-9]+")
_WORD = _rule(Kind.WORD, r"[A-Z_][A-Z0-9_]*")
_DIGIT_WORD = _rule(Kind.DIGIT_WORD, r"[0-9][A-Z0-9_]+")
_QUOTED = _rule(Kind.QUOTED, r'"(?:[^"]|"")*"')
_BACKQUOTED = _rule(Kind.BACKQUOTED, r"`(?:[^`]|``)*`")
_LINE_COMMENT = _rule(Kind.LINE_COMMENT, r"--[^\r\n]*\r?\n?")
_BLOCK_COMMENT = _rule(Kind.BLOCK_COMMENT, r"/\*.*?\*/", re.DOTALL)
_SPACE = _rule(Kind.SPACE, r"[ \t\r\n]+")
_SYMBOL = _rule(Kind.SYMBOL, r"<>|!=|<=|>=|\|\||->|=>|\{-|-\}|[=<>+\-*/%?;(),.\[\]{}|^$:]")

_BY_FIRST_CHARACTER: dict[str, tuple[tuple[Kind, re.Pattern[str]], ...]] = {
    "'": (_STRING,), '"': (_QUOTED,), "`": (_BACKQUOTED,),
    "-": (_LINE_COMMENT, _SYMBOL), "/": (_BLOCK_COMMENT, _SYMBOL), ".": (_DECIMAL_VALUE, _DOUBLE, _SYMBOL),
    **dict.fromkeys(" \t\r\n", (_SPACE,)),
    **dict.fromkeys("0123456789", (_INTEGER, _DECIMAL_VALUE, _DOUBLE, _DIGIT_WORD)),
    **dict.fromkeys("Uu", (_UNICODE_STRING, _WORD)),
    **dict.fromkeys("Xx", (_BINARY, _WORD)),
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTVWYZabcdefghijklmnopqrstvwyz_", (_WORD,)),
}
"""The rules that can match at a character (any other character can only be a symbol)."""

_OPENERS = {"'": "string", '"': "quoted identifier", "`": "backquoted identifier", "/*": "block comment"}


def tokens(text: str, most: int | None = None) -> list[Token]:
    """Every token of `text`, hidden ones (whitespace, comments) included, in order; `LexError` if Trino could not
    read it the same way; `TooManyTokens` as soon as it holds more than `most` significant ones (so a huge text
    costs no more to refuse than `most` tokens do)."""
    found: list[Token] = []
    offset, size, significant_count = 0, len(text), 0
    while offset < size:
        best: tuple[Kind, int] | None = None
        for kind, rule in _BY_FIRST_CHARACTER.get(text[offset], (_SYMBOL,)):
            match = rule.match(text, offset)
            if match and (best is None or match.end() > best[1]):
                best = (kind, match.end())
        # An unclosed `/*` is `/` then `*` to Trino; refused here rather than read on as code.
        if best is None or (best[0] is Kind.SYMBOL and text.startswith("/*", offset)):
            raise LexError(_unreadable(text, offset), text, offset)
        kind, end = best
        token = Token(kind, text[offset:end], offset)
        _check(token, text)
        found.append(token)
        offset = end
        if kind not in HIDDEN:
            significant_count += 1
            if most is not None and significant_count > most:
                raise TooManyTokens(most)
    return found


def _check(token: Token, text: str) -> None:
    if token.kind in (Kind.QUOTED, Kind.BACKQUOTED) and len(token.text) == 2:
        raise LexError("A zero-length quoted identifier is not allowed", text, token.start)
    if token.kind is Kind.BLOCK_COMMENT and "/*" in token.text[2:-2]:
        raise LexError("A block comment holds another '/*': Trino ends it at the first '*/' but a reader that nests "
                       "comments does not, so the text is refused", text, token.start + 2 + token.text[2:-2].find("/*"))
    if token.kind is Kind.BINARY and not re.fullmatch(r"(?:[ \t\r\n]*[0-9A-Fa-f][ \t\r\n]*[0-9A-Fa-f])*[ \t\r\n]*",
                                                       token.text[2:-1]):
        raise LexError("A binary literal X'..' holds other than pairs of hexadecimal digits", text, token.start)


def _unreadable(text: str, offset: int) -> str:
    for opener, what in _OPENERS.items():
        if text.startswith(opener, offset):
            return f"Unterminated {what}"
    char = text[offset]
    if char in "\u2028\u2029\x0b\x0c\x85\xa0" or (char.isspace() and char not in " \t\r\n"):
        return f"Character U+{ord(char):04X} is not whitespace to Athena (only space, tab, CR and LF are)"
    return f"Character {char!r} (U+{ord(char):04X}) is not part of Athena's SQL outside a string or quoted identifier"


def significant(found: list[Token]) -> list[Token]:
    """The tokens Trino's parser sees: everything but whitespace and comments."""
    return [token for token in found if token.kind not in HIDDEN]
