"""Where sqlglot's Trino parser is more lenient than Trino's grammar: trees Athena reads otherwise.

sqlglot reads on where Trino's parser stops. Examples: a SELECT of nothing, `*` as an operand, a
JOIN with no ON, a reserved word as a name. Athena fails to parse such a text. The guard's verdict
rests on reading a text as Athena does, so it refuses these. The differential against Trino's
grammar found them (tests/support/trino_grammar).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from aws_data_mcp.guard.trino_lexer import RESERVED, Kind, Token

_PLAINLY = "Check the statement against Athena's SQL (Trino) reference and write it plainly."


@dataclass(frozen=True)
class Lenient:
    message: str
    advice: str


def lenient_reading(tree: exp.Expression, words: list[Token]) -> Lenient | None:
    """The first place `tree` holds what Trino's grammar would not parse, or None."""
    joins, joined = sum(word.is_word("JOIN") for word in words), 0
    quoted = {word.name for word in words if word.kind in (Kind.QUOTED, Kind.BACKQUOTED)}
    for node in tree.walk():
        if isinstance(node, exp.Identifier) and node.quoted and node.name not in quoted:
            return Lenient(f"The SQL reads two ways: the guard's parser takes {node.sql('trino')[:40]} for a quoted "
                           "name where Athena reads a literal", _PLAINLY)
        if isinstance(node, exp.Identifier) and not node.quoted and node.name.upper() in RESERVED:
            return Lenient(f"{node.name.upper()} is a reserved word in Athena's SQL: it is a name only when quoted",
                           f'Quote it ("{node.name.lower()}") if it names a column or table.')
        if isinstance(node, exp.Version) and (str(node.args.get("kind") or "").upper() != "AS OF"
                                              or node.args.get("expression") is None):
            return Lenient("Time travel is FOR VERSION AS OF or FOR TIMESTAMP AS OF in Athena's SQL",
                           "Write e.g. FOR TIMESTAMP AS OF TIMESTAMP '2026-01-01 00:00:00'.")
        if isinstance(node, exp.Select) and not node.expressions:
            return Lenient("The SELECT selects nothing (Athena's SQL needs at least one item)", _PLAINLY)
        if isinstance(node, exp.Group) and not any(node.args.values()):
            return Lenient("GROUP BY with nothing to group by", _PLAINLY)
        if isinstance(node, exp.TableAlias) and any(not isinstance(column, exp.Identifier)
                                                    for column in node.args.get("columns") or ()):
            return Lenient("A relation's column aliases are names, not literals", _PLAINLY)
        fields = isinstance(node.parent, exp.Dot) and node.arg_key == "expression"  # `(row).*`: a row's fields
        if isinstance(node, exp.Star) and isinstance(node.parent, exp.Binary | exp.Limit | exp.Offset | exp.Unary) and (
                not fields):
            return Lenient("`*` stands where a value must (it selects all columns, or counts rows in count(*))",
                           _PLAINLY)
        if isinstance(node, exp.Join) and (node.args.get("on") is not None or node.args.get("using")
                                           or str(node.args.get("kind") or "").upper() == "CROSS"
                                           or node.args.get("method")):
            joined += 1
    if joined < joins:
        return Lenient("A JOIN without ON or USING (only CROSS JOIN and NATURAL JOIN take none)", _PLAINLY)
    return None
