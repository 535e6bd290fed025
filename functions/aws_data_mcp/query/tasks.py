"""`athena_query` as a task: the Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) on the SDK's extension API.

Where a 2026-07-28 client negotiates the extension on its request, an `athena_query` whose query is still running
when the tool's bounded wait ends answers a task (`resultType: "task"`) instead of the link. The task id is the
Athena execution id and Athena keeps the state: `tasks/get` reads `athena://queries/{id}` and `tasks/cancel` calls
StopQueryExecution, both with the caller's own credentials, so any container answers and nothing is stored here
(`tasks/update` has nothing to take: no input is ever asked). An id the caller's Athena does not show them
(another account's, a workgroup they may not read, a made-up one) is an unknown task. A client without the
extension, a 2025-11-25 one, and a call in another listed account (its task id could not name the account) get
today's answer, unchanged. The SDK (2.3.0) has no Tasks runtime; when it has one, this module gives way to it.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import decode_header_value
from mcp_types import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolRequestParams,
    CallToolResult,
    ClientCapabilities,
    MissingRequiredClientCapabilityErrorData,
    RequestParams,
    ResourceLink,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from aws_data_mcp.aws import client, deadline_scope
from aws_data_mcp.errors import ErrorCode, ResourceFailure, as_failure, echo
from aws_data_mcp.identity import accounts
from aws_data_mcp.query.answers import UNFINISHED, query_uri
from aws_data_mcp.query.inputs import validated_execution_id
from aws_data_mcp.reading.deadlines import request_budget, seconds_to_edge_deadline
from aws_data_mcp.server.answers import protocol_error, tool_result
from aws_data_mcp.server.rendering import to_json
from aws_data_mcp.server.tool_host import ToolHost

EXTENSION_ID = "io.modelcontextprotocol/tasks"
TOOL = "athena_query"
POLL_INTERVAL_MS = 2_000
HISTORY_MS = 45 * 24 * 3600 * 1000
"""Athena keeps a query execution for 45 days: the task's `ttlMs`, counted from its creation."""
STATUS_META = "aws-data-mcp/athena"
"""`_meta` key of what Athena says of the query beyond the task's status: its state, bytes scanned, cost so far."""
_STATUS = {"QUEUED": "working", "RUNNING": "working", "SUCCEEDED": "completed", "FAILED": "completed",
           "CANCELLED": "cancelled"}
"""Athena's state -> the task's. A failed query is a completed task whose result is the tool's error (`isError`):
the extension keeps `failed` for a JSON-RPC error."""
UNKNOWN_TASK = (ErrorCode.NOT_FOUND, ErrorCode.ACCESS_DENIED, ErrorCode.INVALID_ARGUMENT)
"""What reading the execution as the caller answers for an id that is not theirs to see: an unknown task."""


class TaskParams(RequestParams):
    """`tasks/get` and `tasks/cancel`: the task's id."""

    task_id: str


class UpdateParams(TaskParams):
    """`tasks/update`: responses to a task's input requests (athena_query asks none)."""

    input_responses: dict[str, Any] | None = None


def negotiated(ctx: ServerRequestContext[Any, Any]) -> bool:
    """This request's client declared the extension (2026-07-28 carries capabilities on every request)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and EXTENSION_ID in capabilities.extensions)


def _iso(value: str | None) -> str:
    return value or datetime.now(UTC).isoformat(timespec="seconds")


def task_of(answer: dict[str, Any]) -> dict[str, Any]:
    """The task an athena_query answer is, as `tasks/get` shows it; with the tool's result once the query ended."""
    state = answer.get("state") or "QUEUED"
    statistics = answer.get("statistics") or {}
    scanned, cost = statistics.get("data_scanned_bytes", 0), statistics.get("cost_usd", 0.0)
    status = _STATUS.get(state, "working")
    task: dict[str, Any] = {
        "taskId": answer["execution_id"], "status": status,
        "statusMessage": f"{state}: {scanned:,} bytes scanned, ${cost:.4f}" + (" so far" if state in UNFINISHED
                                                                               else ""),
        "createdAt": _iso(answer.get("submitted")), "lastUpdatedAt": _iso(answer.get("completed")),
        "ttlMs": HISTORY_MS, "pollIntervalMs": POLL_INTERVAL_MS,
        "_meta": {STATUS_META: {"state": state, "data_scanned_bytes": scanned, "cost_usd": cost,
                                "uri": answer.get("uri")}},
    }
    if status == "completed":
        link = ResourceLink(type="resource_link", uri=query_uri(answer["execution_id"]),
                            name=f"athena-query-{answer['execution_id']}", title="The query's state and results",
                            mime_type="application/json")
        result = tool_result(to_json(answer), answer, link=link, is_error=answer.get("error") is not None)
        task["result"] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return task


class AthenaTasks(Extension):
    """The extension, for one server: `athena_query` answers a task, `tasks/get` and `tasks/cancel` serve it."""

    identifier = EXTENSION_ID

    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def methods(self) -> list[MethodBinding]:
        versions = frozenset(MODERN_PROTOCOL_VERSIONS)
        return [MethodBinding("tasks/get", TaskParams, self._get, versions),
                MethodBinding("tasks/update", UpdateParams, self._update, versions),
                MethodBinding("tasks/cancel", TaskParams, self._cancel, versions)]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        """The tool runs as always (its bounded wait included); a query still running then becomes a task. The
        execution exists in Athena by then, so a `tasks/get` for it resolves at once (the extension's MUST)."""
        result = await call_next(ctx)
        if (params.name != TOOL or not isinstance(result, CallToolResult) or result.is_error
                or accounts.PARAMETER in (params.arguments or {}) or not negotiated(ctx)):
            return result
        answer = result.structured_content or {}
        if answer.get("state") not in UNFINISHED:
            return result
        task = task_of(answer)
        return {"resultType": "task", **task}

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        execution_id = self._execution_id(ctx, params.task_id)
        try:
            reading = await self.host.read(query_uri(execution_id), ctx)
        except ResourceFailure as failure:
            raise self._refusal(failure, params.task_id) from None
        return {"resultType": "complete", **task_of(json.loads(reading.text))}

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> dict[str, Any]:
        """No athena_query task asks for input, so no response is outstanding: they are ignored (the extension's
        SHOULD) once the task is known to be the caller's."""
        await self._get(ctx, params)
        return {"resultType": "complete"}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        """StopQueryExecution as the caller: Athena refuses an id that is not theirs, and stopping a query that
        has ended changes nothing (the acknowledgement is all the extension asks)."""
        execution_id = self._execution_id(ctx, params.task_id)
        deadline = time.monotonic() + request_budget(seconds_to_edge_deadline(ctx),
                                                     self.host.config.request_timeout_seconds)

        def stop() -> None:
            with deadline_scope(deadline):
                caller = self.host.caller_for(ctx)
                athena = client(caller.require_session(), "athena", self.host.config, caller.region)
                athena.stop_query_execution(QueryExecutionId=execution_id)

        try:
            await anyio.to_thread.run_sync(stop, abandon_on_cancel=True)
        except Exception as exc:  # every failure in the shared vocabulary, as the reads answer it
            raise self._refusal(as_failure(exc, "athena:StopQueryExecution"), params.task_id) from None
        return {"resultType": "complete"}

    @staticmethod
    def _execution_id(ctx: ServerRequestContext[Any, Any], task_id: str) -> str:
        """The execution id a task id is, for a client that declared the extension (else -32021, its MUST)."""
        if not negotiated(ctx):
            required = ClientCapabilities(extensions={EXTENSION_ID: {}})
            raise MCPError(code=MISSING_REQUIRED_CLIENT_CAPABILITY, message="Missing required client capability",
                           data=MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
                               mode="json", by_alias=True, exclude_none=True))
        headers = getattr(ctx.request, "headers", None)  # HTTP: the extension's Mcp-Name routes on the task id
        name = decode_header_value(headers.get("mcp-name")) if headers is not None else None
        if name is not None and name != task_id:
            raise MCPError(code=HEADER_MISMATCH, message="Mcp-Name header does not match the request's taskId")
        try:
            return validated_execution_id(task_id)
        except ResourceFailure:
            raise _unknown(task_id) from None

    @staticmethod
    def _refusal(failure: ResourceFailure, task_id: str) -> MCPError:
        """Not the caller's to see: an unknown task; anything else (no credentials, throttled) as a read says it."""
        if failure.code in UNKNOWN_TASK:
            return _unknown(task_id)
        return protocol_error(failure, MODERN_PROTOCOL_VERSIONS[0])


def _unknown(task_id: str) -> MCPError:
    """An id this caller's Athena does not show them, said as the extension's unknown task (invalid params)."""
    return MCPError(code=INVALID_PARAMS, message=f"Unknown task {echo(task_id, 80)!r}",
                    data={"error": ErrorCode.NOT_FOUND.value, "message": "No task with this id for this caller",
                          "details": ["A task is an athena_query execution you may read in Athena; athena://query/"
                                      "history lists yours."], "retryable": False})
