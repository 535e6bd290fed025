"""Views and the first query as plain functions: Athena's Presto View text decoded, a Data Catalog view's Athena
representation and its SubObjects, base tables without CTEs, and the sample's literals by partition key type."""

from __future__ import annotations

import base64
import json

from aws_data_mcp.lakehouse.views import base_tables, describe_view, presto_view
from aws_data_mcp.resources.athena.first_query import first_query

SQL = ("WITH recent AS (SELECT * FROM orders WHERE order_date > '2026-04-01')\n"
       "SELECT r.channel, c.segment FROM recent r JOIN crm.customers c ON c.customer_id = r.customer_id")


def _athena_text(document: dict[str, object]) -> str:
    return f"/* Presto View: {base64.b64encode(json.dumps(document).encode()).decode()} */"


def test_an_athena_view_is_decoded_to_its_sql_and_its_base_tables_in_its_schema() -> None:
    found = {"TableType": "VIRTUAL_VIEW", "ViewOriginalText": _athena_text({"originalSql": SQL, "schema": "sales"})}
    view = describe_view(found, "sales")
    assert view["sql"] == SQL and view["runs_as"] == "invoker" and view["truncated"] is False
    assert [(t["database"], t["table"]) for t in view["base_tables"]] == [("sales", "orders"), ("crm", "customers")]
    assert view["base_tables"][0]["uri"] == "athena://databases/sales/tables/orders"
    assert presto_view("/* Presto View: not base64! */") is None


def test_a_data_catalog_view_shows_its_athena_sql_definer_dialects_and_validated_base_tables() -> None:
    found = {"TableType": "VIRTUAL_VIEW", "CatalogId": "123456789012", "ViewDefinition": {
        "Definer": "arn:aws:iam::123456789012:role/etl", "SubObjects": [
            "arn:aws:glue:us-east-1:123456789012:table/sales/orders",
            "arn:aws:glue:us-east-1:111122223333:table/finance/invoices"],
        "Representations": [{"Dialect": "SPARK", "DialectVersion": "1.0", "ViewOriginalText": "select 1"},
                            {"Dialect": "ATHENA", "DialectVersion": "3", "ViewOriginalText": SQL, "IsStale": False}]}}
    view = describe_view(found, "sales")
    assert view["sql"] == SQL and view["runs_as"] == "definer" and view["definer"].endswith("role/etl")
    assert [d["dialect"] for d in view["dialects"]] == ["SPARK", "ATHENA"]
    assert view["base_tables"][1] == {"database": "finance", "table": "invoices", "catalog": "111122223333",
                                      "uri": None, "explain": None}


def test_no_cte_is_taken_for_a_table() -> None:
    assert [t["table"] for t in base_tables(SQL, "sales")] == ["orders", "customers"]


def test_the_sample_quotes_each_partition_value_as_its_key_type() -> None:
    columns = [{"name": "id", "type": "bigint"}, {"name": "secret", "type": "string", "readable": False}]
    keys = [{"name": "year", "type": "int"}, {"name": "day", "type": "date"}]
    sample = first_query("db", "t", columns, keys, {"year": "2026", "day": "2026-04-30"})
    assert sample is not None
    assert sample["sql"] == ('SELECT "id", "year", "day"\nFROM "db"."t"\nWHERE "year" = 2026 AND '
                             "\"day\" = DATE '2026-04-30'\nLIMIT 10")
    assert first_query("db", "t", [columns[1]], [], None) is None
