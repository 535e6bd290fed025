"""`permissions://buckets/{bucket}`: registered here; the chain of checks lives in `bucket_chain`, imported on the
first read of a bucket's explainer rather than on every cold start that never reads one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import ResourceRequest, registry

BUCKET_NAME = re.compile(r"^(?!xn--)(?!.*\.\.)[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$")
"""S3's rules for a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens."""


def checked_bucket(value: str) -> None:
    if not BUCKET_NAME.match(value):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "bucket must be an S3 bucket name: 3 to 63 lowercase "
                              "letters, digits, dots and hyphens", details=["permissions://discover lists buckets."])


def complete_bucket(request: ResourceRequest, prefix: str) -> list[str]:
    buckets = request.client("s3").list_buckets().get("Buckets", [])
    return [b["Name"] for b in buckets if b["Name"].startswith(prefix)]


@registry.resource(
    "permissions://buckets/{bucket}",
    name="permissions-bucket",
    title="What can I do with this bucket, and why",
    description="The caller's list, read and write access to one bucket, link by link as the caller: the listing, "
    "a one-byte read (S3 and KMS), a simulated write weighed with the bucket policy, Lake Formation registration, "
    "Block Public Access and ownership; each link with its verdict, evidence and, for a denial, the fix to copy.",
    requires="auth",
    aws_calls=["s3:ListBucket", "s3:GetBucketPolicy", "s3:GetEncryptionConfiguration", "s3:GetObject",
               "kms:Decrypt", "kms:GetKeyPolicy", "kms:ListAliases", "lakeformation:ListResources",
               "s3:GetBucketPublicAccessBlock", "s3:GetBucketOwnershipControls", "iam:SimulatePrincipalPolicy",
               "s3:ListAllMyBuckets"],
    completions={"bucket": complete_bucket},
    argument_checks={"bucket": checked_bucket},
    example="permissions://buckets/my-data-lake",
)
def explain_bucket(request: ResourceRequest) -> Mapping[str, Any]:
    from aws_data_mcp.explainer import bucket_chain

    return bucket_chain.explain_bucket(request)
