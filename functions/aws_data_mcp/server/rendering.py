"""The one JSON rendering of every answer: compact, UTF-8, AWS types made JSON, within the character budget."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from aws_data_mcp.observability import logger


def to_json(value: Any) -> str:
    """The one JSON rendering every resource uses: compact, UTF-8, dates in ISO 8601."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    """AWS types JSON lacks: timestamps (botocore), Decimal (DynamoDB), bytes (blobs, as base64)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def within_budget(document: Mapping[str, Any], budget: int, reason: str) -> str:
    """`document` as JSON; over `budget`, with an `over_budget` note saying by how much and why."""
    text = to_json(document)
    if len(text) <= budget:
        return text
    logger.warning("response over the character budget", extra={"chars": len(text), "budget": budget})
    return to_json({**document, "over_budget": {"budget": budget, "characters": len(text), "reason": reason}})
