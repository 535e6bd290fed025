"""The request context of the emulated account's requests, which policy conditions read.

A direct request comes through the VPC endpoint ``DEMO_VPC_ENDPOINT``, so ``aws:SourceVpce`` is present.
A request through Athena is a forward access session: ``aws:CalledVia`` names Athena, no network key.
So a VPC-endpoint-only bucket refuses Athena's reads, but not the caller's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_data_mcp_demo.access.conditions import Context

DEMO_VPC_ENDPOINT = "vpce-0a1b2c3d"
"""The S3 VPC endpoint the demo's direct requests come through."""
ATHENA = "athena.amazonaws.com"


def _principal(principal_arn: str, account_id: str) -> dict[str, str]:
    return {"aws:PrincipalArn": principal_arn, "aws:PrincipalAccount": account_id, "aws:SecureTransport": "true"}


def direct_context(principal_arn: str, account_id: str, **keys: str) -> Context:
    """A request the caller signs and sends from the demo's network (plus service keys such as ``s3:prefix``)."""
    return {**_principal(principal_arn, account_id), "aws:SourceVpce": DEMO_VPC_ENDPOINT,
            "aws:ViaAWSService": "false", **keys}


def athena_context(principal_arn: str, account_id: str, **keys: str) -> Context:
    """A request Athena makes with the caller's forward access session (plus service keys)."""
    return {**_principal(principal_arn, account_id), "aws:ViaAWSService": "true", "aws:CalledVia": [ATHENA],
            "aws:CalledViaFirst": ATHENA, "aws:CalledViaLast": ATHENA, **keys}


def via_s3(context: Context, region: str) -> Context:
    """The KMS request S3 makes for a request in `context` (an SSE-KMS object read or written)."""
    return {**context, "kms:ViaService": f"s3.{region}.amazonaws.com", "aws:ViaAWSService": "true"}


def s3_request_keys(action: str, query: Mapping[str, Any], headers: Mapping[str, str]) -> dict[str, str]:
    """The S3 condition keys a direct request carries: ``s3:prefix`` of a listing, the encryption a write asks for."""
    keys: dict[str, str] = {}
    prefix = query.get("prefix")
    if action == "s3:ListBucket" and prefix is not None:
        keys["s3:prefix"] = str(prefix[0] if isinstance(prefix, list) else prefix)
    lowered = {name.lower(): value for name, value in headers.items()}
    for header in ("x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id"):
        if action == "s3:PutObject" and header in lowered:
            keys[f"s3:{header}"] = lowered[header]
    return keys
