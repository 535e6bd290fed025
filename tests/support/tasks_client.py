"""The SDK client's side of the Tasks extension (SEP-2663): the requests it adds and a client extension that claims
`resultType: "task"`, resolving the task by polling `tasks/get` (the SDK 2.3.0 has no Tasks runtime)."""

from __future__ import annotations

from typing import Any, Literal

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result

from aws_data_mcp.query.tasks import EXTENSION_ID


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # the extension's Mcp-Name


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class CreatedTask(Result):
    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class DetailedTask(Result):
    task_id: str
    status: str
    status_message: str | None = None
    ttl_ms: int | None
    result: dict[str, Any] | None = None


class Tasks(ClientExtension):
    """A client that speaks the extension: it claims a task and resolves it by polling tasks/get."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self.polls = 0

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self._resolve)]

    async def _resolve(self, task: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        while True:
            self.polls += 1
            got = await ctx.session.send_request(GetTask(params=TaskParams(task_id=task.task_id)), DetailedTask)
            if got.status != "working":
                assert got.status == "completed" and got.result is not None, got
                return CallToolResult.model_validate(got.result)
