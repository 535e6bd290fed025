"""Why a query failed, as Athena classifies it: the caller's statement is `invalid_argument` with its line and
column; the data and Athena itself are upstream failures, retryable where Athena says so; no local path is shown."""

from __future__ import annotations

from typing import Any

import pytest

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.query.errors import athena_error, query_error, query_failure, scrubbed


def failed(reason: str, category: int | None = 2, error_type: int | None = 1000, retryable: bool | None = False,
           scanned: int = 0, state: str = "FAILED") -> dict[str, Any]:
    error = {"ErrorCategory": category, "ErrorType": error_type, "Retryable": retryable, "ErrorMessage": reason}
    return {"QueryExecutionId": "q-1", "WorkGroup": "analysts", "StatementType": "DML",
            "Status": {"State": state, "StateChangeReason": reason,
                       **({"AthenaError": error} if category is not None else {})},
            "Statistics": {"DataScannedInBytes": scanned}}


@pytest.mark.parametrize(("execution", "code", "retryable", "says", "hint"), [
    (failed("SYNTAX_ERROR: line 2:5: mismatched input 'FORM'", error_type=1006), ErrorCode.INVALID_ARGUMENT,
     False, "line 2:5", "syntax"),
    (failed("COLUMN_NOT_FOUND: line 1:8: Column 'nope' cannot be resolved or requester is not authorized to access "
            "requested resources"), ErrorCode.INVALID_ARGUMENT, False, "line 1:8", "spelling"),
    (failed("TABLE_NOT_FOUND: line 1:15: Table 'awsdatacatalog.sales.nope' does not exist"),
     ErrorCode.INVALID_ARGUMENT, False, "line 1:15", "athena://databases/{database}/tables"),
    (failed("HIVE_BAD_DATA: Error parsing field value 'x' for field 2 in file s3://lake/sales/t/part-0.gz",
            error_type=1001), ErrorCode.UPSTREAM_UNAVAILABLE, False, "file s3://lake/sales/t/part-0.gz",
     "not the statement"),
    (failed("GENERIC_INTERNAL_ERROR: Footer length error in file 's3://lake/sales/customers/p.parquet' (table "
            "sales.customers)", category=1, error_type=200, retryable=True), ErrorCode.UPSTREAM_UNAVAILABLE, True,
     "table sales.customers file s3://lake/sales/customers/p.parquet", "not the statement"),
    (failed("HIVE_CURSOR_ERROR: Failed to read Parquet file s3://lake/x/y.parquet", category=None),
     ErrorCode.UPSTREAM_UNAVAILABLE, False, "file s3://lake/x/y.parquet", "format"),
    (failed("GENERIC_INTERNAL_ERROR: null", category=1, error_type=200, retryable=True),
     ErrorCode.UPSTREAM_UNAVAILABLE, True, "Athena failed query q-1", "again later"),
    (failed("Query exhausted resources at this scale factor", category=1, error_type=5, retryable=False),
     ErrorCode.UPSTREAM_UNAVAILABLE, False, "exhausted", "would fail the same way"),
    (failed("HIVE_CANNOT_OPEN_SPLIT: Error opening Hive split s3://lake/x/y (offset=0, length=9): Access Denied "
            "(Service: Amazon S3; Status Code: 403)", error_type=1501), ErrorCode.ACCESS_DENIED, False,
     "Access Denied", "permission"),
    (failed("Access denied when writing output to url: s3://results/q/ (s3:PutObject)", category=None),
     ErrorCode.ACCESS_DENIED, False, "s3://results/q/", "permission"),
    (failed("Query cancelled! : Bytes scanned limit was exceeded", category=None, scanned=1 << 31,
            state="CANCELLED"), ErrorCode.INVALID_ARGUMENT, False, "2,147,483,648 bytes", "partition"),
])
def test_athenas_reasons_become_errors_to_act_on(execution: dict[str, Any], code: ErrorCode, retryable: bool,
                                                 says: str, hint: str) -> None:
    failure = query_failure(execution, 1 << 30)
    assert failure is not None and failure.code is code and failure.retryable is retryable, failure
    assert says in failure.message and hint in " ".join(failure.details), failure
    assert "misspelt" not in " ".join(failure.details)


@pytest.mark.parametrize("state", ["SUCCEEDED", "RUNNING", "QUEUED"])
def test_no_error_where_nothing_failed(state: str) -> None:
    assert query_error(failed("", category=None, state=state)) is None


def test_a_query_its_caller_cancelled_is_no_failure() -> None:
    assert query_error(failed("Query cancelled by user", category=None, state="CANCELLED")) is None


def test_the_error_carries_athenas_classification_without_local_paths() -> None:
    reason = "HIVE_BAD_DATA: Input is not a GZIP stream: /tmp/aws-data-mcp-athena-x1/objects/ab/part-0.json.gz"
    error = query_error(failed(reason, error_type=1001))
    assert error is not None and error["athena"] == {
        "category": "USER", "type": 1001, "retryable": False, "name": "HIVE_BAD_DATA", "line": None, "column": None,
        "table": None, "file": None}
    assert "/tmp" not in str(error) and "<local path>" in error["message"]


@pytest.mark.parametrize(("text", "kept"), [
    ("in file 's3://bucket/a/b/c.parquet'", "in file 's3://bucket/a/b/c.parquet'"),
    ("at /var/folders/x1/T/duck/file.csv: bad", "at <local path>: bad"),
    ("C:\\Users\\me\\AppData\\Local\\Temp\\f.csv bad", "<local path> bad"),
    ("10 rows/second, 3 / 4 done", "10 rows/second, 3 / 4 done"),
    ("file:s3a://lake/x/y", "file:s3a://lake/x/y"),
])
def test_only_local_paths_are_scrubbed(text: str, kept: str) -> None:
    assert scrubbed(text) == kept


def test_line_and_column_are_read_from_the_message() -> None:
    info = athena_error(failed("COLUMN_NOT_FOUND: line 3:14: Column 'x' cannot be resolved"))
    assert (info["name"], info["line"], info["column"], info["category"]) == ("COLUMN_NOT_FOUND", 3, 14, "USER")


DENIED_PATH = ("Permission denied on S3 path: s3://curated/marketing/campaigns/part-0.parquet (User: arn:aws:iam::1:"
               "user/a is not authorized to perform: kms:Decrypt on resource: arn:aws:kms:us-east-1:1:key/k)")


@pytest.mark.parametrize(("sql", "explain", "choices"), [
    ("SELECT * FROM marketing.campaigns", "permissions://tables/marketing/campaigns", []),
    ("SELECT * FROM campaigns", "permissions://tables/marketing/campaigns", []),
    ("WITH c AS (SELECT * FROM campaigns) SELECT * FROM c JOIN sales.orders o ON true",
     "permissions://tables/marketing/campaigns", []),
    ("SELECT * FROM sales.orders JOIN sales.customers ON true", None,
     ["permissions://tables/sales/orders", "permissions://tables/sales/customers"]),
])
def test_a_denied_s3_path_links_the_table_the_query_read(sql: str, explain: str | None, choices: list[str]) -> None:
    """The explainer of the table whose objects were refused, never the bucket's (which samples another prefix);
    where the statement's tables leave it open, each table's explainer is named and no bucket's."""
    execution = failed(DENIED_PATH, error_type=1501) | {"Query": sql,
                                                        "QueryExecutionContext": {"Database": "marketing"}}
    failure = query_failure(execution)
    assert failure is not None and failure.code is ErrorCode.ACCESS_DENIED
    assert failure.explain == explain
    assert not any("permissions://buckets/" in detail for detail in failure.details)
    assert all(any(choice in detail for detail in failure.details) for choice in choices)


def test_a_denial_with_no_table_read_keeps_the_bucket_explainer() -> None:
    execution = failed("Access denied when writing output to url: s3://results/q/ (s3:PutObject)", category=None)
    failure = query_failure(execution | {"Query": "SELECT 1"})
    assert failure is not None and failure.explain == "permissions://buckets/results"
