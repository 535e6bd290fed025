"""`permissions://tables/{database}/{table}` and its catalog-named twin: registered here; the chains of checks live
in `table_chain`, `views` and `s3_tables`, imported on the first read of an explainer rather than on every cold
start."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import complete_database, complete_table
from aws_data_mcp.resources.athena.catalogs import complete_catalog, complete_catalog_database, complete_catalog_table

GLUE_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,255}$")
"""A Glue database or table name as Athena queries it: letters, digits, _ and -."""


def checked_name(value: str) -> None:
    """A Glue name Athena can query, refused before any call (STS's included) when it is not one."""
    if not GLUE_NAME.match(value):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "database and table must be Glue names: letters, digits, "
                              "_ and -, at most 255", details=["athena://databases lists the databases you can read."])


@registry.resource(
    "permissions://tables/{database}/{table}",
    name="permissions-table",
    title="Why can (or can't) I query this table",
    description="Whether a SELECT on the table would run for the caller, link by link as the caller: the "
    "workgroups (describable, cutoff enforced, results writable), Glue (database, table, a Hive table's "
    "partitions), Lake Formation (registration, grants, readable columns), S3 (list, read, bucket policy, where "
    "Athena reads: an Iceberg table's metadata file, manifests and data files, a projected table's locations) and "
    "KMS (decrypt); each link with its verdict, evidence and, for a denial, the fix to copy and who applies it. A "
    "view's base tables are followed as Athena reads them: as the caller for an Athena view, as its definer for a "
    "Data Catalog view (the caller's Lake Formation SELECT on the view).",
    requires="auth",
    aws_calls=["glue:GetDatabase", "glue:GetTable", "glue:GetPartitions", "lakeformation:ListResources",
               "lakeformation:ListPermissions", "lakeformation:GetDataLakeSettings", "athena:GetWorkGroup",
               "iam:SimulatePrincipalPolicy", "s3:ListBucket", "s3:GetBucketPolicy", "s3:GetEncryptionConfiguration",
               "s3:GetObject", "kms:Decrypt", "kms:GetKeyPolicy", "kms:ListAliases", "s3:ListAllMyBuckets"],
    completions={"database": complete_database, "table": complete_table},
    argument_checks={"database": checked_name, "table": checked_name},
    example="permissions://tables/sales/orders",
)
def explain_table(request: ResourceRequest) -> Mapping[str, Any]:
    from aws_data_mcp.explainer import views

    return views.explain_table(request)



S3_TABLES_CATALOG = re.compile(r"^s3tablescatalog/[a-z0-9][a-z0-9\-]{1,61}[a-z0-9]$")
"""A table bucket's catalog, as Athena names it: `s3tablescatalog/` and the bucket's name."""


def checked_catalog(value: str) -> None:
    """A catalog this explainer reads: an S3 table bucket's, or the default one; refused before any call."""
    if value != GLUE_CATALOG and not S3_TABLES_CATALOG.match(value):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Catalog {value!r} is not explained here: an S3 table "
                              "bucket's catalog (s3tablescatalog/<bucket>, one URI segment: s3tablescatalog%2F"
                              "<bucket>) or AwsDataCatalog", details=[
                                  "athena://catalogs lists the catalogs; permissions://tables/{database}/{table} "
                                  "explains the default catalog's tables."])


def complete_explained_catalog(request: ResourceRequest, prefix: str) -> list[str]:
    return [name for name in complete_catalog(request, prefix)
            if name == GLUE_CATALOG or S3_TABLES_CATALOG.match(name)]


@registry.resource(
    "permissions://catalogs/{catalog}/tables/{database}/{table}",
    name="permissions-catalog-table",
    title="Why can (or can't) I query this S3 table",
    description="Whether a SELECT on a table of an S3 table bucket's catalog (s3tablescatalog%2F<bucket>) would "
    "run for the caller, link by link: Glue (GetCatalog, GetDatabase, GetTable on the ARNs with the catalog's "
    "path), Lake Formation's grants where it governs the table, S3 Tables (GetTableBucket, GetNamespace, GetTable, "
    "GetTableMetadataLocation probed as the caller; GetTableData as IAM's simulator decides it, weighed with the "
    "table bucket's and the table's policies), the bucket's KMS key and the workgroups; each denial with its fix. "
    "AwsDataCatalog is permissions://tables/{database}/{table}'s answer.",
    requires="auth",
    aws_calls=["glue:GetDatabase", "glue:GetTable", "s3tables:GetTableBucket", "s3tables:GetNamespace",
               "s3tables:GetTable", "s3tables:GetTableMetadataLocation", "s3tables:GetTableBucketPolicy",
               "s3tables:GetTablePolicy", "s3tables:GetTableBucketEncryption", "iam:SimulatePrincipalPolicy",
               "kms:GetKeyPolicy", "lakeformation:ListPermissions", "athena:GetWorkGroup"],
    completions={"catalog": complete_explained_catalog, "database": complete_catalog_database,
                 "table": complete_catalog_table},
    argument_checks={"catalog": checked_catalog, "database": checked_name, "table": checked_name},
    example="permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders",
)
def explain_catalog_table(request: ResourceRequest) -> Mapping[str, Any]:
    if request.args["catalog"] == GLUE_CATALOG:
        return explain_table(request)
    from aws_data_mcp.explainer import s3_tables

    return s3_tables.explain_s3_table(request)
