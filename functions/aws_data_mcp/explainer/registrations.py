"""Lake Formation's registered locations: where Lake Formation, not IAM, decides who reads the data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def registered_resources(lakeformation: Any) -> list[dict[str, Any]]:
    """Every registered location (all pages of ListResources): its ResourceArn and HybridAccessEnabled (hybrid
    access mode: Lake Formation decides only for the principals opted in, IAM for the others)."""
    found, token = [], None
    while True:
        page = lakeformation.list_resources(**({"NextToken": token} if token else {}))
        found += page.get("ResourceInfoList", [])
        token = page.get("NextToken")
        if not token:
            return found


def registered_locations(lakeformation: Any) -> list[str]:
    """Every registered location's ARN."""
    return [r["ResourceArn"] for r in registered_resources(lakeformation)]


def locations_in(bucket: str, registered: Sequence[str]) -> list[str]:
    """The registered locations in `bucket` (the bucket itself, or prefixes of it)."""
    whole = f"arn:aws:s3:::{bucket}"
    return [arn for arn in registered if arn == whole or arn.startswith(whole + "/")]
