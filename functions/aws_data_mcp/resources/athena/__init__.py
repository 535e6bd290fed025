"""athena://: the caller's workgroups, query history, one query, the Glue-backed databases and tables, and the
`athena_query` / `athena_stop_query` tools (whose code is `aws_data_mcp.query`).

One module per resource family; importing this package registers them all. Other namespaces import what they
use from the module that defines it (`athena.catalog.glue_databases`, `athena.workgroups.query_workgroup`).
"""

from aws_data_mcp.resources.athena import catalog, execution, history, named_queries

# isort: split
# The query tools register here, in the order the tool list has always shown them.
from aws_data_mcp.query import tool as query

# isort: split
from aws_data_mcp.resources.athena import search, workgroups

__all__ = ["catalog", "execution", "history", "named_queries", "query", "search", "workgroups"]
