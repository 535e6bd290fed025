"""The one place this server touches the MCP SDK's private members: look here first on an SDK upgrade.

`MCPServer` keeps its lowlevel server, tool manager and subscription bus private, answers the list and read
methods from its own managers, and hands lowlevel handlers no client connection. `SdkServer` is `MCPServer`
with those seams made public, named for what this server does with them; everything else this package
uses of the SDK is public API. If an upgrade renames a private member, only this module changes.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any

from mcp.server.connection import Connection
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver import server as mcpserver_module
from mcp.server.mcpserver.tools import Tool
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.subscriptions import ServerEvent
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    ServerCapabilities,
    ToolAnnotations,
)
from mcp_types import Tool as ToolInfo
from pydantic import BaseModel, ConfigDict

RequestHandler = Callable[[ServerRequestContext[Any, Any], Any], Awaitable[HandlerResult]]


def client_connection(ctx: ServerRequestContext[Any, Any]) -> Connection:
    """The client connection behind a request.

    `ServerSession` is a per-request proxy; the SDK's `Connection` is per client and outlives it (the SDK hands
    it to tools as `Context.connection`, but to lowlevel handlers only inside the session)."""
    return ctx.session._connection


def _refuse_unknown_arguments(tool: Tool) -> None:
    """The SDK's arguments model drops arguments it does not know, so a misspelt one would silently do nothing:
    forbid them, and say so in the advertised schema (`additionalProperties: false`, what pydantic's schema of the
    strict model says, in the same place: written in, not generated again)."""
    model = tool.fn_metadata.arg_model
    tool.fn_metadata.arg_model = type(model.__name__, (model,), {"model_config": ConfigDict(extra="forbid")})
    tool.parameters = {"additionalProperties": False, **tool.parameters}


_BUILDING = threading.RLock()
"""One server built at a time while the SDK's `configure_logging` is swapped out.
Two at once could leave the stand-in in place."""


@contextmanager
def _logging_left_to_us() -> Iterator[None]:
    """`MCPServer`'s constructor without `configure_logging`: a `basicConfig` with `rich`'s handler.

    This server configures logging itself (`observability.configure`) before any server is built.
    So `basicConfig` did nothing: only its import of `rich` was left, paid by every cold start."""
    with _BUILDING:
        configure = mcpserver_module.configure_logging
        mcpserver_module.configure_logging = _configured_already  # type: ignore[assignment]
        try:
            yield
        finally:
            mcpserver_module.configure_logging = configure


def _configured_already(*_: Any, **__: Any) -> None:
    """Stands in for the SDK's `configure_logging` while a server is built."""


class SdkServer(MCPServer[Any], ABC):
    """`MCPServer` whose list, read and tool-call methods are answered by the subclass (`answer_*`), and
    whose `initialize` advertises the subclass's `capabilities`."""

    def __init__(self, **options: Any) -> None:
        with _logging_left_to_us():
            super().__init__(**options)
        # The SDK's HTTP and stdio runners ask the lowlevel server for `initialize`'s options.
        self._lowlevel_server.create_initialization_options = self._initialization_options  # type: ignore[method-assign]
        self._unregistered_tools: list[Callable[[], None]] = []
        self._tools_ready = False
        self._tools_lock = threading.Lock()

    def _initialization_options(self, *args: Any, **kwargs: Any) -> InitializationOptions:
        """What `initialize` answers on every transport: the SDK's options with `capabilities`."""
        options = type(self._lowlevel_server).create_initialization_options(self._lowlevel_server, *args, **kwargs)
        return options.model_copy(update={"capabilities": self.capabilities()})

    def add_request_handler(self, method: str, params_type: type[BaseModel], handler: RequestHandler) -> None:
        """Serve `method` (a new one, or in place of the SDK's)."""
        self._lowlevel_server.add_request_handler(method, params_type, handler)

    async def run_streams(self, read_stream: Any, write_stream: Any) -> None:
        """Serve one connection over a transport's streams, as the SDK's own stdio runner does."""
        await self._lowlevel_server.run(read_stream, write_stream,
                                        self._lowlevel_server.create_initialization_options())

    def serves(self, method: str) -> bool:
        return self._lowlevel_server.get_request_handler(method) is not None

    def sdk_capabilities(self, *, resources_changed: bool, protocol_version: str | None) -> ServerCapabilities:
        """The SDK's derivation of the capabilities, from the methods registered."""
        return self._lowlevel_server.get_capabilities(NotificationOptions(resources_changed=resources_changed),
                                                      protocol_version=protocol_version)

    @abstractmethod
    def capabilities(self, protocol_version: str | None = None) -> ServerCapabilities:
        """What `initialize` and `server/discover` advertise."""

    def add_strict_tool(self, fn: Callable[..., Any], *, name: str, title: str, description: str,
                        annotations: ToolAnnotations, extra_properties: Mapping[str, Any] | None = None,
                        output_schema: Mapping[str, Any] | None = None) -> None:
        """Register a tool that refuses arguments it does not take (see `_refuse_unknown_arguments`).

        Registered when a request first needs the SDK's tools (or `prepare_tools`): building each tool's pydantic
        models and schemas is most of a cold start's own work, and a container that only serves reads never
        needs them."""
        register = partial(self._register_strict_tool, fn, name=name, title=title, description=description,
                           annotations=annotations, extra_properties=extra_properties or {},
                           output_schema=output_schema)
        with self._tools_lock:
            if not self._tools_ready:
                self._unregistered_tools.append(register)
                return
        register()

    def _register_strict_tool(self, fn: Callable[..., Any], *, name: str, title: str, description: str,
                              annotations: ToolAnnotations, extra_properties: Mapping[str, Any],
                              output_schema: Mapping[str, Any] | None) -> None:
        """`extra_properties`: arguments the server takes off before the tool runs, advertised beside its own.
        `output_schema`: published as the tool's `outputSchema` (the tools answer a `CallToolResult` of their own,
        so the SDK derives none); with no output model beside it, the SDK advertises it and validates nothing."""
        tool = self._tool_manager.add_tool(fn, name=name, title=title, description=description,
                                           annotations=annotations)
        if output_schema is not None:
            tool.fn_metadata.output_schema = dict(output_schema)
            tool.__dict__.pop("output_schema", None)  # `Tool.output_schema` is a cached property of fn_metadata's
        _refuse_unknown_arguments(tool)
        tool.parameters = {**tool.parameters,
                           "properties": {**tool.parameters.get("properties", {}), **extra_properties}}

    def prepare_tools(self) -> None:
        """Register the tools added so far, once (an init phase no request waits on calls it ahead of time)."""
        if self._tools_ready:
            return
        with self._tools_lock:
            for register in self._unregistered_tools:
                register()
            self._unregistered_tools.clear()
            self._tools_ready = True

    def tool_input_schema(self, name: str) -> dict[str, Any] | None:
        return self._tool_input_schema(name)

    # Every way into the SDK's tools registers them first.

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self.prepare_tools()
        return super()._tool_input_schema(name)

    async def list_tools(self) -> list[ToolInfo]:
        self.prepare_tools()
        return await super().list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
                        ) -> CallToolResult | InputRequiredResult:
        self.prepare_tools()
        return await super().call_tool(name, arguments, context)

    def listen_handler(self) -> ListenHandler:
        """A `subscriptions/listen` handler streaming from the SDK's subscription bus."""
        return ListenHandler(self._subscriptions)

    async def publish(self, event: ServerEvent) -> None:
        """Put `event` on the SDK's subscription bus, for every `subscriptions/listen` stream."""
        await self._subscriptions.publish(event)

    async def sdk_call_tool(self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
                            ) -> CallToolResult | InputRequiredResult:
        """The SDK's own `tools/call`: its `Context`, argument validation and result conversion."""
        return await super()._handle_call_tool(ctx, params)

    @abstractmethod
    async def answer_call_tool(self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
                               ) -> CallToolResult | InputRequiredResult: ...

    @abstractmethod
    async def answer_list_tools(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                ) -> ListToolsResult: ...

    @abstractmethod
    async def answer_list_prompts(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                  ) -> ListPromptsResult: ...

    @abstractmethod
    async def answer_list_resources(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                    ) -> ListResourcesResult: ...

    @abstractmethod
    async def answer_list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult: ...

    @abstractmethod
    async def answer_read_resource(self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
                                   ) -> ReadResourceResult: ...

    # The SDK registers these private handlers with its lowlevel server: each hands over to `answer_*`.

    async def _handle_call_tool(self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
                                ) -> CallToolResult | InputRequiredResult:
        return await self.answer_call_tool(ctx, params)

    async def _handle_list_tools(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                 ) -> ListToolsResult:
        return await self.answer_list_tools(ctx, params)

    async def _handle_list_prompts(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                   ) -> ListPromptsResult:
        return await self.answer_list_prompts(ctx, params)

    async def _handle_list_resources(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                     ) -> ListResourcesResult:
        return await self.answer_list_resources(ctx, params)

    async def _handle_list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return await self.answer_list_resource_templates(ctx, params)

    async def _handle_read_resource(self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
                                    ) -> ReadResourceResult:
        return await self.answer_read_resource(ctx, params)
