"""athena://: workgroups (`workgroups`), query history (`history`), one query (`execution`), databases and
tables (`catalog`; in any catalog `catalogs`; a table's format `open_tables`, its column statistics `column_stats`,
its freshness `freshness`, a first query ready `first_query` and its estimate `first_query_estimate`, a
resource link's shared table `shared_tables`), search (`search`; the S3 Tables
catalogs it lists `s3_tables_search`) and saved queries (`named_queries`); the `athena_query` tools register here
too (their code is `aws_data_mcp.query`).
"""

from aws_data_mcp.resources.athena import catalog, execution, history, named_queries

# isort: split
# The query tools register here, in the order the tool list has always shown them.
from aws_data_mcp.query import tool as query

# isort: split
from aws_data_mcp.resources.athena import catalogs, first_query_estimate, search, workgroups

__all__ = ["catalog", "catalogs", "execution", "first_query_estimate", "history", "named_queries", "query", "search",
           "workgroups"]
