"""Seed the demo account's Athena: the data catalog, workgroups, saved queries and the query history.

moto marks every execution SUCCEEDED, so the history is finished on moto's backend objects.
Their states, times and statistics sit under ``EXECUTION_DETAILS_ATTR``, served by ``emulator.athena``.
Canned result pages are queued in-process, so ``GetQueryResults`` returns rows as on AWS.
"""

import json
from datetime import datetime, timedelta
from typing import Any

from moto.moto_api._internal.models import moto_api_backend

from aws_data_mcp_demo.account.seed_data import (
    DATABASES,
    ERRORS,
    HISTORY,
    PRIMARY_DESCRIPTION,
    PRIMARY_RESULT_LOCATION,
    WORKGROUPS,
    Query,
    queries_for,
)
from aws_data_mcp_demo.emulator.extensions import EXECUTION_DETAILS_ATTR

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.

SAVED_QUERIES: tuple[dict[str, str], ...] = (
    {"Name": "returned orders by channel, first week of January",
     "Description": "Which sales channel had the most returned orders in 2026-01-01..07 (README's first question); "
                    "reads one week of orders' partitions.",
     "Database": "sales",
     "QueryString": "SELECT channel, count(*) AS returned_orders FROM orders "
                    "WHERE order_date BETWEEN '2026-01-01' AND '2026-01-07' AND status = 'returned' "
                    "GROUP BY channel ORDER BY returned_orders DESC"},
    {"Name": "revenue by category and country, one day",
     "Description": "Revenue by product category and customer country on 2026-03-01 in each order's currency: "
                    "order lines joined to their orders, products and customers (README's second question, before "
                    "its conversion to USD).",
     "Database": "sales",
     "QueryString": "SELECT p.category, c.country, sum(i.quantity * i.unit_price - i.discount) AS revenue "
                    "FROM order_items i JOIN orders o ON o.order_id = i.order_id AND o.order_date = i.order_date "
                    "JOIN products p ON p.product_id = i.product_id JOIN customers c ON c.customer_id = o.customer_id "
                    "WHERE i.order_date = '2026-03-01' AND o.order_date = '2026-03-01' "
                    "GROUP BY p.category, c.country ORDER BY revenue DESC"},
    {"Name": "campaign conversions in February",
     "Description": "Conversions attributed to each campaign in February 2026 (README's third question); their "
                    "names are in marketing.campaigns, whose key only the admins may use.",
     "Database": "marketing",
     "QueryString": "SELECT campaign_id, count(*) AS conversions FROM campaign_events "
                    "WHERE event_type = 'conversion' AND event_date BETWEEN '2026-02-01' AND '2026-02-28' "
                    "GROUP BY campaign_id ORDER BY conversions DESC"},
)
"""The team's saved questions (Athena named queries in `analytics`): the README's first questions, answered."""
SAVED_QUERIES_WORKGROUP = "analytics"
Started = list[tuple[str, tuple[int, str, str, str, str]]]
"""(execution id, its HISTORY entry) per started query, oldest first."""


def _result_location(workgroup: str) -> str:
    if workgroup == "primary":
        return PRIMARY_RESULT_LOCATION
    return str(WORKGROUPS[workgroup]["Configuration"]["ResultConfiguration"]["OutputLocation"])


def _queue_athena_result(query: Query, account_id: str, region: str) -> None:
    """The result moto attaches to the next execution started (and writes to S3): header row first, as Athena
    returns it."""
    header = {"Data": [{"VarCharValue": name} for name, _ in query.columns]}
    rows = [{"Data": [{"VarCharValue": value} for value in row]} for row in query.rows]
    column_info = [
        {
            "CatalogName": "hive",
            "SchemaName": "",
            "TableName": "",
            "Name": name,
            "Label": name,
            "Type": kind,
            "Precision": 38 if kind == "decimal" else 0,
            "Scale": 2 if kind == "decimal" else 0,
            "Nullable": "UNKNOWN",
            "CaseSensitive": kind == "varchar",
        }
        for name, kind in query.columns
    ]
    moto_api_backend.set_athena_result(rows=[header, *rows], column_info=column_info, account_id=account_id,
                                       region=region)


def seed_athena(
    athena: BotoClient, account_id: str, region: str, now: datetime
) -> Started:
    athena.create_data_catalog(
        Name="AwsDataCatalog",
        Type="GLUE",
        Description="AWS Glue Data Catalog of this account",
        Parameters={"catalog-id": account_id},
    )
    for name, spec in WORKGROUPS.items():
        configuration = json.loads(
            json.dumps(spec["Configuration"]).replace("{region}", region).replace("{account_id}", account_id)
        )
        athena.create_work_group(
            Name=name, Description=spec["Description"], Configuration=configuration, Tags=spec["Tags"]
        )

    for saved in SAVED_QUERIES:
        athena.create_named_query(**saved, WorkGroup=SAVED_QUERIES_WORKGROUP)
    queries = queries_for(now.date())
    started = []
    for entry in HISTORY:
        _, workgroup, key, state, _ = entry
        query = queries[key]
        if state == "SUCCEEDED" and query.columns:
            _queue_athena_result(query, account_id, region)
        response = athena.start_query_execution(
            QueryString=query.sql,
            QueryExecutionContext={"Catalog": "AwsDataCatalog", "Database": query.database},
            ResultConfiguration={"OutputLocation": _result_location(workgroup)},
            WorkGroup=workgroup,
        )
        started.append((response["QueryExecutionId"], entry))
    return started


def finish_athena_in_process(
    started: Started, account_id: str, region: str, now: datetime
) -> bool:
    """Give each seeded execution its final state, times, statistics and error; newest first.

    moto's API can only start queries (all of which it reports SUCCEEDED), so this edits
    moto's Execution objects directly. Returns False when the backend is not in this process.
    """
    from moto.athena.models import athena_backends

    backend = athena_backends[account_id][region]
    if not started or started[0][0] not in backend.executions:
        return False

    primary = backend.work_groups.get("primary")
    if primary is not None:
        primary.configuration["ResultConfiguration"] = {"OutputLocation": PRIMARY_RESULT_LOCATION}
        primary.description = PRIMARY_DESCRIPTION
    # The seeded CREATE DATABASE statements made Athena's own database list; give it Glue's descriptions.
    for name, spec in DATABASES.items():
        database = backend.databases.get(("AwsDataCatalog", name))
        if database is not None:
            database.description = spec["Description"]
            database.parameters = dict(spec["Parameters"])

    queries = queries_for(now.date())
    for index, (execution_id, (minutes_ago, _, key, state, cancel_reason)) in enumerate(started):
        execution = backend.executions[execution_id]
        query = queries[key]
        jitter = 0.85 + (index % 7) * 0.05  # deterministic spread around the query's typical cost
        submitted = now - timedelta(minutes=minutes_ago, seconds=(index * 17) % 50)
        queue_ms = 90 + (index * 37) % 400
        runtime_ms = int(query.runtime_ms * jitter)
        scanned = int(query.scanned_bytes * jitter)
        details: dict[str, Any] = {"StateChangeReason": None, "AthenaError": None}
        if state == "FAILED":
            message, category, retryable = ERRORS[key]
            runtime_ms = min(runtime_ms, 900) if category == 2 else runtime_ms
            scanned = 0 if category == 2 else scanned // 3
            details["StateChangeReason"] = message
            details["AthenaError"] = {"ErrorCategory": category, "Retryable": retryable, "ErrorMessage": message}
        elif state == "CANCELLED":
            runtime_ms = runtime_ms // 2
            scanned = scanned // 2 if cancel_reason != "Bytes scanned limit was exceeded" else query.scanned_bytes
            details["StateChangeReason"] = cancel_reason
        elif state in ("RUNNING", "QUEUED"):
            elapsed_ms = int((now - submitted).total_seconds() * 1000)
            runtime_ms = max(elapsed_ms - queue_ms, 0) if state == "RUNNING" else 0
            scanned = scanned // 4 if state == "RUNNING" else 0
            queue_ms = queue_ms if state == "RUNNING" else elapsed_ms
            # Pin the state: moto's default "immediate" progression would otherwise report SUCCEEDED.
            execution._transitions = [(state, state)]
        total_ms = queue_ms + runtime_ms
        details["Statistics"] = {
            "EngineExecutionTimeInMillis": runtime_ms,
            "DataScannedInBytes": scanned,
            "TotalExecutionTimeInMillis": total_ms,
            "QueryQueueTimeInMillis": queue_ms,
            "ServicePreProcessingTimeInMillis": 40 + index % 30,
            "QueryPlanningTimeInMillis": min(runtime_ms, 120 + (index * 13) % 200),
            "ServiceProcessingTimeInMillis": 25 + index % 40 if state not in ("RUNNING", "QUEUED") else 0,
            "ResultReuseInformation": {"ReusedPreviousResult": False},
        }
        execution.status = state
        execution.start_time = submitted.timestamp()
        terminal = state in ("SUCCEEDED", "FAILED", "CANCELLED")
        execution.end_time = (submitted + timedelta(milliseconds=total_ms)).timestamp() if terminal else None
        setattr(execution, EXECUTION_DETAILS_ATTR, details)
    return True


