"""A view read as SQL on the table resource, with the tables it reads.

Athena keeps a view's SQL as `/* Presto View: <base64 JSON> */` in ViewOriginalText: decoded here to the SQL it was
created with (the JSON's `originalSql`). A Glue Data Catalog view (multi-dialect) keeps one SQL per engine in
`ViewDefinition.Representations`: the Athena dialect's is shown, with the definer and every dialect. The base tables
are found by parsing the SQL (sqlglot, Athena's dialect) and each linked to its own table resource; a Data Catalog
view's `SubObjects` (the ARNs Glue validated) are used where given. No AWS call: all of it is in GetTable's answer.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict
from urllib.parse import quote

from sqlglot import exp, parse_one
from sqlglot.errors import SqlglotError

from aws_data_mcp.explainer.uris import table_uri
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG

VIEW_SQL_CHARS = 20_000
"""A view's SQL is shown whole up to this many characters (the SQL is what an agent reads the view for)."""
_PRESTO_VIEW = re.compile(r"/\*\s*Presto View:\s*([A-Za-z0-9+/=\s]+?)\s*\*/", re.S)
_GLUE_CATALOG = GLUE_CATALOG.lower()


class BaseTable(TypedDict):
    database: str
    table: str
    catalog: NotRequired[str]
    """Where it is not the default catalog (an account id, or a catalog's name)."""
    uri: str | None
    """Its table resource (null for a table in another catalog)."""
    explain: str | None
    """Its access explainer (null for a table in another catalog)."""


class Dialect(TypedDict):
    dialect: str
    version: str | None
    stale: bool | None


class View(TypedDict):
    kind: str
    """"athena_view" (Athena's own, run as the invoker) or "data_catalog_view" (Glue's, run as its definer)."""
    sql: str | None
    """The view's SQL as created (Athena's dialect), whole up to 20,000 characters."""
    truncated: bool
    runs_as: str
    """"invoker": Athena reads the base tables as the caller; "definer": as `definer`."""
    definer: NotRequired[str | None]
    dialects: NotRequired[list[Dialect]]
    base_tables: list[BaseTable]
    note: str


def is_view(found: Mapping[str, Any]) -> bool:
    return found.get("TableType") == "VIRTUAL_VIEW" or bool(found.get("ViewDefinition"))


def presto_view(text: str | None) -> dict[str, Any] | None:
    """The JSON Athena encodes in a view's `/* Presto View: ... */` text; None where the text holds none."""
    match = _PRESTO_VIEW.search(text or "")
    if match is None:
        return None
    try:
        decoded = json.loads(base64.b64decode("".join(match.group(1).split()), validate=True))
    except (binascii.Error, ValueError):
        return None
    return decoded if isinstance(decoded, dict) else None


def base_tables(sql: str | None, database: str, catalog: str | None = None) -> list[BaseTable]:
    """The tables `sql` reads (not its CTEs), unqualified names in `database`, in the order first named."""
    try:
        tree = parse_one(sql or "", dialect="athena")
    except SqlglotError:
        return []
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    seen: dict[tuple[str, str, str], BaseTable] = {}
    # In the order the text names them (the parser keeps each name's offset).
    for table in sorted(tree.find_all(exp.Table), key=lambda t: int(t.this.meta.get("start", 0))
                        if isinstance(t.this, exp.Identifier) else 0):
        if not table.name or (not table.db and table.name.lower() in ctes):
            continue
        where = (table.catalog or catalog or _GLUE_CATALOG).lower()
        key = (where, (table.db or database).lower(), table.name.lower())
        seen.setdefault(key, _linked(*key))
    return list(seen.values())


def _linked(catalog: str, database: str, table: str) -> BaseTable:
    here = catalog == _GLUE_CATALOG
    entry = BaseTable(database=database, table=table, explain=table_uri(database, table) if here else None,
                      uri=f"athena://databases/{quote(database, safe='')}/tables/{quote(table, safe='')}" if here
                      else None)
    if catalog != _GLUE_CATALOG:
        entry["catalog"] = catalog
    return entry


def _from_arns(arns: list[str], account: str | None) -> list[BaseTable]:
    """Glue table ARNs (arn:aws:glue:region:account:table/db/name) as base tables; another account's as its catalog."""
    tables = []
    for arn in arns:
        head, _, path = arn.partition(":table/")
        database, _, name = path.partition("/")
        if database and name:
            owner = head.rsplit(":", 1)[-1]
            tables.append(_linked(_GLUE_CATALOG if owner in ("", account) else owner, database, name))
    return tables


def _shown(sql: str | None) -> tuple[str | None, bool]:
    return (sql[:VIEW_SQL_CHARS], len(sql) > VIEW_SQL_CHARS) if sql else (None, False)


def describe_view(found: Mapping[str, Any], database: str) -> View:
    """The view's SQL and base tables from its GetTable answer."""
    definition = found.get("ViewDefinition") or {}
    if definition:
        return _data_catalog_view(found, definition, database)
    decoded = presto_view(found.get("ViewOriginalText"))
    sql = (decoded or {}).get("originalSql") or (None if decoded is None else "")
    if decoded is None:  # not Athena's encoding (a Hive or Spark view): its text is its SQL
        sql = found.get("ViewOriginalText")
    text, cut = _shown(sql)
    where = str((decoded or {}).get("schema") or database)
    return View(kind="athena_view", sql=text, truncated=cut, runs_as="invoker",
                base_tables=base_tables(sql, where),
                note="Athena reads this view's base tables as you: each must be readable by you for a query on the "
                     "view to succeed.")


def _data_catalog_view(found: Mapping[str, Any], definition: Mapping[str, Any], database: str) -> View:
    representations = definition.get("Representations") or []
    athena = next((r for r in representations if str(r.get("Dialect")).upper() == "ATHENA"), None)
    sql = (athena or {}).get("ViewOriginalText") or (athena or {}).get("ViewExpandedText")
    text, cut = _shown(sql)
    arns = [str(arn) for arn in definition.get("SubObjects") or []]
    tables = _from_arns(arns, found.get("CatalogId")) if arns else base_tables(sql, database)
    dialects = [Dialect(dialect=str(r.get("Dialect")), version=r.get("DialectVersion"), stale=r.get("IsStale"))
                for r in representations]
    note = ("A Glue Data Catalog view: Athena reads its base tables as its definer, so you need SELECT on the view "
            "only (Lake Formation), not on its base tables.")
    if athena is None:
        note += " It has no Athena dialect: Athena cannot query it."
    return View(kind="data_catalog_view", sql=text, truncated=cut, runs_as="definer",
                definer=definition.get("Definer"), dialects=dialects, base_tables=tables, note=note)
