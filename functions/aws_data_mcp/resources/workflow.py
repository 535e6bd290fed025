"""workflow://: the caller's multi-step plans, and the tools that change them.

Everything here acts for the caller resolved by the identity seam: a workflow belongs
to the caller's identity digest, and another caller's id reads as `not_found`. The
store itself is reached with the server's own credentials (the workflow table is the
one thing besides STS the function role may use). Never cached: every write changes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ResourceLink, TextContent
from pydantic import Field

from aws_data_mcp.caller import Caller
from aws_data_mcp.errors import ErrorCode, ResourceFailure, authentication_required
from aws_data_mcp.reader import to_json
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources import registry
from aws_data_mcp.workflows.model import Workflow, status_uri
from aws_data_mcp.workflows.service import MAX_NAME, MAX_NOTE, MAX_RESULT, MAX_STEPS, Workflows, store_for

if TYPE_CHECKING:
    from aws_data_mcp.server import DataMCPServer

T = TypeVar("T")
WORKFLOW_CALLS = ("dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem")


def _owner(caller: Caller) -> str:
    caller.require_session()
    if caller.identity_digest is None:
        raise authentication_required("the caller's identity is unknown, so its workflows cannot be found")
    return caller.identity_digest


def workflows_of(request: ResourceRequest) -> Workflows:
    return Workflows(store_for(request.settings), _owner(request.caller))


@registry.resource(
    "workflow://workflows",
    name="workflows",
    title="Your workflows",
    description="The caller's own workflows, newest first, with status (derived from the steps) and step counts.",
    requires="auth",
    aws_calls=["dynamodb:Query"],
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
    aws_calls=["dynamodb:GetItem"],
    completions={"workflow_id": complete_workflow_id},
    example="workflow://workflows/3f2b7c1e-4d3a-4f5b-9c6d-2e1f0a9b8c7d/status",
    cacheable=False,
)
def workflow_status(request: ResourceRequest) -> dict[str, Any]:
    return workflows_of(request).get(request.args["workflow_id"]).view()


# --------------------------------------------------------------------------- tools


def _result(workflow: Workflow | None, payload: dict[str, Any]) -> CallToolResult:
    content: list[Any] = [TextContent(type="text", text=to_json(payload))]
    if workflow is not None:
        content.append(ResourceLink(type="resource_link", uri=status_uri(workflow.id), name=workflow.name,
                                    mime_type="application/json"))
    return CallToolResult(content=content, structured_content=payload)


async def _as_caller(ctx: Context, operation: Callable[[Workflows], T]) -> T:
    """Resolve the caller and run `operation` on its workflows, off the event loop and within the request budget."""
    server = cast("DataMCPServer", ctx.mcp_server)

    def run() -> T:
        caller = server.caller_for(ctx.request_context)
        return operation(Workflows(store_for(server.config), _owner(caller)))

    with anyio.fail_after(server.config.request_timeout_seconds):
        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)


async def _answer(ctx: Context, operation: Callable[[Workflows], Workflow | None], done: str,
                  *, changes_list: bool = False, uri: str | None = None) -> CallToolResult:
    try:
        workflow = await _as_caller(ctx, operation)
    except TimeoutError:
        return _error(ResourceFailure(ErrorCode.TIMEOUT, "The workflow store did not answer in time",
                                      details=["Retry; if the write happened, the status URI shows it."]))
    except ResourceFailure as failure:
        return _error(failure)
    await _notify(ctx, status_uri(workflow.id) if workflow is not None else uri, changes_list)
    if workflow is None:
        return _result(None, {"done": done})
    return _result(workflow, {"done": done, "workflow": workflow.view()})


def _error(failure: ResourceFailure) -> CallToolResult:
    """The same error payload get_resource and resources/read carry, as a tool error."""
    return CallToolResult(content=[TextContent(type="text", text=to_json(failure.payload()))],
                          structured_content=failure.payload(), is_error=True)


async def _notify(ctx: Context, uri: str | None, changes_list: bool) -> None:
    """Live updates for `subscriptions/listen` streams, where the transport holds them open (local HTTP).

    The SDK's in-process bus reaches the streams of this process only; on Lambda nothing listens.
    """
    if uri is not None:
        await ctx.notify_resource_updated(uri)
    if changes_list:
        await ctx.notify_resources_changed()


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME, description="A short name for the plan.")]
WorkflowId = Annotated[str, Field(min_length=1, max_length=100, description="The workflow's id (from its status URI).")]
StepId = Annotated[str, Field(min_length=1, max_length=20, description="The step's id, e.g. s1.")]


@registry.tool(name="workflow_create", title="Create a workflow", read_only=False,
               description="Start a multi-step plan that outlives this conversation and any server restart: a name, "
               "an optional description and optional initial step titles. Returns the workflow and a link to "
               "workflow://workflows/{id}/status.")
async def workflow_create(
    ctx: Context,
    name: Name,
    description: Annotated[str, Field(max_length=2000)] = "",
    steps: Annotated[list[Annotated[str, Field(min_length=1, max_length=MAX_NAME)]],
                     Field(max_length=MAX_STEPS, description="Initial step titles, in order.")] | None = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.create(name, description, steps), "created", changes_list=True)


@registry.tool(name="workflow_add_step", title="Add a step", read_only=False,
               description="Add a step (pending) to one of your workflows, at the end or at a 1-based position.")
async def workflow_add_step(
    ctx: Context, workflow_id: WorkflowId, title: Name,
    position: Annotated[int | None, Field(ge=1, description="1-based; omit to append.")] = None,
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.add_step(workflow_id, title, position), "step added")


@registry.tool(name="workflow_update_step", title="Update a step", read_only=False,
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
                         "step updated")


@registry.tool(name="workflow_reorder_steps", title="Reorder steps", read_only=False,
               description="Put a workflow's steps in a new order: list every step id exactly once.")
async def workflow_reorder_steps(
    ctx: Context, workflow_id: WorkflowId,
    step_ids: Annotated[list[str], Field(min_length=1, max_length=MAX_STEPS)],
) -> CallToolResult:
    return await _answer(ctx, lambda mine: mine.reorder(workflow_id, step_ids), "steps reordered")


@registry.tool(name="workflow_delete", title="Delete a workflow", read_only=False, destructive=True,
               description="Delete one of your workflows and its steps.")
async def workflow_delete(ctx: Context, workflow_id: WorkflowId) -> CallToolResult:
    def delete(mine: Workflows) -> None:
        mine.delete(workflow_id)

    return await _answer(ctx, delete, "deleted", changes_list=True, uri=status_uri(workflow_id))
