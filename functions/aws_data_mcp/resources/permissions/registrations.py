"""Lake Formation's registered locations: where Lake Formation, not IAM, decides who reads the data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def registered_locations(lakeformation: Any) -> list[str]:
    """Every registered location's ARN (all pages of ListResources)."""
    found, token = [], None
    while True:
        page = lakeformation.list_resources(**({"NextToken": token} if token else {}))
        found += [r["ResourceArn"] for r in page.get("ResourceInfoList", [])]
        token = page.get("NextToken")
        if not token:
            return found


def locations_in(bucket: str, registered: Sequence[str]) -> list[str]:
    """The registered locations in `bucket` (the bucket itself, or prefixes of it)."""
    whole = f"arn:aws:s3:::{bucket}"
    return [arn for arn in registered if arn == whole or arn.startswith(whole + "/")]
