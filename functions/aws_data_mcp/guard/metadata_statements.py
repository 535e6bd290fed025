"""SHOW and DESCRIBE: only the metadata forms Athena documents, each read to its last token.

Why a grammar of our own: sqlglot keeps most SHOW forms as raw text. A keyword alone proves nothing
(`SHOW STATS FOR (INSERT ...)`). Why so plain: Athena runs these in its Hive-based DDL engine, whose
lexer is not Trino's. So a text is accepted only where both lexers split it alike. It holds no block
comment and no backslash.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from aws_data_mcp.guard.trino_lexer import RESERVED, Kind, Token

NAME_KINDS = frozenset({Kind.WORD, Kind.QUOTED, Kind.BACKQUOTED})
LITERAL_KINDS = frozenset({Kind.STRING, Kind.NUMBER})
FORMS = ("SHOW TABLES, SHOW DATABASES, SHOW SCHEMAS, SHOW VIEWS, SHOW COLUMNS, SHOW PARTITIONS, SHOW CREATE TABLE, "
         "SHOW CREATE VIEW, SHOW TBLPROPERTIES, SHOW FUNCTIONS, DESCRIBE, DESCRIBE VIEW")


class NotAMetadataRead(ValueError):
    """The statement is not one of the documented forms: `reason`, at the token `at` (None: at its end)."""

    def __init__(self, reason: str, at: Token | None) -> None:
        self.reason = reason
        self.at = at
        super().__init__(reason)


class _Reader:
    """A cursor over a statement's significant tokens; `catalogs` collects the catalog each name reads."""

    def __init__(self, words: list[Token]) -> None:
        self.words = words
        self.index = 0
        self.catalogs: list[Token] = []

    def peek(self) -> Token | None:
        return self.words[self.index] if self.index < len(self.words) else None

    def accept(self, *words: str) -> Token | None:
        token = self.peek()
        if token is not None and (token.is_word(*words) or token.is_symbol(*words)):
            self.index += 1
            return token
        return None

    def expect(self, *words: str) -> Token:
        token = self.accept(*words)
        if token is None:
            raise NotAMetadataRead(f"expected {' or '.join(words)}", self.peek())
        return token

    def literal(self, kinds: Collection[Kind] = LITERAL_KINDS) -> Token:
        token = self.peek()
        if token is None or token.kind not in kinds:
            raise NotAMetadataRead("expected a literal", token)
        self.index += 1
        return token

    def name(self, parts: int, catalog_at: int | None) -> list[Token]:
        """A name of 1 to `parts` dot-separated identifiers; with all `parts`, the one at `catalog_at` is a
        catalog (SHOW TABLES IN catalog.schema, DESCRIBE catalog.schema.table)."""
        found = [self._identifier()]
        while len(found) < parts and self.accept("."):
            found.append(self._identifier())
        if catalog_at is not None and len(found) == parts:
            self.catalogs.append(found[catalog_at])
        return found

    def _identifier(self) -> Token:
        token = self.peek()
        if token is None or token.kind not in NAME_KINDS:
            raise NotAMetadataRead("expected a name", token)
        if token.kind is Kind.WORD and token.upper in RESERVED:
            raise NotAMetadataRead(f"{token.upper} is a reserved word: quote it to use it as a name", token)
        self.index += 1
        return token

    def pattern(self, keyword_required: bool) -> None:
        """`LIKE 'pattern'` (Hive's SHOW TABLES also takes the bare string)."""
        if self.accept("LIKE"):
            self.literal({Kind.STRING})
            if self.accept("ESCAPE"):
                self.literal({Kind.STRING})
        elif not keyword_required and self.peek() is not None and self.peek().kind is Kind.STRING:
            self.index += 1

    def end(self) -> None:
        if self.peek() is not None:
            raise NotAMetadataRead("unexpected text after the statement", self.peek())


def _in_name(reader: _Reader, parts: int, catalog_at: int | None) -> None:
    if reader.accept("IN", "FROM"):
        reader.name(parts, catalog_at)


def _show_tables(reader: _Reader) -> None:
    _in_name(reader, 2, 0)
    reader.pattern(keyword_required=False)


def _show_databases(reader: _Reader) -> None:
    _in_name(reader, 1, 0)
    reader.pattern(keyword_required=True)


def _show_views(reader: _Reader) -> None:
    _in_name(reader, 2, 0)
    reader.pattern(keyword_required=True)


def _show_columns(reader: _Reader) -> None:
    reader.expect("IN", "FROM")
    if len(reader.name(3, 0)) == 1:
        _in_name(reader, 2, 0)


def _show_partitions(reader: _Reader) -> None:
    reader.name(3, 0)


def _show_create(reader: _Reader) -> None:
    reader.expect("TABLE", "VIEW")
    reader.name(3, 0)


def _show_tblproperties(reader: _Reader) -> None:
    reader.name(3, 0)
    if reader.accept("("):
        reader.literal({Kind.STRING})
        reader.expect(")")


def _show_functions(reader: _Reader) -> None:
    _in_name(reader, 2, 0)
    reader.pattern(keyword_required=True)


_SHOW: dict[str, Callable[[_Reader], None]] = {
    "TABLES": _show_tables, "DATABASES": _show_databases, "SCHEMAS": _show_databases, "VIEWS": _show_views,
    "COLUMNS": _show_columns, "PARTITIONS": _show_partitions, "CREATE": _show_create,
    "TBLPROPERTIES": _show_tblproperties, "FUNCTIONS": _show_functions,
}


_DESCRIBE_REFUSED = {
    "INPUT": "DESCRIBE INPUT describes a prepared statement, which this tool neither prepares nor runs",
    "OUTPUT": "DESCRIBE OUTPUT describes a prepared statement, which this tool neither prepares nor runs",
    "DATABASE": "DESCRIBE DATABASE is not a form Athena documents (SHOW DATABASES and athena://databases are)",
    "SCHEMA": "DESCRIBE SCHEMA is not a form Athena documents (SHOW SCHEMAS and athena://databases are)",
    "FUNCTION": "DESCRIBE FUNCTION is not a form Athena documents (SHOW FUNCTIONS is)",
    "FUNCTIONS": "DESCRIBE FUNCTIONS is not a form Athena documents (SHOW FUNCTIONS is)",
    "CATALOG": "DESCRIBE CATALOG is not a form Athena documents",
}
"""Words that, unquoted after DESCRIBE and followed by a name, make another statement than a table's description
(Trino reads `DESCRIBE INPUT p` as describeInput, Hive `DESCRIBE DATABASE d` as the database's): refused by name.
Alone, such a word is a table's name (`DESCRIBE input`), as both read it."""


def _describe(reader: _Reader) -> None:
    """DESCRIBE [EXTENDED | FORMATTED] [[catalog.]db.]table [PARTITION (key = value, ...)] [column[.field...]],
    or DESCRIBE VIEW [[catalog.]db.]view."""
    reader.accept("EXTENDED", "FORMATTED")
    what = reader.peek()
    following = reader.words[reader.index + 1] if reader.index + 1 < len(reader.words) else None
    if what is not None and what.kind is Kind.WORD and following is not None and not following.is_symbol("."):
        if what.upper in _DESCRIBE_REFUSED:
            raise NotAMetadataRead(_DESCRIBE_REFUSED[what.upper], what)
        if what.upper == "VIEW":
            reader.index += 1
            reader.name(3, 0)
            return
    reader.name(3, 0)
    if reader.accept("PARTITION"):
        reader.expect("(")
        while True:
            reader.name(1, None)
            reader.expect("=")
            reader.literal()
            if not reader.accept(","):
                break
        reader.expect(")")
    if reader.peek() is not None:
        reader.name(8, None)


def metadata_read(words: list[Token], hidden: list[Token]) -> tuple[str, list[Token]]:
    """The kind (SHOW or DESCRIBE) of a documented metadata statement and the catalog names it reads;
    `NotAMetadataRead` otherwise. `words` are its significant tokens, `hidden` its comments."""
    comment = next((token for token in hidden if token.kind is Kind.BLOCK_COMMENT), None)
    if comment is not None:
        raise NotAMetadataRead("a block comment in SHOW or DESCRIBE (Athena's DDL engine reads comments by other "
                               "rules; use -- comments)", comment)
    backslash = next((token for token in words if "\\" in token.text), None)
    if backslash is not None:
        raise NotAMetadataRead("a backslash in SHOW or DESCRIBE (Athena's DDL engine reads it as an escape)",
                               backslash)
    reader = _Reader(words)
    if reader.accept("DESCRIBE", "DESC"):
        _describe(reader)
        kind = "DESCRIBE"
    else:
        reader.expect("SHOW")
        what = reader.peek()
        form = _SHOW.get(what.upper) if what is not None and what.kind is Kind.WORD else None
        if form is None:
            raise NotAMetadataRead(f"SHOW {what.text if what else ''} is not one of the forms Athena documents "
                                   f"({FORMS})".replace("SHOW  ", "SHOW "), what)
        reader.index += 1
        form(reader)
        kind = "SHOW"
    reader.end()
    return kind, reader.catalogs
