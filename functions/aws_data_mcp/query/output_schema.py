"""The `outputSchema` of `athena_query` and `athena_stop_query`: the JSON Schema of a `QueryAnswer` (answers.py).

Written out rather than generated: pydantic builds no schema from `typing.TypedDict` on Python 3.11, and the
`NotRequired` keys are invisible there under postponed annotations. A client validates every answer that is not
an error against it (the SDK's client does); tests validate real answers of every kind against it.
"""

from __future__ import annotations

from typing import Any

_TEXT: dict[str, Any] = {"type": ["string", "null"]}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_MS: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}
_ERROR: dict[str, Any] = {
    "type": "object", "required": ["error", "message"],
    "properties": {"error": {"type": "string"}, "message": {"type": "string"},
                   "details": {"type": "array", "items": {"type": "string"}}, "retryable": {"type": "boolean"},
                   "action": {"type": "string"}, "explain": {"type": "string"}},
}
"""The structured error of this server (`ResourceFailure.payload()`, or `brief()` beside an item)."""

STATISTICS: dict[str, Any] = {
    "type": "object",
    "required": ["data_scanned_bytes", "billed_bytes", "cost_usd", "price_per_tb_usd", "engine_ms", "queued_ms",
                 "total_ms"],
    "properties": {"data_scanned_bytes": _COUNT, "billed_bytes": _COUNT,
                   "cost_usd": {"type": "number", "minimum": 0}, "price_per_tb_usd": {"type": "number", "minimum": 0},
                   "engine_ms": _MS, "queued_ms": _MS, "total_ms": _MS},
}
RESULTS: dict[str, Any] = {
    "type": ["object", "null"],
    "required": ["columns", "rows", "returned", "first_row", "more_rows", "next_uri", "cut_to_budget",
                 "truncated_values", "whole_values_file"],
    "properties": {
        "columns": {"type": "array", "items": {"type": "object", "required": ["name", "type"],
                                               "properties": {"name": {"type": "string"}, "type": _TEXT}}},
        "rows": {"type": "array", "items": {"type": "array"}},
        "returned": _COUNT, "first_row": _COUNT, "more_rows": {"type": "boolean"}, "next_uri": _TEXT,
        "cut_to_budget": {"type": "boolean"},
        "truncated_values": {"type": "array", "items": {
            "type": "object", "required": ["row", "column", "original_length", "kept_length"],
            "properties": {"row": _COUNT, "column": {"type": "string"}, "original_length": _COUNT,
                           "kept_length": _COUNT}}},
        "whole_values_file": _TEXT,
    },
}
QUERY_ANSWER: dict[str, Any] = {
    "type": "object",
    "required": ["execution_id", "uri", "state", "state_reason", "workgroup", "database", "statement_type",
                 "submitted", "completed", "query", "query_truncated", "statistics", "error", "next_step", "results",
                 "result_file"],
    "properties": {
        "execution_id": {"type": "string"},
        "uri": {"type": "string", "description": "athena://queries/{id}: read it for the state and every page."},
        "state": {"enum": ["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", None]},
        "state_reason": _TEXT, "workgroup": _TEXT, "database": _TEXT, "statement_type": _TEXT,
        "submitted": _TEXT, "completed": _TEXT,
        "query": {"type": "string"}, "query_truncated": {"type": "boolean"},
        "statistics": STATISTICS,
        "error": {"anyOf": [_ERROR, {"type": "null"}]},
        "next_step": _TEXT,
        "results": RESULTS,
        "results_error": _ERROR,
        "result_file": {"type": ["object", "null"], "properties": {
            "s3_uri": {"type": "string"}, "presigned_url": _TEXT, "expires_in_seconds": _COUNT,
            "reason": {"type": "string"}, "error": _ERROR}},
        "estimate": {"type": "object", "description": "estimate_only: what Athena's EXPLAIN (TYPE IO) says the "
                     "query would read and cost, or why it has no estimate."},
    },
}
"""What `athena_query` and `athena_stop_query` answer when it is not an error (a failed query, or one the cutoff
stopped, is `isError`, still in this shape)."""
