"""`permissions://tables/{database}/{table}`: registered here; the chain of checks lives in `table_chain` (a view's
in `views`), imported on the first read of a table's explainer rather than on every cold start that never reads one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import complete_database, complete_table

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
