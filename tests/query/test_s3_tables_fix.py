"""The details of an S3 Tables refusal: the grant of exactly the refused action on the refused ARN, and the table's
resource and explainer, named as the SQL names the table where AWS's ARN names it by its id."""

from __future__ import annotations

from aws_data_mcp.query.s3_tables_fix import s3_tables_fix

BUCKET = "arn:aws:s3tables:us-east-1:123456789012:bucket/acme-analytics"
EXPLAINER = "permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders"


def _refusal(table: str) -> str:
    return ("Insufficient permissions to execute the query. User: arn:aws:sts::123456789012:assumed-role/r/bob is "
            f"not authorized to perform: s3tables:GetTableData on resource: {BUCKET}/table/{table} because no "
            "identity-based policy allows the s3tables:GetTableData action")


def test_a_table_named_in_its_arn_links_its_resource_and_explainer() -> None:
    details = s3_tables_fix(_refusal("daily_orders"), "sales", "SELECT count(*) FROM daily_orders")
    assert details[0].startswith(f"Grant s3tables:GetTableData on {BUCKET}/table/daily_orders alone")
    assert EXPLAINER in details[1] and "databases/sales/tables/daily_orders" in details[1]


def test_a_table_named_by_its_id_is_the_one_the_sql_names_in_that_catalog() -> None:
    table_id = "0a1b2c3d-1111-4222-8333-444455556666"
    sql = 'SELECT * FROM "s3tablescatalog/acme-analytics"."sales"."daily_orders" JOIN x.y ON true'
    assert EXPLAINER in s3_tables_fix(_refusal(table_id), None, sql)[1]
    assert len(s3_tables_fix(_refusal(table_id), "sales", "SELECT * FROM daily_orders")) == 1  # no name: no link
