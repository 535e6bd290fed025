"""Views in the demo's Athena: a Glue view in a query is read as its SQL, as Trino inlines one.

An Athena view's SQL is the `originalSql` of its `/* Presto View: ... */` text. A Glue Data Catalog
view's is its ATHENA representation. The view's unqualified names are its schema's. The view is
checked as any table (GetTable as the caller). An Athena view's base tables are read as the
invoker. A Data Catalog view needs the caller's SELECT on it; its tables are read as its definer.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from moto.glue.models import glue_backends
from sqlglot import exp
from sqlglot.dialects import Athena

from aws_data_mcp.lakehouse.views import presto_view
from aws_data_mcp_demo.access.definer import DefinerAccess
from aws_data_mcp_demo.engine.failures import QueryFailure

_MAX_DEPTH = 10
"""Views over views: deeper than this is taken for a cycle."""
DEFINER = "aws_data_mcp_definer"
"""The meta key of a table read inside a Data Catalog view: the view's definer."""


def view_sql(definition: dict[str, Any]) -> str | None:
    """The SQL Athena runs for the Glue table `definition`, if it is a view Athena can query; else None."""
    representations = (definition.get("ViewDefinition") or {}).get("Representations") or []
    athena = next((r for r in representations if str(r.get("Dialect")).upper() == "ATHENA"), None)
    if athena is not None:
        return athena.get("ViewOriginalText") or athena.get("ViewExpandedText")
    if definition.get("TableType") != "VIRTUAL_VIEW":
        return None
    decoded = presto_view(definition.get("ViewOriginalText"))
    return decoded.get("originalSql") if decoded else None


def _qualified(tree: exp.Expression, schema: str) -> exp.Expression:
    """The view's tables that name no schema named in its own (not its WITH clauses)."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.name and not table.db and table.name.lower() not in ctes:
            table.set("db", exp.to_identifier(schema))
    return tree


def expand_views(tree: exp.Expression, database: str | None, account_id: str, region: str,
                 access: Any = None, depth: int = 0) -> exp.Expression:
    """`tree` with each Glue view it names replaced by the view's SQL, aliased as the view was named; `access`
    (the caller's checks, `query.Access`) checks each view first."""
    glue = glue_backends[account_id][region]
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if not table.name or (not table.db and table.name.lower() in ctes):
            continue
        schema = (table.db or database or "default").lower()
        try:
            definition = glue.get_table(schema, table.name.lower()).as_dict()
        except Exception:  # no such table: the query's own resolution says so
            continue
        sql = view_sql(definition)
        if sql is None:
            continue
        if depth >= _MAX_DEPTH:
            raise QueryFailure(f"VIEW_IS_RECURSIVE: View '{schema}.{table.name.lower()}' is recursive",
                               error_type=1000)
        if access is not None:
            access.catalog(schema, table.name.lower(), partitioned=False)
        parsed = _qualified(sqlglot.parse_one(sql, read=Athena), schema)
        definer = (definition.get("ViewDefinition") or {}).get("Definer")
        if definer:  # a Data Catalog view: the caller's SELECT on it, then its tables read as its definer
            if access is not None:
                access.data_catalog_view(schema, table.name.lower(), definition)
            for inside in parsed.find_all(exp.Table):
                inside.meta[DEFINER] = definer
        inner = expand_views(parsed, schema, account_id, region, access, depth + 1)
        alias = table.alias or table.name
        table.replace(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(alias))))
    return tree


def reader(table: exp.Table, access: Any, account_id: str, region: str) -> Any:
    """Whose checks a table of the query is read with: the caller's, or a Data Catalog view's definer's."""
    definer = table.meta.get(DEFINER)
    if access is None or not definer:
        return access
    return DefinerAccess(definer, account_id, region)
