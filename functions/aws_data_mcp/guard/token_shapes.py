"""What a statement's tokens alone show, whatever a parser's tree makes of them.

Why by tokens: a check over one library's node types misses the shapes it builds unlike Trino's
grammar. In that grammar a few tokens decide a function's catalog, time travel, `WITH FUNCTION` and
`WITH SESSION`. So they are decided here the same way (docs/queries.md, The read-only guard).
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_data_mcp.guard.trino_lexer import RESERVED, Kind, Token

NAME_KINDS = frozenset({Kind.WORD, Kind.QUOTED, Kind.BACKQUOTED, Kind.DIGIT_WORD})
TIME_TRAVEL = ("VERSION", "TIMESTAMP")
_PERIOD_LIKE = ("SYSTEM_TIME", "SYSTEM_VERSION", "VERSION", "TIMESTAMP", "BUSINESS_TIME", "APPLICATION_TIME")
_PERIOD_FOLLOWERS = ("AS", "BETWEEN", "FROM", "CONTAINED", "ALL")
_CLAUSES = ("FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "JOIN", "ON",
            "WINDOW", "OFFSET", "FETCH", "AS")
"""Words that end an expression: a `*` right before one has no right operand."""
_VALUE_WORDS = frozenset({"END", "NULL", "TRUE", "FALSE", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
                          "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_USER", "CURRENT_CATALOG", "CURRENT_SCHEMA",
                          "CURRENT_PATH", "CURRENT_ROLE"})
"""The reserved words a statement may end with (values, and END of CASE): any other leaves it unfinished."""
_OPERAND_ENDS = (Kind.WORD, Kind.QUOTED, Kind.BACKQUOTED, Kind.DIGIT_WORD, Kind.NUMBER, Kind.STRING,
                 Kind.UNICODE_STRING, Kind.BINARY)


@dataclass(frozen=True)
class Refusal:
    message: str
    advice: str
    at: Token
    policy: bool = False
    """Refused for what it reads or runs (not for how it is written): whatever any parser makes of the text."""


def refused_shape(words: list[Token]) -> Refusal | None:
    """The first shape in `words` (a statement's significant tokens) that the guard refuses by its tokens."""
    last = words[-1]
    if (last.kind is Kind.WORD and last.upper in RESERVED and last.upper not in _VALUE_WORDS) or (
            last.kind is Kind.SYMBOL and last.text not in (")", "]", "*", "?", "}")):
        return Refusal(f"The statement ends unfinished, at {last.text.upper()} (a comment may have hidden its end: "
                       "`--` runs to the end of the line)", "Send the whole statement.", last)
    limited = [False]  # per parenthesis depth: a LIMIT was read (Trino takes OFFSET before LIMIT only)
    for index, token in enumerate(words):
        if token.is_symbol("("):
            limited.append(False)
        elif token.is_symbol(")") and len(limited) > 1:
            limited.pop()
        elif token.is_word("LIMIT"):
            limited[-1] = True
        elif token.is_word("OFFSET") and limited[-1]:
            return Refusal("OFFSET after LIMIT: Athena's SQL takes OFFSET before LIMIT", "Write OFFSET n LIMIT m.",
                           token)
        if token.is_symbol("("):
            parts = _name_before(words, index)
            if len(parts) >= 3:
                named = ".".join(part.text for part in parts)
                return Refusal(f"A function named by its catalog ({named[:60]}) is refused, whatever follows the "
                               "call (FILTER, OVER, IGNORE NULLS, WITHIN GROUP...)",
                               "Call functions by their name alone (or schema.name): Athena's own functions need "
                               "no catalog.", parts[0], policy=True)
        elif token.is_word("WITHIN") and index + 1 < len(words) and words[index + 1].is_word("GROUP"):
            if not _after_listagg(words, index):
                return Refusal("WITHIN GROUP follows listagg(...) only in Athena's SQL",
                               "Order the values inside the call (e.g. array_agg(x ORDER BY y)).", token)
        elif token.is_word("FOR"):
            refusal = _time_travel(words, index)
            if refusal is not None:
                return refusal
        elif token.is_word("WITH") and index + 1 < len(words):
            refusal = _scoped(words, index)
            if refusal is not None:
                return refusal
        refusal = _dangling(words, index)
        if refusal is not None:
            return refusal
    return None


def _dangling(words: list[Token], index: int) -> Refusal | None:
    """Tokens sqlglot's parser drops where Trino's stops: `AS` naming nothing (`SELECT AS f(x)` is read as
    `SELECT f(x)`), a `*` after a value with no operand after it (`FROM t*` is read as `FROM t`)."""
    token, before, after = words[index], _following(words, index, -1) if index else None, _following(words, index, 1)
    if token.is_symbol(",") and after is not None and (after.is_symbol(")") or after.is_word(*_CLAUSES)):
        return Refusal("A `,` with nothing after it", "Drop the trailing comma.", token)
    if token.is_word("AS") and (before is None or before.is_word("SELECT", "DISTINCT", "ALL")
                                or before.is_symbol(",", "(") or after is None or after.is_symbol(",", ")", ";")
                                or after.is_word(*_CLAUSES)):
        return Refusal("AS with nothing to name, or no name after it", "Write `value AS name`, or drop AS.", token)
    if (token.is_symbol("*") and before is not None and (before.kind in _OPERAND_ENDS or before.is_symbol(")"))
            and not before.is_word("SELECT", "DISTINCT", "ALL")
            and (after is None or after.is_symbol(",", ";") or after.is_word(*_CLAUSES))):
        return Refusal("`*` after a value with nothing to multiply it by", "Write the statement plainly.", token)
    return None


def _after_listagg(words: list[Token], index: int) -> bool:
    """`words[index]` follows the `)` closing a `listagg(` call."""
    at, depth = index - 1, 0
    while at >= 0:
        if words[at].is_symbol(")"):
            depth += 1
        elif words[at].is_symbol("("):
            depth -= 1
            if depth == 0:
                return at >= 1 and words[at - 1].is_word("LISTAGG") and _name_before(words, at) == [words[at - 1]]
        if depth <= 0:
            return False
        at -= 1
    return False


def _name_before(words: list[Token], index: int) -> list[Token]:
    """The dotted name ending just before `words[index]` (`a.b.c` before `(`), empty if none."""
    parts: list[Token] = []
    at = index - 1
    while at >= 0 and words[at].kind in NAME_KINDS:
        parts.append(words[at])
        if at >= 1 and words[at - 1].is_symbol("."):
            at -= 2
        else:
            break
    return parts[::-1]


def _following(words: list[Token], index: int, offset: int) -> Token | None:
    return words[index + offset] if index + offset < len(words) else None


def _time_travel(words: list[Token], index: int) -> Refusal | None:
    period = _following(words, index, 1)
    then = _following(words, index, 2)
    if period is None or not period.is_word(*_PERIOD_LIKE) or then is None or not then.is_word(*_PERIOD_FOLLOWERS):
        return None
    after = _following(words, index, 3)
    if period.is_word(*TIME_TRAVEL) and then.is_word("AS") and after is not None and after.is_word("OF"):
        return None
    written = f"FOR {period.upper} {then.upper}" + (" OF" if after is not None and after.is_word("OF") else "")
    return Refusal(f"{written} is not time travel in Athena's SQL",
                   "Time travel is FOR VERSION AS OF or FOR TIMESTAMP AS OF, e.g. FOR TIMESTAMP AS OF "
                   "TIMESTAMP '2026-01-01 00:00:00'.", period)


def _scoped(words: list[Token], index: int) -> Refusal | None:
    what = words[index + 1]
    if not what.is_word("FUNCTION", "SESSION"):
        return None
    end = index + 2
    while end < len(words) and words[end].kind in NAME_KINDS and not words[end].is_word(*RESERVED):
        if _following(words, end, 1) is not None and words[end + 1].is_symbol("."):
            end += 2
        else:
            end += 1
            break
    follower = _following(words, end, 0)
    if end == index + 2 or follower is None:
        return None
    if what.is_word("FUNCTION") and follower.is_symbol("("):
        return Refusal("WITH FUNCTION (an inline function) is refused: it runs code of the caller's own",
                       "Use Athena's built-in functions, or a function your administrators registered.", what,
                       policy=True)
    if what.is_word("SESSION") and follower.is_symbol("="):
        return Refusal("WITH SESSION is refused: it changes session properties for the query",
                       "Send the query alone: the workgroup's settings apply.", what, policy=True)
    return None
