"""An S3 table bucket's tables where a user looks for them, through the real protocol (the SDK client over HTTP on
both revisions, get_resource, the Lambda handler with API Gateway events): found by athena://search (which Glue's
SearchTables does not index), described by the table resource naming its table bucket, and listed by
tabulator://buckets beside the bucket an Iceberg table writes its data to. The default catalog's reads cost what they
did.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp_types import ResourceTemplateReference

from aws_data_mcp.config import Settings
from support.faults import AwsFaults
from support.reading import direct_read, read_everywhere
from support.s3_tables_lake import (
    BUCKET_CATALOG,
    DAILY_LOCATION,
    DAILY_METADATA,
    DATA,
    LAKE,
    SECOND_DAY,
    TABLE_BUCKET,
    TABLE_BUCKET_ARN,
    UNINTEGRATED,
    s3_tables_lake,
)
from support.servers import ServerThread, free_port

pytestmark = pytest.mark.anyio
__all__ = ["s3_tables_lake"]

ENCODED = "athena://catalogs/s3tablescatalog%2Facme-analytics"
DAILY_URI = f"{ENCODED}/databases/sales/tables/daily_orders"


@pytest.fixture(scope="module")
def server(s3_tables_lake: None) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port())) as thread:
        yield thread


def _sts_free(calls: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in calls.items() if not k.startswith("sts.") and v}


# --------------------------------------------------------------------------- search

async def test_search_finds_an_s3_table_naming_its_catalog_and_linking_its_uri(server: ServerThread,
                                                                               local_lambda_handler: Any) -> None:
    answer = await read_everywhere(server.url, local_lambda_handler, "athena://search?q=revenue")
    tables = [(h["catalog"], h["database"], h["table"], h["matched"]) for h in answer["hits"] if h["kind"] == "table"]
    assert tables == [("AwsDataCatalog", "lakehouse", "daily_revenue_report", "name"),
                      (BUCKET_CATALOG, "sales", "daily_orders", "column")]
    s3_hit = answer["hits"][1]
    assert s3_hit["uri"] == DAILY_URI and s3_hit["format"] == "iceberg" and s3_hit["location"] == DAILY_LOCATION
    assert s3_hit["columns"] == [{"name": "revenue_usd", "type": "decimal(12,2)", "comment": "gross revenue in USD"}]
    assert "owner" not in s3_hit
    assert answer["catalogs_searched"] == ["AwsDataCatalog", BUCKET_CATALOG]
    assert answer["not_integrated"] == [UNINTEGRATED] and answer["catalog_errors"] == []


def test_a_search_hit_links_a_table_resource_that_reads(s3_tables_lake: None) -> None:
    hit = next(h for h in direct_read("athena://search?q=daily orders")["hits"] if h["catalog"] == BUCKET_CATALOG)
    assert hit["matched"] == "name" and direct_read(hit["uri"])["name"] == "daily_orders"


def test_search_narrowed_to_a_namespace_lists_only_its_tables(s3_tables_lake: None, aws_faults: AwsFaults) -> None:
    answer = direct_read("athena://search?q=revenue&database=sales")
    assert [(h["catalog"], h["table"]) for h in answer["hits"]] == [(BUCKET_CATALOG, "daily_orders")]
    aws_faults.calls.clear()
    assert direct_read("athena://search?q=revenue&database=nowhere")["hits"] == []
    assert aws_faults.calls["glue.GetTables"] == 0  # no namespace of that name: no table listed


def test_search_costs_one_wave_per_level_of_the_s3_tables_catalogs(s3_tables_lake: None,
                                                                   aws_faults: AwsFaults) -> None:
    direct_read("athena://search?q=orders")
    assert _sts_free(aws_faults.calls) == {
        "glue.SearchTables": 1, "athena.ListNamedQueries": 1, "s3tables.ListTableBuckets": 1,
        "glue.GetDatabases": 2, "glue.GetTables": 1}  # GetDatabases: each table bucket's catalog, one not integrated


def test_table_buckets_denied_leave_the_glue_catalogs_hits_and_say_why(s3_tables_lake: None,
                                                                       aws_faults: AwsFaults) -> None:
    aws_faults.fail("s3tables.ListTableBuckets", "AccessDeniedException", status=403)
    answer = direct_read("athena://search?q=revenue")
    assert [h["catalog"] for h in answer["hits"]] == ["AwsDataCatalog"]
    (error,) = answer["catalog_errors"]
    assert error["catalog"] == "s3tablescatalog" and error["error"]["error"] == "access_denied"
    assert error["error"]["action"] == "s3tables:ListTableBuckets"


def test_a_namespace_denied_is_kept_beside_the_hits(s3_tables_lake: None, aws_faults: AwsFaults) -> None:
    aws_faults.fail("glue.GetTables", "AccessDeniedException", when=lambda r: b"CatalogId" in r.body)
    answer = direct_read("athena://search?q=revenue")
    assert answer["catalog_errors"] == [{"catalog": BUCKET_CATALOG, "database": "sales", "error": {
        **answer["catalog_errors"][0]["error"], "error": "access_denied", "action": "glue:GetTables"}}]


def test_a_namespace_slower_than_the_deadline_is_said_and_the_glue_hits_stand(s3_tables_lake: None,
                                                                               aws_faults: AwsFaults) -> None:
    direct_read("athena://search?q=revenue")  # the caller and its clients are built before the clock starts
    slow = aws_faults.hold("glue.GetTables")  # only the S3 Tables listing calls it: answers once the test is over
    answer = direct_read("athena://search?q=revenue", Settings(mode="local", request_timeout_seconds=3.0))
    assert slow.passed == 0 and [h["table"] for h in answer["hits"]] == ["daily_revenue_report"]
    (late,) = answer["catalog_errors"]
    assert (late["catalog"], late["database"], late["error"]["error"]) == (BUCKET_CATALOG, "sales", "timeout")


def test_a_hit_read_in_a_named_account_links_the_s3_table_there() -> None:
    from aws_data_mcp.config import Account
    from aws_data_mcp.identity.accounts import reading_in
    from aws_data_mcp.resources.athena.search import table_hit
    from support.s3_tables_lake import DAILY_ORDERS

    with reading_in(Account("prod", "123456789012")):
        hit = table_hit(DAILY_ORDERS, "revenue", ["revenue"], None, BUCKET_CATALOG)
    assert hit["uri"] == f"{DAILY_URI}?account=prod" and hit["catalog"] == BUCKET_CATALOG


# --------------------------------------------------------------------------- the S3 table's resource

async def test_an_s3_table_reads_as_an_iceberg_table_and_names_its_table_bucket(server: ServerThread,
                                                                                 local_lambda_handler: Any) -> None:
    table = await read_everywhere(server.url, local_lambda_handler, DAILY_URI)
    assert table["catalog"] == BUCKET_CATALOG and table["table_bucket"] == TABLE_BUCKET_ARN
    iceberg = table["iceberg"]
    assert iceberg["source"] == "metadata_file" and iceberg["metadata_location"] == DAILY_METADATA
    assert iceberg["format_version"] == 2 and iceberg["partition_spec"]["fields"] == []
    assert [(f["id"], f["name"], f["type"]) for f in iceberg["current_schema"]["fields"]] == [
        (1, "order_date", "date"), (2, "orders", "long"), (3, "revenue_usd", "decimal(12, 2)")]
    assert [s["snapshot_id"] for s in iceberg["snapshots"]] == [SECOND_DAY, SECOND_DAY // 2]
    assert iceberg["branches"] == [
        {"name": "main", "snapshot_id": SECOND_DAY, "sql": iceberg["time_travel"]["by_version"]}]
    assert iceberg["time_travel"]["by_version"] == (
        f'SELECT * FROM "{BUCKET_CATALOG}"."sales"."daily_orders" FOR VERSION AS OF {SECOND_DAY}')
    assert iceberg["time_travel"]["metadata_tables"][0] == (
        f'SELECT * FROM "{BUCKET_CATALOG}"."sales"."daily_orders$snapshots"')


def test_an_s3_tables_metadata_file_unread_leaves_glues_copy(s3_tables_lake: None, aws_faults: AwsFaults) -> None:
    aws_faults.fail("s3.GetObject", "AccessDenied", status=403)
    table = direct_read(DAILY_URI)
    assert table["iceberg"]["source"] == "glue" and table["iceberg"]["current_schema"]["fields"][1]["id"] == 2
    assert "s3:GetObject" in table["iceberg"]["unread"] and table["table_bucket"] == TABLE_BUCKET_ARN


def test_a_default_catalog_table_names_no_table_bucket(s3_tables_lake: None) -> None:
    for uri in ("athena://databases/lakehouse/tables/orders_iceberg",
                "athena://catalogs/AwsDataCatalog/databases/lakehouse/tables/orders_iceberg"):
        assert "table_bucket" not in direct_read(uri)


# --------------------------------------------------------------------------- tabulator://buckets

async def test_buckets_name_the_table_buckets_and_where_iceberg_writes(server: ServerThread,
                                                                       local_lambda_handler: Any) -> None:
    answer = await read_everywhere(server.url, local_lambda_handler, "tabulator://buckets")
    by_name = {b["bucket"]: b for b in answer["buckets"]}
    assert by_name[LAKE] == {"bucket": LAKE, "kind": "bucket", "table_count": 2, "databases": [
        {"database": "lakehouse", "tables": ["daily_revenue_report", "orders_iceberg"]}]}
    assert by_name[DATA] == {"bucket": DATA, "kind": "bucket", "table_count": 0, "databases": [],
                             "writes": [{"database": "lakehouse", "tables": ["orders_iceberg"]}]}
    assert by_name[TABLE_BUCKET] == {"bucket": TABLE_BUCKET, "kind": "table bucket", "table_count": 1,
                                     "databases": [{"database": "sales", "tables": ["daily_orders"]}],
                                     "arn": TABLE_BUCKET_ARN, "catalog": BUCKET_CATALOG}
    assert by_name[UNINTEGRATED]["kind"] == "table bucket" and by_name[UNINTEGRATED]["table_count"] == 0
    assert "table_buckets_error" not in answer and answer["database_errors"] == []


def test_buckets_cost_two_waves_and_no_call_for_write_paths(s3_tables_lake: None, aws_faults: AwsFaults) -> None:
    direct_read("tabulator://buckets")
    assert _sts_free(aws_faults.calls) == {"glue.GetDatabases": 1, "glue.GetTables": 1,
                                           "s3tables.ListTableBuckets": 1, "s3tables.ListTables": 2}


def test_table_buckets_denied_leave_the_glue_tables_buckets(s3_tables_lake: None, aws_faults: AwsFaults) -> None:
    aws_faults.fail("s3tables.ListTableBuckets", "AccessDeniedException", status=403)
    answer = direct_read("tabulator://buckets")
    assert sorted(b["bucket"] for b in answer["buckets"]) == [LAKE, DATA]
    assert answer["table_buckets_error"]["action"] == "s3tables:ListTableBuckets"


def test_recommendations_judge_the_general_purpose_buckets_only(s3_tables_lake: None) -> None:
    """A table bucket's namespaces are not the default catalog's databases: no finding names its tables."""
    answer = direct_read("permissions://recommendations")
    assert "daily_orders" not in json.dumps(answer) and TABLE_BUCKET not in json.dumps(answer)


# --------------------------------------------------------------------------- the default catalog's cost, completion

@pytest.mark.parametrize(("uri", "calls"), [
    ("athena://databases", {"athena.ListDataCatalogs": 1, "glue.GetDatabases": 1}),
    ("athena://databases/lakehouse/tables", {"glue.GetTables": 1}),
    # GetTable, then what is known of the table before a query (its column statistics, Data Quality's results)
    ("athena://databases/lakehouse/tables/daily_revenue_report", {
        "glue.GetTable": 1, "glue.GetColumnStatisticsForTable": 1, "glue.ListDataQualityResults": 1}),
])
def test_the_default_catalogs_reads_cost_what_they_did(s3_tables_lake: None, aws_faults: AwsFaults, uri: str,
                                                       calls: dict[str, int]) -> None:
    direct_read(uri)
    assert {k: v for k, v in _sts_free(aws_faults.calls).items() if not k.startswith("lakeformation.")} == calls
    assert not any(k.startswith("s3tables.") for k in aws_faults.calls)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_completion_offers_the_table_buckets_catalog_where_search_links(server: ServerThread,
                                                                             mode: str) -> None:
    table = ResourceTemplateReference(uri="athena://catalogs/{catalog}/databases/{database}/tables/{table}")
    async with Client(server.url, mode=mode) as client:
        catalogs = await client.complete(table, {"name": "catalog", "value": "s3tablescatalog/"})
        tables = await client.complete(table, {"name": "table", "value": ""},
                                       {"catalog": BUCKET_CATALOG, "database": "sales"})
    assert catalogs.completion.values == [BUCKET_CATALOG] and tables.completion.values == ["daily_orders"]
