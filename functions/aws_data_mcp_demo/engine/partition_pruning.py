"""Which partitions of a table a query must read, as Athena prunes them (demo and tests only).

A simple condition on a partition key rules partitions out where it holds for every row the read
gives. That is the WHERE, a join's ON, or a SELECT around a pass-through subquery (docs/demo.md).
Pruning only drops rows a condition excludes anyway. So it changes the bytes a query scans, never
its answer.
"""

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

Test = Callable[[tuple[str, ...]], bool]

_COMPARISONS: dict[type, Callable[[Any, Any], bool]] = {
    exp.EQ: operator.eq, exp.NEQ: operator.ne, exp.GT: operator.gt, exp.GTE: operator.ge,
    exp.LT: operator.lt, exp.LTE: operator.le,
}
_NUMERIC = ("int", "bigint", "smallint", "tinyint")


@dataclass(frozen=True)
class _Scope:
    """One SELECT the table's rows pass through: the source there that carries them, what that source is called,
    and which of its column names are which partition key (by position)."""

    select: exp.Select
    source: exp.Expression
    alias: str
    keys: dict[str, int]


def _from(select: exp.Select) -> exp.From | None:
    return select.args.get("from_") or select.args.get("from")


def _conjuncts(condition: exp.Expression | None) -> list[exp.Expression]:
    if condition is None:
        return []
    return list(condition.flatten()) if isinstance(condition, exp.And) else [condition]


def _applying(scope: _Scope) -> list[exp.Expression]:
    """The conjuncts every row of the scope's source must satisfy: its SELECT's WHERE and the ON of the joins that
    cannot keep a row failing them."""
    select = scope.select
    where = select.args.get("where")
    found = _conjuncts(where.this if where is not None else None)
    from_ = _from(select)
    sources = [from_.this if from_ is not None else None, *(join.this for join in select.args.get("joins") or [])]
    place = next((index for index, source in enumerate(sources) if source is scope.source), None)
    if place is None:
        return found
    for index, join in enumerate(select.args.get("joins") or [], start=1):
        side = (join.side or "").upper()
        applies = {"": place <= index, "LEFT": place == index, "RIGHT": place < index}.get(side, False)
        if applies and (join.kind or "").upper() not in ("CROSS", "ANTI", "SEMI"):
            found += _conjuncts(join.args.get("on"))
    return found


def _plain(select: exp.Select) -> bool:
    """A projection that passes its one source's rows through as they are."""
    blocking = ("group", "limit", "offset", "distinct", "having", "qualify", "fetch")
    return (not any(select.args.get(name) for name in blocking) and not select.args.get("joins")
            and not select.find(exp.Window)
            and not any(expression.find(exp.AggFunc) for expression in select.expressions))


def _passed_through(select: exp.Select, keys: dict[str, int]) -> dict[str, int]:
    """The names the SELECT gives the keys it projects unchanged."""
    names: dict[str, int] = {}
    for projection in select.expressions:
        if isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star):
            names.update(keys)
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Column) and inner.name.lower() in keys:
            names[projection.alias_or_name.lower()] = keys[inner.name.lower()]
    return names


def _outer(scope: _Scope) -> _Scope | None:
    """The scope around a plain subquery or WITH query (read once) that the table's rows pass through."""
    select = scope.select
    if not _plain(select) or isinstance(select.parent, exp.SetOperation):
        return None
    names = _passed_through(select, scope.keys)
    if not names:
        return None
    parent = select.parent
    if isinstance(parent, exp.Subquery) and isinstance(parent.parent, exp.From | exp.Join):
        outer = parent.find_ancestor(exp.Select)
        source: exp.Expression = parent
    elif isinstance(parent, exp.CTE):
        name = parent.alias_or_name.lower()
        uses = [table for table in select.root().find_all(exp.Table) if not table.db and table.name.lower() == name]
        if len(uses) != 1 or not isinstance(uses[0].parent, exp.From | exp.Join):
            return None
        outer, source = uses[0].find_ancestor(exp.Select), uses[0]
    else:
        return None
    if outer is None:
        return None
    return _Scope(outer, source, (source.alias_or_name or "").lower(), names)


def _tests(scope: _Scope, numeric: set[int]) -> list[Test]:
    from_ = _from(scope.select)
    sole = not scope.select.args.get("joins") and from_ is not None and from_.this is scope.source

    def key_of(node: exp.Expression) -> int | None:
        named = isinstance(node, exp.Column) and node.name.lower() in scope.keys
        if named and (node.table.lower() == scope.alias or (not node.table and sole)):
            return scope.keys[node.name.lower()]
        return None

    def literal(node: exp.Expression, index: int) -> Any:
        if not isinstance(node, exp.Literal):
            raise ValueError
        return int(node.this) if index in numeric else node.this

    def typed(values: tuple[str, ...], index: int) -> Any:
        return int(values[index]) if index in numeric else values[index]

    tests: list[Test] = []
    for condition in _applying(scope):
        try:
            if type(condition) in _COMPARISONS and (index := key_of(condition.this)) is not None:
                compare, value = _COMPARISONS[type(condition)], literal(condition.expression, index)
                tests.append(lambda values, i=index, c=compare, v=value: c(typed(values, i), v))
            elif isinstance(condition, exp.In) and condition.expressions and not condition.args.get("query") \
                    and not condition.args.get("unnest") and (index := key_of(condition.this)) is not None:
                allowed = {literal(item, index) for item in condition.expressions}
                tests.append(lambda values, i=index, a=allowed: typed(values, i) in a)
            elif isinstance(condition, exp.Between) and (index := key_of(condition.this)) is not None:
                low, high = literal(condition.args["low"], index), literal(condition.args["high"], index)
                tests.append(lambda values, i=index, lo=low, hi=high: lo <= typed(values, i) <= hi)
        except ValueError:  # not a plain literal: the partition is read, as Athena would without pruning
            continue
    return tests


def partition_filter(table: exp.Table, keys: list[dict[str, Any]]) -> Test:
    """A test of a partition's values: whether the query must read it."""
    select = table.find_ancestor(exp.Select)
    if select is None:
        return lambda _: True
    numeric = {index for index, key in enumerate(keys) if key["Type"].lower() in _NUMERIC}
    scope: _Scope | None = _Scope(select, table, (table.alias_or_name or "").lower(),
                                  {key["Name"].lower(): index for index, key in enumerate(keys)})
    tests: list[Test] = []
    while scope is not None:
        tests += _tests(scope, numeric)
        scope = _outer(scope)
    return lambda values: all(test(values) for test in tests)
