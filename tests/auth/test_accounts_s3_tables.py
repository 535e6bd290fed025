"""athena://search finds an S3 table in the listed account that holds it, through the Lambda path as a hosted
caller: `?account=lake` lists that account's table buckets as the caller there and links the table where it was
found; `?account=*` labels the hit with its account; the home account, which has no table bucket, finds none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support import moto_lakehouse
from support.servers import lambda_container

from .hosted_support import iam_event, read, status_of
from .test_accounts import IAM_ACCOUNTS, LAKE, _in, estate_fixture

__all__ = ["estate_fixture"]
BUCKET = "lake-tables"
CATALOG = f"s3tablescatalog/{BUCKET}"
CATALOG_ID = f"{LAKE}:{CATALOG}"
TABLE = {"Name": "parcel_scans", "TableType": "EXTERNAL_TABLE", "DatabaseName": "logistics", "CatalogId": CATALOG_ID,
         "Parameters": {"table_type": "ICEBERG"},
         "StorageDescriptor": {"Location": "s3://d1e2-lake-tables--table-s3", "Columns": [
             {"Name": "tracking_code", "Type": "string", "Comment": "the carrier's tracking code"}]}}


@pytest.fixture(scope="module", name="table_bucket")
def table_bucket_fixture(estate: None) -> Iterator[None]:
    """A table bucket in the lake account only, with its Glue catalog declared to moto's extended Glue."""
    s3tables = _in(LAKE).client("s3tables")
    arn = s3tables.create_table_bucket(name=BUCKET)["arn"]
    with pytest.MonkeyPatch.context() as patch:
        for owner, name, replacement in moto_lakehouse.extensions():
            patch.setattr(owner, name, replacement, raising=False)
        patch.setitem(moto_lakehouse.CATALOG_DATABASES, CATALOG_ID, [{"Name": "logistics", "CatalogId": CATALOG_ID}])
        patch.setitem(moto_lakehouse.CATALOG_TABLES, (CATALOG_ID, "logistics"), [TABLE])
        yield
    # The next module's moto has no declared catalog for it: the bucket goes with the declaration.
    s3tables.delete_table_bucket(tableBucketARN=arn)


def _s3_hits(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [h for h in status_of(answer)["hits"] if h["kind"] == "table" and h.get("catalog") == CATALOG]


def test_search_finds_the_s3_table_in_the_account_that_holds_it(table_bucket: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    found = _s3_hits(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://search?q=tracking&account=lake")))
    assert [(h["database"], h["table"], h["matched"]) for h in found] == [("logistics", "parcel_scans", "column")]
    assert found[0]["uri"] == ("athena://catalogs/s3tablescatalog%2Flake-tables/databases/logistics/tables/"
                               "parcel_scans?account=lake")
    assert _s3_hits(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://search?q=tracking"))) == []
    every = _s3_hits(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://search?q=tracking&account=*")))
    assert [(h["account"], h["table"]) for h in every] == [("lake", "parcel_scans")]
