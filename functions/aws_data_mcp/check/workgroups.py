"""The query workgroups `athena_query` runs in: each must exist and be enabled, cap what one query scans (the tool's
cost guard trusts that cutoff), enforce its own settings (else a caller's client could set another results
location), and write results to a bucket that exists, encrypted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client
from aws_data_mcp.check.findings import Finding
from aws_data_mcp.check.target import Target

CHECK = "query workgroup"
SUGGESTED_CUTOFF_BYTES = 10 * 1024**3


def _bucket_of(location: str) -> str:
    return location.removeprefix("s3://").split("/", 1)[0]


def _results_findings(s3: Any, name: str, configuration: dict[str, Any], affected: str) -> Iterator[Finding]:
    if (configuration.get("ManagedQueryResultsConfiguration") or {}).get("Enabled"):
        yield Finding(CHECK, name, "ok", "results are Athena-managed (no bucket to keep)", affected)
        return
    results = configuration.get("ResultConfiguration") or {}
    location = results.get("OutputLocation", "")
    if not location:
        yield Finding(CHECK, name, "fail", "no results location: every query fails", affected,
                      f"aws athena update-work-group --work-group {name} --configuration-updates "
                      "'ResultConfigurationUpdates={OutputLocation=s3://<bucket>/<prefix>/}'")
        return
    bucket = _bucket_of(location)
    try:
        s3.head_bucket(Bucket=bucket)
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if code in ("404", "NoSuchBucket"):
            yield Finding(CHECK, name, "fail", f"its results bucket {bucket} does not exist: every query fails",
                          affected, f"create s3://{bucket}, or point the workgroup at a bucket that exists")
        else:
            yield Finding(CHECK, name, "unknown", f"its results bucket {bucket} could not be read ({code})", affected,
                          f"settle: aws s3api head-bucket --bucket {bucket} with the callers' role")
        return
    if not results.get("EncryptionConfiguration"):
        yield Finding(CHECK, name, "warn", f"results in {location} are not encrypted by the workgroup", affected,
                      f"aws athena update-work-group --work-group {name} --configuration-updates "
                      "'ResultConfigurationUpdates={EncryptionConfiguration={EncryptionOption=SSE_KMS,KmsKey=<key>}}'")
    else:
        yield Finding(CHECK, name, "ok", f"results go to {location}, encrypted", affected)


def workgroup_findings(session: boto3.Session, target: Target) -> Iterator[Finding]:
    settings = target.settings
    athena, s3 = client(session, "athena", settings), client(session, "s3", settings)
    for name in settings.query_workgroups:
        affected = f"every athena_query in {name}"
        try:
            group = athena.get_work_group(WorkGroup=name)["WorkGroup"]
        except ClientError as error:
            code = error.response["Error"]["Code"]
            verdict = "fail" if code in ("InvalidRequestException", "ResourceNotFoundException") else "unknown"
            yield Finding(CHECK, name, verdict, f"the workgroup cannot be read ({code})", affected,
                          "create it, or remove it from AWS_DATA_MCP_QUERY_WORKGROUPS")
            continue
        configuration = group.get("Configuration") or {}
        if group.get("State") != "ENABLED":
            yield Finding(CHECK, name, "fail", "the workgroup is disabled: Athena refuses its queries", affected,
                          f"aws athena update-work-group --work-group {name} --state ENABLED")
        cutoff = configuration.get("BytesScannedCutoffPerQuery")
        if not cutoff:
            yield Finding(CHECK, name, "fail", "no per-query cutoff: one query may scan (and bill) without limit",
                          affected, f"aws athena update-work-group --work-group {name} --configuration-updates "
                          f"BytesScannedCutoffPerQuery={SUGGESTED_CUTOFF_BYTES}")
        else:
            yield Finding(CHECK, name, "ok", f"a query stops at {cutoff:,} bytes scanned", affected)
        if not configuration.get("EnforceWorkGroupConfiguration"):
            yield Finding(CHECK, name, "warn", "the workgroup does not enforce its settings: a client may set "
                          "another results location or none", affected,
                          f"aws athena update-work-group --work-group {name} --configuration-updates "
                          "EnforceWorkGroupConfiguration=true")
        yield from _results_findings(s3, name, configuration, affected)
