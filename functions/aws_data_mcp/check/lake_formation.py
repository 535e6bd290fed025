"""Lake Formation's mode in the account: whether IAM alone still decides table access (new tables grant
`IAM_ALLOWED_PRINCIPALS`), or Lake Formation's grants do, which changes what the explainers can settle."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.check.findings import Finding
from aws_data_mcp.check.target import Target

CHECK = "Lake Formation"


def lake_formation_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    try:
        settings = client(session, "lakeformation", target.settings).get_data_lake_settings()["DataLakeSettings"]
    except ClientError as error:
        yield Finding(CHECK, "data lake settings", "unknown", f"not readable ({error.response['Error']['Code']})",
                      fix="settle: aws lakeformation get-data-lake-settings as an administrator")
        return
    defaults = settings.get("CreateTableDefaultPermissions", [])
    iam_allowed = any(p.get("Principal", {}).get("DataLakePrincipalIdentifier") == "IAM_ALLOWED_PRINCIPALS"
                      for p in defaults)
    admins = [a.get("DataLakePrincipalIdentifier", "") for a in settings.get("DataLakeAdmins", [])]
    mode = ("IAM decides access to new tables (they grant IAM_ALLOWED_PRINCIPALS); Lake Formation's grants apply "
            "only where a location is registered in its own mode" if iam_allowed else
            "Lake Formation's grants decide access to new tables (no IAM_ALLOWED_PRINCIPALS default)")
    yield Finding(CHECK, "data lake settings", "ok", f"{mode}; administrators: {', '.join(admins) or 'none'}")
