"""What Lake Formation lets one caller read of one table, as LF decides it.

It reads moto's Lake Formation backend and what ``emulator.lake_formation`` adds to it.
In hybrid mode only callers who opted in are held to LF. Others read with IAM and S3.
Grants add up: columns are their union. Rows are filtered only where every grant filters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from moto.lakeformation.models import LakeFormationBackend, lakeformation_backends

EVERYONE_IAM_ALLOWS = "IAM_ALLOWED_PRINCIPALS"
_READS = frozenset({"SELECT", "ALL"})
_HYBRID_ATTR = "aws_data_mcp_hybrid"
_OPT_INS_ATTR = "aws_data_mcp_opt_ins"
_FILTERS_ATTR = "aws_data_mcp_data_cells_filters"


# --------------------------------------------------------------------------- what moto_lake_formation keeps

def hybrid_locations(backend: LakeFormationBackend) -> set[str]:
    """The registered locations (ARNs) in hybrid access mode."""
    found: set[str] = backend.__dict__.setdefault(_HYBRID_ATTR, set())
    return found


def opt_ins(backend: LakeFormationBackend) -> list[dict[str, Any]]:
    """Each opt-in as ListLakeFormationOptIns lists it: Principal, Resource (Database or Table)."""
    found: list[dict[str, Any]] = backend.__dict__.setdefault(_OPT_INS_ATTR, [])
    return found


def data_cells_filters(backend: LakeFormationBackend) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(database, table, filter name) -> the filter as GetDataCellsFilter answers it."""
    found: dict[tuple[str, str, str], dict[str, Any]] = backend.__dict__.setdefault(_FILTERS_ATTR, {})
    return found


def opted_in(backend: LakeFormationBackend, names: set[str] | frozenset[str], database: str, table: str) -> bool:
    """Whether one of `names` opted in on the table or on its database."""
    for entry in opt_ins(backend):
        if entry["Principal"].get("DataLakePrincipalIdentifier") not in names:
            continue
        resource = entry["Resource"]
        on_table = resource.get("Table") or {}
        on_database = resource.get("Database") or {}
        if (on_table.get("DatabaseName"), on_table.get("Name")) == (database, table) or (
                on_table.get("DatabaseName") == database and "TableWildcard" in on_table) or \
                on_database.get("Name") == database:
            return True
    return False


@dataclass(frozen=True)
class Governance:
    """How LF governs a location: its registration (None: not registered) and whether in hybrid access mode."""

    registered: str | None
    hybrid: bool = False


@dataclass(frozen=True)
class Readable:
    """What the caller's grants let it read of a table: columns and, where every grant filters rows, the filter."""

    columns: frozenset[str]
    row_filter: str | None = None


def governance(backend: LakeFormationBackend, location_arn: str) -> Governance:
    """The registration that covers `location_arn` (an S3 ARN), if any."""
    for registered in backend.resources:
        if location_arn == registered or location_arn.startswith(f"{registered.rstrip('/')}/"):
            return Governance(registered, registered in hybrid_locations(backend))
    return Governance(None)


def governs(backend: LakeFormationBackend, location_arn: str, names: frozenset[str], database: str,
            table: str) -> bool:
    """Whether LF decides this caller's reads of the table (registered, and opted in where hybrid)."""
    found = governance(backend, location_arn)
    if found.registered is None:
        return False
    return not found.hybrid or opted_in(backend, names, database, table)


def readable(backend: LakeFormationBackend, account_id: str, names: frozenset[str], database: str, table: str,
             columns: list[str], hybrid_opt_in: bool) -> Readable:
    """The union of the caller's SELECT grants on the table (empty columns: none)."""
    catalog = backend.grants.get(account_id)
    principals = set(names) if hybrid_opt_in else {*names, EVERYONE_IAM_ALLOWS}
    granted: set[str] = set()
    filters: list[str | None] = []
    for grant in catalog.permissions if catalog is not None else ():
        if grant.principal.get("DataLakePrincipalIdentifier") not in principals:
            continue
        if not _READS & {*grant.permissions, *grant.permissions_with_grant_options}:
            continue
        found, row_filter = _covered(backend, account_id, grant.resource, database, table, columns)
        if found:
            granted |= found
            filters.append(row_filter)
    if not filters or None in filters:
        return Readable(frozenset(granted))
    return Readable(frozenset(granted), " OR ".join(f"({f})" for f in filters) if len(filters) > 1 else filters[0])


def holds(backend: LakeFormationBackend, account_id: str, names: frozenset[str], database: str, table: str,
          permissions: frozenset[str] | None = None) -> bool:
    """Whether the caller (or IAM_ALLOWED_PRINCIPALS) holds one of `permissions` (None: any) on the table in
    `account_id`'s catalog: DESCRIBE for a resource link, any grant for Glue to show a shared table."""
    catalog = backend.grants.get(account_id)
    for grant in catalog.permissions if catalog is not None else ():
        whole = grant.resource.get("Table") or grant.resource.get("TableWithColumns") or {}
        held = {*grant.permissions, *grant.permissions_with_grant_options}
        if grant.principal.get("DataLakePrincipalIdentifier") in {*names, EVERYONE_IAM_ALLOWS} and (
                permissions is None or permissions & held) and whole.get("DatabaseName") == database and (
                whole.get("Name") == table or "TableWildcard" in whole):
            return True
    return False


def _covered(backend: LakeFormationBackend, account_id: str, resource: Mapping[str, Any], database: str, table: str,
             columns: list[str]) -> tuple[set[str], str | None]:
    """The columns of `database.table` one grant's resource covers, and its row filter (None: every row)."""
    if (whole := resource.get("Table")) is not None:
        same = whole.get("DatabaseName") == database and (whole.get("Name") == table or "TableWildcard" in whole)
        return (set(columns) if same else set()), None
    if (some := resource.get("TableWithColumns")) is not None:
        if (some.get("DatabaseName"), some.get("Name")) != (database, table):
            return set(), None
        return _chosen(some, columns), None
    if (cells := resource.get("DataCellsFilter")) is not None:
        if (cells.get("DatabaseName"), cells.get("TableName")) != (database, table):
            return set(), None
        found = data_cells_filters(backend).get((database, table, str(cells.get("Name"))))
        if found is None:
            return set(), None
        expression = (found.get("RowFilter") or {}).get("FilterExpression")
        return _chosen(found, columns), expression or None
    if (expression := resource.get("LFTagPolicy")) is not None:
        return _tagged(backend, account_id, expression.get("Expression") or [], database, table, columns), None
    return set(), None


def _chosen(resource: Mapping[str, Any], columns: list[str]) -> set[str]:
    """Columns named (ColumnNames) or all but those excluded (ColumnWildcard)."""
    if "ColumnWildcard" in resource:
        excluded = set((resource["ColumnWildcard"] or {}).get("ExcludedColumnNames") or [])
        return {name for name in columns if name not in excluded}
    return {name for name in columns if name in set(resource.get("ColumnNames") or [])}


def _tags(assigned: Iterable[Mapping[str, Any]] | None) -> dict[str, set[str]]:
    return {str(tag["TagKey"]): set(tag.get("TagValues") or []) for tag in assigned or []}


def _tagged(backend: LakeFormationBackend, account_id: str, expression: list[Mapping[str, Any]], database: str,
            table: str, columns: list[str]) -> set[str]:
    """The columns whose effective LF-tags satisfy every term of the expression (a key with one of its values)."""
    inherited = _tags(backend.lf_database_tags.get((account_id, database)))
    on_table = {**inherited, **_tags(backend.lf_table_tags.get((account_id, database, table)))}

    def satisfied(tags: dict[str, set[str]]) -> bool:
        return all(tags.get(str(term["TagKey"]), set()) & set(term.get("TagValues") or []) for term in expression)

    return {name for name in columns
            if satisfied({**on_table, **_tags(backend.lf_columns_tags.get((account_id, database, table, name)))})}



def shared_with(account: str, owner: str, region: str) -> set[tuple[str, str]]:
    """(database, table) of `owner` that `owner` granted to `account` through Lake Formation (a table, or every
    table of a database: "*"), as a cross-account share (RAM) carries them."""
    backend = lakeformation_backends[owner][region]
    catalog = backend.grants.get(owner)
    shared: set[tuple[str, str]] = set()
    for permission in catalog.permissions if catalog is not None else ():
        if (permission.principal or {}).get("DataLakePrincipalIdentifier") != account:
            continue
        table = permission.resource.get("Table") or permission.resource.get("TableWithColumns") or {}
        if table.get("DatabaseName"):
            shared.add((table["DatabaseName"], table.get("Name") or "*"))
    return shared
