"""What Athena checks as the caller before it reads an S3 table (IAM mode of the S3 Tables integration).

Glue's GetTable on the bucket's catalog hierarchy (`catalog`, `catalog/s3tablescatalog`,
`catalog/s3tablescatalog/<bucket>`, the database and the table, each ARN with its catalog segment), then S3 Tables'
reads of the bucket and table (`s3tables:GetTableBucket` ... `s3tables:GetTableData`), each decided as the caller
by identity policies (and the table bucket's policy where it has one: moto keeps none). Refusals in Athena's
words for an AWS permission error, naming the action and the ARN, so the fix can be read from them.
"""

from __future__ import annotations

from aws_data_mcp_demo.access.decisions import Caller, decide, not_authorized
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


def check_s3_table(caller: Caller, region: str, catalog: str, database: str, table: str, bucket_arn: str,
                   table_arn: str) -> None:
    """Raises Athena's permission error at the first read the caller may not make."""
    context = caller.through_athena()
    steps = [("glue:GetTable", arn) for arn in glue_arns(region, caller.account_id, catalog, database, table)]
    steps += [(action, bucket_arn if action in TABLE_READS[:2] else table_arn) for action in TABLE_READS]
    for action, arn in steps:
        verdict = decide(caller, action, arn, context=context)
        if not verdict.allowed:
            service = "AWSGlue; Status Code: 400" if action.startswith("glue:") else "S3Tables; Status Code: 403"
            raise QueryFailure(f"Insufficient permissions to execute the query. "
                               f"{not_authorized(caller, action, arn, verdict)} (Service: {service}; Error Code: "
                               "AccessDeniedException)", error_type=PERMISSION_ERROR)
