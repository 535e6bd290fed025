"""athena://: the caller's workgroups, query history, one query, the Glue-backed databases and tables, and the
`athena_query` / `athena_stop_query` tools.

One module per resource family; importing this package registers them all. Other namespaces import what they
use from the module that defines it (`athena.catalog.glue_databases`, `athena.workgroups.query_workgroup`).
"""

from aws_data_mcp.resources.athena import (
    catalog,
    catalogs,
    execution,
    history,
    named_queries,
    query,
    search,
    workgroups,
)

__all__ = ["catalog", "catalogs", "execution", "history", "named_queries", "query", "search", "workgroups"]
