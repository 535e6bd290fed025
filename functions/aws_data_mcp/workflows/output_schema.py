"""The `outputSchema` of the workflow tools: a change answers the workflow (`Workflow.view()`), a deletion what it
deleted. Written out, beside the model it describes; tests validate every tool's real answers against it."""

from __future__ import annotations

from typing import Any

from aws_data_mcp.workflows.model import STEP_STATUSES

_STATUS: dict[str, Any] = {"enum": ["pending", "in_progress", "completed", "failed"]}
"""A workflow's status, derived from its steps (`Workflow.status`)."""
_COUNTS: dict[str, Any] = {"type": "object", "required": list(STEP_STATUSES),
                           "properties": {status: {"type": "integer", "minimum": 0} for status in STEP_STATUSES}}
_STEP: dict[str, Any] = {
    "type": "object", "required": ["id", "title", "status", "note", "result", "updated_at"],
    "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "status": {"enum": list(STEP_STATUSES)},
                   "note": {"type": ["string", "null"]}, "result": {"type": ["string", "null"]},
                   "updated_at": {"type": "string"}},
}
WORKFLOW: dict[str, Any] = {
    "type": "object",
    "required": ["id", "name", "description", "status", "version", "created_at", "updated_at", "step_counts",
                 "steps", "status_uri"],
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"},
                   "status": _STATUS, "version": {"type": "integer", "minimum": 1},
                   "created_at": {"type": "string"}, "updated_at": {"type": "string"}, "step_counts": _COUNTS,
                   "steps": {"type": "array", "items": _STEP}, "status_uri": {"type": "string"}},
}
CHANGED: dict[str, Any] = {
    "type": "object", "required": ["done", "workflow"],
    "properties": {"done": {"type": "string", "description": "What was done: created, updated, step added..."},
                   "workflow": WORKFLOW},
}
"""Every workflow tool but `workflow_delete`."""
DELETED: dict[str, Any] = {
    "type": "object", "required": ["done", "deleted"],
    "properties": {"done": {"const": "deleted"}, "deleted": {
        "type": "object", "required": ["id", "name", "status", "version", "updated_at", "step_counts", "step_count"],
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "status": _STATUS,
                       "version": {"type": "integer", "minimum": 1}, "updated_at": {"type": "string"},
                       "step_counts": _COUNTS, "step_count": {"type": "integer", "minimum": 0}}}},
}
"""`workflow_delete`."""
