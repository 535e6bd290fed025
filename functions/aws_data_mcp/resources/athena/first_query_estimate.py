"""athena://databases/{database}/tables/{table}/first-query: the table's sample query, estimated.

A table read starts no Athena query. This sub-resource starts one when read: EXPLAIN (TYPE IO).
It reads no data, and takes `athena_query`'s own estimate path (`query.estimate_run`).
"""

from __future__ import annotations

from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import complete_database, complete_table


@registry.resource(
    "athena://databases/{database}/tables/{table}/first-query",
    name="athena-table-first-query",
    title="A table's first query, estimated",
    description="The table resource's sample query (the newest partition, a few columns, LIMIT 10) "
    "with Athena's estimate of what it would scan and cost (athena_query's estimate_only: EXPLAIN "
    "(TYPE IO), no data read; the same guard, workgroup choice and cost cap), and the athena_query "
    "arguments that run it.",
    requires="auth",
    aws_calls=["glue:GetTable", "athena:GetWorkGroup", "athena:StartQueryExecution",
               "athena:GetQueryExecution", "athena:GetQueryResults"],
    completions={"database": complete_database, "table": complete_table},
    example="athena://databases/sales/tables/orders/first-query",
)
def first_query_estimate(request: ResourceRequest) -> dict[str, Any]:
    """The table read first (cached, as the caller: its refusal answers here), then the estimate."""
    from aws_data_mcp.explainer.uris import table_uri as table_explainer
    from aws_data_mcp.query.estimate_run import estimate_sql

    database, name = request.args["database"], request.args["table"]
    table_uri = f"athena://databases/{database}/tables/{name}"
    sample = request.read_related(table_uri).get("first_query")
    if sample is None:
        raise ResourceFailure(ErrorCode.ACCESS_DENIED, f"No column of {database}.{name} is readable "
                              "for you: no sample query to estimate", valid_uris=[table_uri],
                              details=[f"{table_uri} marks each column's access."])
    try:
        estimated = estimate_sql(request, sample["sql"], database)
    except ResourceFailure as failure:
        if failure.code is ErrorCode.ACCESS_DENIED:  # the explainer names the check that refuses
            explainer = table_explainer(database, name)
            failure.details.append(f"{explainer} says which check refuses, with its fix.")
        raise
    run = {"sql": sample["sql"], "database": database, "workgroup": estimated["workgroup"]}
    # the workgroup's cap and why it was chosen; not the EXPLAIN's id: a cached read answers alike
    return {"table": table_uri, "sql": sample["sql"], "database": database, "note": sample["note"],
            "workgroup": estimated["workgroup"], "estimate": estimated.get("estimate"),
            "cutoff_bytes": estimated["cutoff_bytes"],
            "workgroup_choice": estimated.get("workgroup_choice"),
            "run": {"tool": "athena_query", "arguments": run}}
