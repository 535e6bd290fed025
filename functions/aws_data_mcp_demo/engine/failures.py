"""A query's failure as Athena reports it, with the line and column of the text it points at.

A leaf of the engine: the query, Iceberg and projection modules all fail this way.
"""

from __future__ import annotations

from sqlglot import exp


class QueryFailure(Exception):
    """The query failed as Athena reports it: the message (``ERROR_NAME: line L:C: ...``), category, type."""

    def __init__(self, message: str, error_type: int, category: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type
        self.category = category


def position(sql: str, node: exp.Expression) -> str:
    """Athena's ``line L:C`` of where a node starts in the submitted text."""
    start = node.meta.get("start") if node.meta else None
    if start is None:
        return ""
    line = sql.count("\n", 0, start) + 1
    column = start - (sql.rfind("\n", 0, start) + 1) + 1
    return f"line {line}:{column}: "


def first_identifier(node: exp.Expression) -> exp.Expression:
    return next((part for part in node.parts if part.meta), node) if isinstance(node, exp.Column | exp.Table) else node
