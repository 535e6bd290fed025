"""What Lake Formation lets one caller read of one table, from the grants it can see: grants on the table or its
columns, grants on a data cells filter of the table (its columns, and the rows its filter lets through), and grants
on an LF-tag expression that the table's effective tags match (database tags inherited by the table, table tags
overridden per column, as Lake Formation documents them).

Pure functions of the answers of ListPermissions, ListDataCellsFilter and GetResourceLFTags: the calls live in
`lake_formation`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

READS = frozenset({"SELECT", "ALL"})


@dataclass(frozen=True)
class Readable:
    """The columns (in the table's order) and the row filters the caller's grants reach; `via` names each grant
    that reaches any, as evidence."""

    columns: list[str]
    row_filters: list[str] = field(default_factory=list)
    """Each filter's PartiQL predicate: rows are read where any of them holds (an all-rows grant clears them)."""
    via: list[dict[str, Any]] = field(default_factory=list)


def reads(grant: Mapping[str, Any]) -> bool:
    return bool(READS & set(grant.get("Permissions") or []))


def _same_table(shape: Mapping[str, Any], database: str, table: str) -> bool:
    """Whether a Table, TableWithColumns or DataCellsFilter resource names the table (a TableWildcard: all of its
    database's tables)."""
    if "TableWildcard" in shape:
        return shape.get("DatabaseName") == database
    return (shape.get("DatabaseName"), shape.get("TableName", shape.get("Name"))) == (database, table)


def _shape_columns(shape: Mapping[str, Any], columns: Sequence[str]) -> set[str]:
    """The columns a ColumnNames list or a ColumnWildcard (with its exclusions) names."""
    if "ColumnWildcard" in shape:
        excluded = set((shape.get("ColumnWildcard") or {}).get("ExcludedColumnNames") or [])
        return {c for c in columns if c not in excluded}
    return set(shape.get("ColumnNames") or [])


def effective_tags(answer: Mapping[str, Any] | None, columns: Sequence[str]) -> dict[str, dict[str, set[str]]]:
    """Each column's effective LF-tags (key -> values): the database's tags, overridden by the table's key by key,
    overridden by the column's own key by key (GetResourceLFTags' LFTagOnDatabase, LFTagsOnTable, LFTagsOnColumns)."""
    def keyed(tags: Sequence[Mapping[str, Any]] | None) -> dict[str, set[str]]:
        return {t["TagKey"]: set(t.get("TagValues") or []) for t in tags or []}

    found = answer or {}
    table = keyed(found.get("LFTagOnDatabase")) | keyed(found.get("LFTagsOnTable"))
    own = {c.get("Name"): keyed(c.get("LFTags")) for c in found.get("LFTagsOnColumns") or []}
    return {column: table | own.get(column, {}) for column in columns}


def _matches(tags: Mapping[str, set[str]], expression: Sequence[Mapping[str, Any]]) -> bool:
    """An LF-tag expression holds where every key it names carries one of its values."""
    return bool(expression) and all(tags.get(e["TagKey"], set()) & set(e.get("TagValues") or [])
                                    for e in expression)


def readable(grants: Sequence[Mapping[str, Any]], database: str, table: str, columns: Sequence[str],
             filters: Sequence[Mapping[str, Any]], tags: Mapping[str, Any] | None) -> Readable:
    """What the caller's own grants (`grants`, already the caller's) let it read of the table."""
    seen: set[str] = set()
    rows: list[str] = []
    all_rows = False
    via: list[dict[str, Any]] = []
    defined = {f.get("Name"): f for f in filters}
    for grant in grants:
        if not reads(grant):
            continue
        resource = grant.get("Resource") or {}
        reached: set[str] = set()
        if _same_table(resource.get("Table") or {}, database, table):
            reached, all_rows = set(columns), True
        elif _same_table(resource.get("TableWithColumns") or {}, database, table):
            reached, all_rows = _shape_columns(resource["TableWithColumns"], columns), True
        elif _same_table(resource.get("DataCellsFilter") or {}, database, table):
            definition = defined.get(resource["DataCellsFilter"].get("Name"))
            if definition is not None:
                reached = _shape_columns(definition, columns)
                predicate = (definition.get("RowFilter") or {}).get("FilterExpression")
                if predicate:
                    rows.append(predicate)
                else:
                    all_rows = True
        elif (resource.get("LFTagPolicy") or {}).get("ResourceType") == "TABLE" and tags is not None:
            expression = resource["LFTagPolicy"].get("Expression") or []
            reached = {c for c, found in effective_tags(tags, columns).items() if _matches(found, expression)}
            all_rows = all_rows or bool(reached)
        if reached:
            seen |= reached
            via.append({"resource": resource, "permissions": grant.get("Permissions")})
    return Readable([c for c in columns if c in seen], [] if all_rows else rows, via)


def tag_grants_unresolved(grants: Sequence[Mapping[str, Any]], tags_known: bool) -> bool:
    """Whether a grant on an LF-tag expression could reach the table but the table's tags could not be read."""
    return not tags_known and any(reads(g) and "LFTagPolicy" in (g.get("Resource") or {}) for g in grants)


def filter_grants_unresolved(grants: Sequence[Mapping[str, Any]], database: str, table: str,
                             filters_known: bool) -> bool:
    """Whether the caller holds a grant on a data cells filter of the table whose definition could not be read."""
    return not filters_known and any(reads(g) and _same_table((g.get("Resource") or {}).get("DataCellsFilter") or {},
                                                              database, table) for g in grants)


def opted_in(opt_ins: Sequence[Mapping[str, Any]], identities: Sequence[str], database: str, table: str) -> bool:
    """Whether one of the caller's identities is opted in to Lake Formation for the table (or its database) in
    hybrid access mode (ListLakeFormationOptIns' LakeFormationOptInsInfoList)."""
    for entry in opt_ins:
        if (entry.get("Principal") or {}).get("DataLakePrincipalIdentifier") not in identities:
            continue
        resource = entry.get("Resource") or {}
        if _same_table(resource.get("Table") or {}, database, table) or (
                (resource.get("Database") or {}).get("Name") == database):
            return True
    return False
