"""workflow://: the caller's multi-step plans, and the tools that change them.

Everything here acts for the caller resolved by the identity seam: a workflow belongs
to the caller's identity digest, and another caller's id reads as `not_found`. The
store itself is reached with the server's own credentials (the workflow table is the
one thing besides STS the function role may use). Never cached: every write changes them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ResourceLink
from pydantic import Field

from aws_data_mcp.aws import deadline_scope
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.observability import logger
from aws_data_mcp.reading.deadlines import request_budget, seconds_to_edge_deadline
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.server.answers import failure_result, tool_result
from aws_data_mcp.server.rendering import to_json
from aws_data_mcp.server.tool_host import host_of
from aws_data_mcp.workflows.failures import store_failure
from aws_data_mcp.workflows.model import Workflow, status_uri
from aws_data_mcp.workflows.output_schema import CHANGED, DELETED
from aws_data_mcp.workflows.service import (
    MAX_DESCRIPTION,
    MAX_NAME,
    MAX_NOTE,
    MAX_RESULT,
    MAX_STEP_ID,
    MAX_STEPS,
    MAX_WORKFLOW_ID,
    Workflows,
    checked_id,
    owner_of,
    store_for,
)
from aws_data_mcp.workflows.table import GET, QUERY

T = TypeVar("T")
LIST_URI = "workflow://workflows"
ANSWER_SECONDS = 0.25
"""Kept at the end of a tool call's budget for the worker to answer what its store calls found..."""
ANSWER_SHARE = 0.05
"""...and at most this share of the budget."""


def workflows_of(request: ResourceRequest) -> Workflows:
    return Workflows(store_for(request.settings), owner_of(request.caller))


@registry.resource(
    LIST_URI,
    name="workflows",
    title="Your workflows",
    description="The caller's own workflows, newest first, with status (derived from the steps) and step counts.",
    requires="auth",
    aws_calls=[QUERY],
    list_field="workflows",
    cacheable=False,
)
def list_workflows(request: ResourceRequest) -> dict[str, Any]:
    found = workflows_of(request).list()
    return {"store": request.settings.workflow_store, "count": len(found),
            "workflows": [workflow.summary() for workflow in found]}


def complete_workflow_id(request: ResourceRequest, prefix: str) -> list[str]:
    return [w.id for w in workflows_of(request).list() if w.id.startswith(prefix)]


@registry.resource(
    "workflow://workflows/{workflow_id}/status",
    name="workflow-status",
    title="One workflow",
    description="One of the caller's workflows with its steps (status, note, result), overall status, timestamps "
    "and version; another caller's id is not found.",
    requires="auth",
    aws_calls=[GET],
    completions={"workflow_id": complete_workflow_id},
    argument_checks={"workflow_id": checked_id},
    example="workflow://workflows/3f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d/status",
    cacheable=False,
)
def workflow_status(request: ResourceRequest) -> dict[str, Any]:
    return workflows_of(request).get(request.args["workflow_id"]).view()


# --------------------------------------------------------------------------- tools


def _status_link(workflow: Workflow) -> ResourceLink:
    return ResourceLink(type="resource_link", uri=status_uri(workflow.id), name=workflow.name,
                        mime_type="application/json")


def _result(payload: dict[str, Any], link: ResourceLink) -> CallToolResult:
    return tool_result(to_json(payload), payload, link=link)


async def _as_caller(ctx: Context, operation: Callable[[Workflows], T]) -> T:
    """Resolve the caller and run `operation` on its workflows, off the event loop and within the request's
    budget. Every store call (a DynamoDB retry included) stops `ANSWER_SECONDS` before that deadline, so the
    worker's own answer (settled, or the outcome unknown) normally comes first; if the deadline still cuts the
    call while one of its writes may land, the answer is that outcome unknown, never a retryable `timeout`."""
    server = host_of(ctx)
    budget = request_budget(seconds_to_edge_deadline(ctx.request_context), server.config.request_timeout_seconds)
    deadline = time.monotonic() + budget
    mine: list[Workflows] = []

    def run() -> T:
        with deadline_scope(deadline - min(ANSWER_SECONDS, budget * ANSWER_SHARE)):
            caller = server.caller_for(ctx.request_context)
            mine.append(Workflows(store_for(server.config), owner_of(caller)))
            return operation(mine[0])

    try:
        with anyio.fail_after(budget):
            return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
    except TimeoutError:
        open_write = mine[0].open_write if mine else None
        if open_write is not None:
            raise open_write from None
        raise


async def _answer(ctx: Context, operation: Callable[[Workflows], Workflow],
                  render: Callable[[Workflow], CallToolResult], *, lists_change: bool = False) -> CallToolResult:
    """Run `operation` for the caller and answer `render(workflow)`, or the error every tool of this server
    answers; then tell whoever listens that the workflow changed, and with it the caller's list (whose entries
    carry each status and version), and on create or delete that the resource list changed."""
    try:
        workflow = await _as_caller(ctx, operation)
    except ResourceFailure as failure:
        return failure_result(failure)
    except TimeoutError as exc:
        return failure_result(store_failure(exc, "tool call"))
    except Exception:
        logger.exception("workflow tool failed")
        return failure_result(ResourceFailure(ErrorCode.INTERNAL, "Internal error in the workflow tool",
                                              details=["This is a server bug; the logs carry the details."]))
    await host_of(ctx).announce((status_uri(workflow.id), LIST_URI), lists_change=lists_change)
    return render(workflow)


def _changed(done: str) -> Callable[[Workflow], CallToolResult]:
    return lambda workflow: _result({"done": done, "workflow": workflow.view()}, _status_link(workflow))


def _deleted(workflow: Workflow) -> CallToolResult:
    """Says what is gone (name, status, version, steps) and links the list it left, not the workflow's status
    URI: that URI now answers not_found for everyone, while the list is what changed and where to go next."""
    gone = {key: value for key, value in workflow.summary().items() if key != "status_uri"}
    link = ResourceLink(type="resource_link", uri=LIST_URI, name="workflows", title="Your workflows",
                        mime_type="application/json")
    return _result({"done": "deleted", "deleted": {**gone, "step_count": len(workflow.steps)}}, link)


def _workflow_tool(*, idempotent: bool, output_schema: dict[str, Any] = CHANGED,
                   **spec: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A workflow tool: it writes this server's own store, not the caller's AWS (`openWorldHint: false`), and
    answers the workflow. `idempotent`: what docs/workflows.md says of the same call sent again."""
    return registry.tool(read_only=False, open_world=False, idempotent=idempotent, output_schema=output_schema,
                         **spec)


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME, description="A short name for the plan.")]
Description = Annotated[str, Field(max_length=MAX_DESCRIPTION, description="What the plan is for.")]
WorkflowId = Annotated[str, Field(min_length=1, max_length=MAX_WORKFLOW_ID,
                                  description="The workflow's id (from its status URI).")]
StepId = Annotated[str, Field(min_length=1, max_length=20, description="The step's id, e.g. s1.")]


@_workflow_tool(name="workflow_create", title="Create a workflow", idempotent=False,
               description="Start a multi-step plan that outlives this conversation and any server restart: a name, "
               "an optional description and optional initial step titles. Returns the workflow and a link to "
               "workflow://workflows/{id}/status.")
async def workflow_create(
    ctx: Context,
    name: Name,
    description: Description = "",
    steps: Annotated[list[Annotated[str, Field(min_length=1, max_length=MAX_NAME)]],
                     Field(max_length=MAX_STEPS, description="Initial step titles, in order.")] | None = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.create(name, description, steps), _changed("created"),
                         lists_change=True)


@_workflow_tool(name="workflow_update", title="Rename or re-describe a workflow", idempotent=True,
               description="Give one of your workflows a new name, a new description, or both; its steps stay.")
async def workflow_update(
    ctx: Context, workflow_id: WorkflowId, name: Name | None = None, description: Description | None = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.update(workflow_id, name, description), _changed("updated"))


@_workflow_tool(name="workflow_add_step", title="Add a step", idempotent=False,
               description="Add a step (pending) to one of your workflows, at the end or at a 1-based position. "
               "Give it a step_id of your own to make the call safe to send again: a step already there with that "
               "id and title is the answer, and nothing is added twice.")
async def workflow_add_step(
    ctx: Context, workflow_id: WorkflowId, title: Name,
    position: Annotated[int | None, Field(ge=1, description="1-based; omit to append.")] = None,
    step_id: Annotated[str | None, Field(min_length=1, max_length=MAX_STEP_ID, pattern=r"^[A-Za-z0-9._-]+$",
                                         description="Your own id for the new step (letters, digits, '.', '_', "
                                         "'-'); omit to get the next s<n>.")] = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.add_step(workflow_id, title, position, step_id),
                         _changed("step added"))


@_workflow_tool(name="workflow_update_step", title="Update a step", idempotent=True,
               description="Set a step's status (pending, in_progress, completed, failed, skipped), a note, a result "
               "reference (e.g. a resource URI or an s3:// location) or a new title. The workflow's status follows.")
async def workflow_update_step(
    ctx: Context, workflow_id: WorkflowId, step_id: StepId,
    status: Literal["pending", "in_progress", "completed", "failed", "skipped"] | None = None,
    note: Annotated[str | None, Field(max_length=MAX_NOTE)] = None,
    result: Annotated[str | None, Field(max_length=MAX_RESULT)] = None,
    title: Annotated[str | None, Field(min_length=1, max_length=MAX_NAME)] = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.update_step(workflow_id, step_id, status, note, result, title),
                         _changed("step updated"))


@_workflow_tool(name="workflow_remove_step", title="Remove a step", idempotent=True, destructive=True,
               description="Remove one step from one of your workflows; the others keep their ids and order, and the "
               "removed id is never reused.")
async def workflow_remove_step(ctx: Context, workflow_id: WorkflowId, step_id: StepId) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.remove_step(workflow_id, step_id), _changed("step removed"))


@_workflow_tool(name="workflow_reorder_steps", title="Reorder steps", idempotent=True,
               description="Put a workflow's steps in a new order: list every step id exactly once.")
async def workflow_reorder_steps(
    ctx: Context, workflow_id: WorkflowId,
    step_ids: Annotated[list[str], Field(min_length=1, max_length=MAX_STEPS)],
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.reorder(workflow_id, step_ids), _changed("steps reordered"))


@_workflow_tool(name="workflow_delete", title="Delete a workflow", idempotent=True, destructive=True,
               output_schema=DELETED,
               description="Delete one of your workflows and its steps. Answers what was deleted and links "
               "workflow://workflows.")
async def workflow_delete(ctx: Context, workflow_id: WorkflowId) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.delete(workflow_id), _deleted, lists_change=True)
