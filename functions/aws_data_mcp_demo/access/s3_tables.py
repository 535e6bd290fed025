"""What Athena checks as the caller before it reads an S3 table (IAM mode of the S3 Tables integration).

Glue's GetTable on the bucket's catalog hierarchy (`catalog`, `catalog/s3tablescatalog`,
`catalog/s3tablescatalog/<bucket>`, the database and the table, each ARN with its catalog segment), then S3 Tables'
reads of the bucket and table (`s3tables:GetTableBucket` ... `s3tables:GetTableData`), each decided as the caller
by identity policies (and the table bucket's policy where it has one: moto keeps none). Refusals in Athena's
words for an AWS permission error, naming the action and the ARN, so the fix can be read from them
(`decisions.CallerAccess.s3_table` decides each read).
"""

from __future__ import annotations

from aws_data_mcp_demo.engine.failures import QueryFailure

PERMISSION_ERROR = 1500
"""AthenaError.ErrorType of an IAM permission error."""
TABLE_READS = ("s3tables:GetTableBucket", "s3tables:GetNamespace", "s3tables:GetTable",
               "s3tables:GetTableMetadataLocation", "s3tables:GetTableData")


def glue_arns(region: str, account_id: str, catalog: str, database: str, table: str) -> tuple[str, ...]:
    """The Glue ARNs a read in a child catalog is authorised on (the catalog's path in each)."""
    head = f"arn:aws:glue:{region}:{account_id}"
    root = catalog.split("/", 1)[0]
    return (f"{head}:catalog", f"{head}:catalog/{root}", f"{head}:catalog/{catalog}",
            f"{head}:database/{catalog}/{database}", f"{head}:table/{catalog}/{database}/{table}")


def table_reads(region: str, account_id: str, catalog: str, database: str, table: str, bucket_arn: str,
                table_arn: str) -> list[tuple[str, str]]:
    """Each (action, ARN) Athena asks as the caller to read the table, in its order."""
    steps = [("glue:GetTable", arn) for arn in glue_arns(region, account_id, catalog, database, table)]
    return steps + [(action, bucket_arn if action in TABLE_READS[:2] else table_arn) for action in TABLE_READS]


def refusal(action: str, denied: str) -> QueryFailure:
    """Athena's permission error for a read refused (`denied`: AWS's "User: ... is not authorized ..." words)."""
    service = "AWSGlue; Status Code: 400" if action.startswith("glue:") else "S3Tables; Status Code: 403"
    return QueryFailure(f"Insufficient permissions to execute the query. {denied} (Service: {service}; Error Code: "
                        "AccessDeniedException)", error_type=PERMISSION_ERROR)
