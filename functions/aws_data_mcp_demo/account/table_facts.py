"""What the demo account knows of its tables before a first query: column statistics and two views.

The statistics are computed from the lake's own files, so they are true. DuckDB reads each table's
files in its format and Glue types. The results go through Glue's UpdateColumnStatisticsForTable,
which the emulator keeps (moto has no such call). Types Glue computes none for (timestamps, arrays,
maps, structs) get none. The views over the orders are an Athena view and a Glue Data Catalog view.
"""

from __future__ import annotations

import base64
import functools
import json
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import duckdb
from sqlglot import exp
from sqlglot.dialects import DuckDB, Hive

from aws_data_mcp.resources.athena.column_stats import statistics_type
from aws_data_mcp_demo.account.lake_tables import TableFiles, lake_files
from aws_data_mcp_demo.account.seed_data import ANALYST_ROLE, CONTRACTOR_ROLE, DEMO_CALLER_USER

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(DuckDB)


def _scan(lake: TableFiles, root: Path) -> str:
    """A DuckDB table function over every file of the table, its columns read as their Glue types."""
    files = "[" + ", ".join(f"'{path}'" for path in sorted(str(p) for p in root.rglob("*") if p.is_file())) + "]"
    if lake.table.fmt.startswith("parquet"):
        return f"read_parquet({files}, hive_partitioning = false)"
    columns = "{" + ", ".join(f"'{name}': '{exp.DataType.build(kind, dialect=Hive).sql(DuckDB)}'"
                              for name, kind, _ in lake.table.columns) + "}"
    if lake.table.fmt == "json":
        return f"read_json({files}, format = 'newline_delimited', columns = {columns})"
    return f"read_csv({files}, header = true, columns = {columns})"


def _unscaled(value: Decimal, scale: int) -> dict[str, Any]:
    """A decimal as Glue's DecimalNumber: the unscaled integer's big-endian two's-complement bytes, and the scale."""
    unscaled = int(value.scaleb(scale))
    return {"UnscaledValue": unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True),
            "Scale": scale}


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=UTC)


def _measures(name: str, kind: str) -> list[str]:
    """The aggregates one column's statistics need, in the order `_figures` reads them."""
    column = _quoted(name)
    counted = [f"count(*) - count({column})", f"count(DISTINCT {column})"]
    if kind == "BOOLEAN":
        return [*counted, f"count(*) FILTER ({column})", f"count(*) FILTER (NOT {column})"]
    if kind in ("STRING", "BINARY"):
        return [*counted, f"max(length({column}))", f"avg(length({column}))"]
    return [*counted, f"min({column})", f"max({column})"]


def _figures(kind: str, glue_type: str, values: tuple[Any, ...]) -> dict[str, Any]:
    """Glue's statistics of one column from its `_measures`' values."""
    nulls, distinct, first, second = values
    if kind == "BOOLEAN":
        return {"NumberOfTrues": first, "NumberOfFalses": second, "NumberOfNulls": nulls}
    if kind in ("STRING", "BINARY"):
        lengths = {"MaximumLength": int(first or 0), "AverageLength": float(second or 0.0), "NumberOfNulls": nulls}
        return lengths | ({"NumberOfDistinctValues": distinct} if kind == "STRING" else {})
    low, high = first, second
    if kind == "DECIMAL":
        scale = int(glue_type.partition(",")[2].rstrip(") ") or 0)
        low, high = (_unscaled(Decimal(v), scale) if v is not None else None for v in (low, high))
    elif kind == "DATE":
        low, high = (_midnight(v) if v is not None else None for v in (low, high))
    shown = {"MinimumValue": low, "MaximumValue": high}
    return {k: v for k, v in shown.items() if v is not None} | {"NumberOfNulls": nulls,
                                                                "NumberOfDistinctValues": distinct}


_DATA_KEY = {"LONG": "Long", "DOUBLE": "Double", "DECIMAL": "Decimal", "DATE": "Date", "STRING": "String",
             "BOOLEAN": "Boolean", "BINARY": "Binary"}


@functools.cache
def _computed(name: str) -> tuple[tuple[str, str, str, Mapping[str, Any]], ...]:
    """(column, Glue type, statistics type, figures) of the lake table `name`, by DuckDB over every file of it (one
    scan for every column; once per process, as the files are)."""
    lake = lake_files()[name]
    kinds = [(column, glue_type, kind) for column, glue_type, _ in lake.table.columns
             if (kind := statistics_type(glue_type)) is not None]
    if not kinds:
        return ()
    with tempfile.TemporaryDirectory(prefix="demo-stats-") as directory, duckdb.connect() as connection:
        root = Path(directory)
        for key, body in lake.files.items():
            (root / key).parent.mkdir(parents=True, exist_ok=True)
            (root / key).write_bytes(body)
        measures = [measure for column, _, kind in kinds for measure in _measures(column, kind)]
        values = connection.execute(f"SELECT {', '.join(measures)} FROM {_scan(lake, root)}").fetchone() or ()
    return tuple((column, glue_type, kind, MappingProxyType(_figures(kind, glue_type, tuple(values[4 * i:4 * i + 4]))))
                 for i, (column, glue_type, kind) in enumerate(kinds))


def computed_statistics(lake: TableFiles, analyzed: datetime) -> list[dict[str, Any]]:
    """The table's column statistics as Glue's ColumnStatisticsList, as of `analyzed`."""
    return [{"ColumnName": column, "ColumnType": glue_type, "AnalyzedTime": analyzed,
             "StatisticsData": {"Type": kind, f"{_DATA_KEY[kind]}ColumnStatisticsData": dict(figures)}}
            for column, glue_type, kind, figures in _computed(lake.name)]


def seed_column_statistics(glue: BotoClient, tables: Iterable[TableFiles], analyzed: datetime) -> Mapping[str, int]:
    """Every lake table's column statistics written to Glue (at most 25 columns an UpdateColumnStatisticsForTable);
    "database.table" -> the columns given statistics."""
    written = {}
    for lake in tables:
        entries = computed_statistics(lake, analyzed)
        for start in range(0, len(entries), 25):
            glue.update_column_statistics_for_table(DatabaseName=lake.table.database, TableName=lake.table.name,
                                                    ColumnStatisticsList=entries[start:start + 25])
        written[lake.name] = len(entries)
    return written


# --------------------------------------------------------------------------- views over the orders

ORDERS_BY_CHANNEL_SQL = ("SELECT channel, order_date, count(*) AS orders, sum(total_amount) AS total_amount\n"
                         "FROM orders\nGROUP BY channel, order_date")
"""An Athena view (`sales.orders_by_channel`): its SQL names `orders` unqualified, as a view's may (its schema's)."""
RETURNS_SUMMARY_SQL = ("SELECT currency, order_date, count(*) AS returned_orders, "
                       "sum(total_amount) AS returned_amount\nFROM sales.orders\nWHERE status = 'returned'\n"
                       "GROUP BY currency, order_date")
"""A Glue Data Catalog view (`sales.returns_summary`), defined by the data engineers' role."""
VIEW_DEFINER_ROLE = "acme-etl-lambda-role"


def _view_columns(columns: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    return {"Columns": [{"Name": name, "Type": kind, "Comment": comment} for name, kind, comment in columns],
            "SerdeInfo": {}}


def athena_view_text(sql: str, schema: str, columns: list[tuple[str, str]], owner: str) -> str:
    """A view's ViewOriginalText as Athena writes it: its definition as base64 JSON in a comment."""
    document = {"originalSql": sql, "catalog": "awsdatacatalog", "schema": schema,
                "columns": [{"name": name, "type": kind} for name, kind in columns], "owner": owner,
                "runAsInvoker": False, "properties": {}}
    return f"/* Presto View: {base64.b64encode(json.dumps(document).encode()).decode()} */"


def seed_views(glue: BotoClient, account_id: str, region: str) -> tuple[str, ...]:
    """The Athena view sales.orders_by_channel and the Data Catalog view sales.returns_summary, both over
    sales.orders; their names."""
    channel = (("channel", "string", "web | mobile | store"), ("order_date", "string", "Order date, yyyy-MM-dd"),
               ("orders", "bigint", "Orders placed"),
               ("total_amount", "decimal(38,2)", "Their total, in each order's currency (mixed: see currency)"))
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "orders_by_channel", "TableType": "VIRTUAL_VIEW", "Owner": "sales-analytics",
        "Description": "Orders and their total per channel and day (an Athena view over sales.orders).",
        "Parameters": {"presto_view": "true", "comment": "Presto View"},
        "ViewOriginalText": athena_view_text(ORDERS_BY_CHANNEL_SQL, "sales", [
            ("channel", "varchar"), ("order_date", "varchar"), ("orders", "bigint"),
            ("total_amount", "decimal(38,2)")], f"arn:aws:iam::{account_id}:user/alice.nguyen"),
        "ViewExpandedText": "/* Presto View */", "StorageDescriptor": _view_columns(channel)})
    returns = (("currency", "string", "ISO 4217 code of the amounts"),
               ("order_date", "string", "Order date, yyyy-MM-dd"),
               ("returned_orders", "bigint", "Orders returned"),
               ("returned_amount", "decimal(38,2)", "Their total, in currency"))
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "returns_summary", "TableType": "VIRTUAL_VIEW", "Owner": "data-engineering",
        "Description": "Returned orders per currency and day (a Glue Data Catalog view over sales.orders).",
        "StorageDescriptor": _view_columns(returns),
        "ViewDefinition": {
            "IsProtected": True, "Definer": f"arn:aws:iam::{account_id}:role/{VIEW_DEFINER_ROLE}",
            "SubObjects": [f"arn:aws:glue:{region}:{account_id}:table/sales/orders"],
            "Representations": [{"Dialect": "ATHENA", "DialectVersion": "3", "ViewOriginalText": RETURNS_SUMMARY_SQL,
                                 "ViewExpandedText": RETURNS_SUMMARY_SQL}]}})
    return "orders_by_channel", "returns_summary"


VIEW_READERS = (f"user/{DEMO_CALLER_USER}", f"role/{ANALYST_ROLE}", f"role/{CONTRACTOR_ROLE}")
"""Granted SELECT on the Data Catalog view: the analysts, and the contractors (who cannot read sales.orders)."""


def seed_view_grants(lakeformation: BotoClient, account_id: str) -> None:
    """Lake Formation's side of returns_summary: its definer's grantable SELECT on sales.orders (Glue requires it of
    a definer), and SELECT on the view to its readers (not the admins)."""
    lakeformation.grant_permissions(
        Principal={"DataLakePrincipalIdentifier": f"arn:aws:iam::{account_id}:role/{VIEW_DEFINER_ROLE}"},
        Resource={"Table": {"DatabaseName": "sales", "Name": "orders"}}, Permissions=["SELECT"],
        PermissionsWithGrantOption=["SELECT"])
    for reader in VIEW_READERS:
        lakeformation.grant_permissions(
            Principal={"DataLakePrincipalIdentifier": f"arn:aws:iam::{account_id}:{reader}"},
            Resource={"Table": {"DatabaseName": "sales", "Name": "returns_summary"}}, Permissions=["SELECT"])


# --------------------------------------------------------------------------- Data Quality on the orders

ORDERS_RULESET = "sales_orders_checks"
ORDERS_RULES = (
    ("Rule_1", 'IsComplete "order_id"', "PASS", None),
    ("Rule_2", 'IsUnique "order_id"', "PASS", None),
    ("Rule_3", 'ColumnValues "channel" in ["web", "mobile", "store"]', "PASS", None),
    ("Rule_4", 'ColumnValues "currency" in ["USD", "EUR"]', "FAIL",
     "Value: GBP does not meet the constraint requirement!"),
)
"""The checks the demo's Data Quality ran on sales.orders: true of its data (GBP orders fail the currency rule)."""


def seed_data_quality(account_id: str, region: str, now: datetime) -> str:
    """One Data Quality evaluation result on sales.orders, on moto's Glue backend (as a finished run leaves it; no
    API writes a result); its id."""
    from moto.glue.models import glue_backends

    from aws_data_mcp_demo.emulator.data_quality import RESULTS_ATTRIBUTE

    result_id = "dqresult-0f3c2a9b7e1d4c58a6b2"
    passed = sum(1 for _, _, outcome, _ in ORDERS_RULES if outcome == "PASS")
    result = {
        "ResultId": result_id, "Score": passed / len(ORDERS_RULES), "RulesetName": ORDERS_RULESET,
        "DataSource": {"GlueTable": {"DatabaseName": "sales", "TableName": "orders"}},
        "EvaluationContext": ORDERS_RULESET, "RulesetEvaluationRunId": "dqrun-5b1e7c0a2f9d4e36",
        "StartedOn": now - timedelta(hours=3, minutes=4), "CompletedOn": now - timedelta(hours=3),
        "RuleResults": [{"Name": name, "Description": rule, "EvaluatedRule": rule, "Result": outcome,
                         **({"EvaluationMessage": message} if message else {})}
                        for name, rule, outcome, message in ORDERS_RULES]}
    backend = glue_backends[account_id][region]
    setattr(backend, RESULTS_ATTRIBUTE, {**getattr(backend, RESULTS_ATTRIBUTE, {}), result_id: result})
    return result_id
