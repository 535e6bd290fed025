"""The MCP server: the SDK's `MCPServer`, with the resource methods served from our registry.

Why override the SDK's resource handlers: `MCPServer` lists resources without
cursors, cannot hand a static resource its request (so no caller), and maps every
failure to a bare code. Serving `resources/*` from the registry gives cursors, a
stable sorted order, the caller seam and the shared error vocabulary; everything
else (tools, JSON-RPC, transports, templates matching) stays the SDK's.

Live updates (resource changes, list changes) are served where a client's connection stays open: stdio,
and local HTTP, which serves 2025-11-25 with sessions for it. Lambda serves 2025-11-25 statelessly (any
container may answer) and buffers responses, so no session there could receive them and none are
advertised; `initialize` and `server/discover` advertise the same on each transport (see `capabilities`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar
from weakref import WeakSet

import anyio
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    DiscoverResult,
    EmptyResult,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    PromptsCapability,
    ReadResourceRequestParams,
    ReadResourceResult,
    RequestParams,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    ServerCapabilities,
    SetLevelRequestParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    TextResourceContents,
    ToolAnnotations,
    ToolsCapability,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, ValidationError

from aws_data_mcp.config import Settings
from aws_data_mcp.cursors import InvalidCursor, decode_cursor, encode_cursor
from aws_data_mcp.errors import ECHO_LIMIT, ErrorCode, ResourceFailure, echo, invalid_arguments
from aws_data_mcp.identity import Caller, resolve_caller
from aws_data_mcp.observability import bind_request
from aws_data_mcp.reader import Reading, ResourceReader
from aws_data_mcp.registry import Registry, ResourceSpec
from aws_data_mcp.request_state import snapshot_safe_request_state
from aws_data_mcp.resources.get_resource import TOOL_NAME as GET_RESOURCE
from aws_data_mcp.resources.get_resource import failure_result, get_resource_result

E = TypeVar("E", bound=BaseModel)
MAX_COMPLETIONS = 100
SUBSCRIBED = "aws_data_mcp.subscribed"
"""Key in a client connection's state: the URIs it subscribed to (2025-11-25 resources/subscribe)."""
DEADLINE_SCOPE_KEY = "aws_data_mcp.deadline"
"""ASGI scope key: the `time.monotonic()` by which a request must be answered (set by the Lambda edge)."""


def request_scope(ctx: ServerRequestContext[Any, Any] | None) -> Mapping[str, Any] | None:
    """The ASGI scope of the HTTP request behind `ctx` (None under stdio)."""
    request = getattr(ctx, "request", None) if ctx is not None else None
    return getattr(request, "scope", None)


def remaining_seconds(scope: Mapping[str, Any] | None) -> float | None:
    """Seconds until the deadline the transport edge set on this request, if it set one."""
    deadline = scope.get(DEADLINE_SCOPE_KEY) if scope else None
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def _refuse_unknown_arguments(tool: Tool) -> None:
    """The SDK's arguments model drops arguments it does not know, so a misspelt one would silently do nothing:
    forbid them, which also makes the advertised schema say `additionalProperties: false`."""
    model = tool.fn_metadata.arg_model
    tool.fn_metadata.arg_model = type(model.__name__, (model,), {"model_config": ConfigDict(extra="forbid")})
    tool.parameters = tool.fn_metadata.arg_model.model_json_schema(by_alias=True)


LIST_ROOM = 500
"""Characters of a list response besides its entries (the JSON-RPC envelope, `nextCursor`, 2026-07-28's cache
fields and server info), kept from the budget."""


@dataclass(frozen=True)
class ListPage(Generic[E]):
    entries: list[E]
    next_cursor: str | None
    meta: dict[str, Any] | None
    """`over_budget` when one entry alone is larger than the character budget."""


def list_page(entries: Sequence[E], params: PaginatedRequestParams | None, settings: Settings) -> ListPage[E]:
    """One page of a list method: at most `list_page_size` entries, fewer where the character budget ends first.

    The SDK would answer whole lists, by count at best; a page holds at least one entry so paging always
    advances, and one entry larger than the budget says so in `_meta`, as a resource over it does.
    """
    try:
        offset = decode_cursor(params.cursor if params else None, len(entries))
    except InvalidCursor as exc:
        raise _protocol_error(ResourceFailure(ErrorCode.INVALID_ARGUMENT, str(exc), details=[
            "Pass back the nextCursor of the previous page unchanged; omit the cursor for the first page."])) from exc
    room = settings.response_char_budget - LIST_ROOM
    end, used = offset, 0
    for entry in entries[offset:offset + settings.list_page_size]:
        used += len(entry.model_dump_json(by_alias=True, exclude_none=True)) + 1
        if used > room and end > offset:
            break
        end += 1
    meta = None
    if used > room and end == offset + 1:
        meta = {"over_budget": {"budget": settings.response_char_budget, "characters": used + LIST_ROOM,
                                "reason": "one entry is larger than the budget: a page holds at least one entry"}}
    return ListPage(list(entries[offset:end]), encode_cursor(end) if end < len(entries) else None, meta)


def _protocol_error(failure: ResourceFailure) -> MCPError:
    """`failure` as a JSON-RPC error, its structured payload in `data` (as resources/read answers it)."""
    return MCPError(code=failure.jsonrpc_code, message=failure.message, data=failure.payload())


def _resource(spec: ResourceSpec) -> Resource:
    return Resource(uri=spec.uri, name=spec.name, title=spec.title, description=spec.description,
                    mime_type=spec.mime_type, _meta={"requires": spec.requires, "category": spec.category})


def _resource_template(spec: ResourceSpec) -> ResourceTemplate:
    return ResourceTemplate(uri_template=spec.uri, name=spec.name, title=spec.title, description=spec.description,
                            mime_type=spec.mime_type, _meta={"requires": spec.requires, "category": spec.category})


async def _bind_log_context(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Every log line of a request carries its MCP method and the URI it is about."""
    params = ctx.params or {}
    arguments = params.get("arguments")
    uri = params.get("uri") or (arguments.get("uri") if isinstance(arguments, Mapping) else None)
    bind_request(ctx.method, uri if isinstance(uri, str) else None)
    return await call_next(ctx)


async def _bound_echoes(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """The SDK's own errors quote the client's input whole (an unknown method is its -32601's `data`): bounded
    as this server's errors bound it, on every transport and revision."""
    try:
        return await call_next(ctx)
    except MCPError as exc:
        if not isinstance(exc.data, str) or len(exc.data) <= ECHO_LIMIT:
            raise
        raise MCPError(code=exc.code, message=exc.message, data=echo(exc.data)) from None


async def _set_log_level(ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
    """Accept the client's level for `notifications/message` (2025-11-25 logging capability).

    This server sends no log notifications (its operational logs go to stderr/CloudWatch), so the level
    filters nothing and is not kept. The capability stays advertised, on `initialize` and `server/discover`
    alike, because the 2025-11-25 conformance suite requires `logging/setLevel` (`logging-set-level`).
    """
    return EmptyResult()


class DataMCPServer(MCPServer[Any]):
    def __init__(self, registry: Registry, settings: Settings) -> None:
        super().__init__(
            name="aws-data-mcp",
            title="AWS data estate",
            version=settings.version,
            instructions=(
                "Read-only views of the caller's AWS data estate (Athena, Glue tables, S3 permissions, IAM, SSO). "
                "Read resources directly, or call get_resource() to discover them and get_resource(uri=...) to read."
            ),
            log_level="WARNING",
            request_state_security=snapshot_safe_request_state(),
            # No subscriptions/listen unless the transport serves live updates: `serve_live_updates` (stdio).
            subscriptions=False,
        )
        self.registry = registry
        self.config = settings
        self.reader = ResourceReader(registry, settings)
        self._legacy_connections: WeakSet[Connection] = WeakSet()
        """2025-11-25 clients that may hear of changes; each keeps the URIs it subscribed to in its own state."""
        self.middleware.extend([_bound_echoes, _bind_log_context])
        self._lowlevel_server.add_request_handler("completion/complete", CompleteRequestParams, self._complete)
        self._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_log_level)
        self._lowlevel_server.add_request_handler("server/discover", RequestParams, self._discover)
        self._lowlevel_server.create_initialization_options = self._initialization_options  # type: ignore[method-assign]
        for tool in registry.tools():
            annotations = ToolAnnotations(read_only_hint=tool.read_only, idempotent_hint=tool.read_only,
                                          destructive_hint=tool.destructive, open_world_hint=tool.read_only)
            _refuse_unknown_arguments(self._tool_manager.add_tool(
                tool.fn, name=tool.name, title=tool.title, description=tool.description, annotations=annotations))

    @property
    def serves_live_updates(self) -> bool:
        return self._lowlevel_server.get_request_handler("subscriptions/listen") is not None

    def serve_live_updates(self) -> None:
        """Serve change notifications: `resources/subscribe` and `unsubscribe` (2025-11-25) and
        `subscriptions/listen` (2026-07-28). Only for a transport that keeps a client's connection open to
        carry them (stdio, local HTTP); what is registered here is what `capabilities` advertises."""
        self._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
        self._lowlevel_server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams,
                                                  self._unsubscribe)
        self._lowlevel_server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams,
                                                  ListenHandler(self._subscriptions))
        if self._remember_legacy_clients not in self.middleware:
            self.middleware.append(self._remember_legacy_clients)

    async def _remember_legacy_clients(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Every 2025-11-25 client that has spoken hears of list changes, subscribed to anything or not."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._legacy_client(ctx)
        return await call_next(ctx)

    def capabilities(self, protocol_version: str | None = None) -> ServerCapabilities:
        """What `initialize` and `server/discover` advertise: derived from the registered methods, so both say
        the same on each transport. The tool and prompt lists never change at run time, so neither
        `listChanged` (the SDK's 2026-07-28 derivation claims both wherever subscriptions/listen is served)."""
        capabilities = self._lowlevel_server.get_capabilities(
            NotificationOptions(resources_changed=self.serves_live_updates), protocol_version=protocol_version)
        return capabilities.model_copy(update={"tools": ToolsCapability(list_changed=False),
                                               "prompts": PromptsCapability(list_changed=False)})

    async def _discover(self, ctx: ServerRequestContext[Any], params: RequestParams) -> DiscoverResult:
        return DiscoverResult(supported_versions=list(MODERN_PROTOCOL_VERSIONS),
                              capabilities=self.capabilities(ctx.protocol_version), instructions=self.instructions)

    def _initialization_options(self, *args: Any, **kwargs: Any) -> InitializationOptions:
        """What `initialize` answers on every transport (the SDK's HTTP and stdio runners ask the lowlevel server
        for it): its options with `capabilities`, so the list-changed flags follow what is served, as
        `server/discover`'s do."""
        options = type(self._lowlevel_server).create_initialization_options(self._lowlevel_server, *args, **kwargs)
        return options.model_copy(update={"capabilities": self.capabilities()})

    async def run_stdio_async(self) -> None:
        """stdio: one client on a pipe that stays open, so live updates are served, and advertised, here."""
        self.serve_live_updates()
        async with stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream, self._initialization_options())

    def _subscribable(self, uri: str) -> str:
        """`uri` as reads canonicalise it; one this server does not serve is refused as a read of it would be."""
        try:
            self.reader.resolve(uri)
        except ResourceFailure as failure:
            raise _protocol_error(failure) from None
        return self.reader.canonical(uri)

    def _legacy_client(self, ctx: ServerRequestContext[Any, Any]) -> Connection:
        """The client connection behind a 2025-11-25 request, remembered so later changes reach it.

        `ServerSession` is a per-request proxy; the SDK's `Connection` is per client and outlives it (the
        SDK hands it to tools as `Context.connection`, but to lowlevel handlers only inside the session)."""
        connection: Connection = ctx.session._connection
        self._legacy_connections.add(connection)
        return connection

    async def _subscribe(self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        uri = self._subscribable(params.uri)
        client = self._legacy_client(ctx)
        if ctx.request is not None and client.session_id is None:  # HTTP without a session: nowhere to notify
            raise _protocol_error(ResourceFailure(
                ErrorCode.INVALID_ARGUMENT, "resources/subscribe needs a session to carry its notifications",
                details=["Send initialize first, then this request with the Mcp-Session-Id header it returned."]))
        client.state.setdefault(SUBSCRIBED, set()).add(uri)
        return EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        self._legacy_client(ctx).state.setdefault(SUBSCRIBED, set()).discard(self.reader.canonical(params.uri))
        return EmptyResult()

    async def announce(self, ctx: ServerRequestContext[Any, Any], uris: Sequence[str], *,
                       lists_change: bool = False) -> None:
        """Tell listeners that `uris` changed, and on a create or delete that the resource list did, where live
        updates are served: `subscriptions/listen` streams through the SDK's bus (2026-07-28), and every known
        2025-11-25 session (stdio's one client; each local HTTP session), `updated` only for the URIs it
        subscribed to."""
        if not self.serves_live_updates:
            return
        for uri in uris:
            await self._subscriptions.publish(ResourceUpdated(uri=uri))
        if lists_change:
            await self._subscriptions.publish(ResourcesListChanged())
        for connection in list(self._legacy_connections):
            try:
                for uri in connection.state.get(SUBSCRIBED, set()).intersection(uris):
                    await connection.send_resource_updated(uri)
                if lists_change:
                    await connection.send_resource_list_changed()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._legacy_connections.discard(connection)  # its client went away

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None,
                         context: Context[Any, Any] | None = None) -> Any:
        """This server offers no prompts: `prompts/list` answers an empty list, as clients and the conformance
        suites expect of a server that advertises the capability (the SDK advertises it on every path alike),
        and any name is an invalid parameter, never the SDK's internal error with a traceback."""
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt {echo(name)!r}: this server offers no prompts")

    def caller_for(self, ctx: ServerRequestContext[Any, Any] | None) -> Caller:
        return resolve_caller(request_scope(ctx), self.config)

    async def read(self, uri: str, ctx: ServerRequestContext[Any, Any] | None) -> Reading:
        """Read one URI for the request behind `ctx`: the path shared by resources/read and get_resource."""
        return await self.reader.read(uri, lambda: self.caller_for(ctx), remaining_seconds(request_scope(ctx)))

    async def _handle_call_tool(
        self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        """`get_resource` takes one string, so it skips the SDK's generic tool path.

        Why: building the SDK's `Context`, its pydantic argument model and result
        conversion cost about a fifth of a warm read; the fallback tool must cost what
        `resources/read` costs (SPEC §8); it also refuses arguments it does not take, where the SDK's path
        would drop them silently. Other tools take the SDK's path.
        """
        if params.name == GET_RESOURCE and self.registry.tool_named(GET_RESOURCE):
            return await get_resource_result(self, params.arguments or {}, ctx)
        return await super()._handle_call_tool(ctx, params)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """An unknown tool, or arguments that fail a tool's input schema, answer as every error of this server
        does: `isError` with the structured `invalid_argument` payload, not the SDK's text. The SDK validates
        before any tool runs, so this is the one place that sees it, for every tool."""
        if self.registry.tool_named(name) is None:  # the SDK's answer quotes the whole name, a megabyte or not
            names = ", ".join(tool.name for tool in self.registry.tools())
            return failure_result(ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Unknown tool {echo(name)!r}",
                                                  details=[f"This server's tools (tools/list): {names}."]))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            failure = invalid_arguments(exc.__cause__)
            schema = self._tool_input_schema(name) or {}
            failure.details.insert(0, f"{name} takes: {', '.join(schema.get('properties', {}))}.")
            return failure_result(failure)

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        page = list_page([_resource(s) for s in self.registry.static()], params, self.config)
        return ListResourcesResult(resources=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def _handle_list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        page = list_page([_resource_template(s) for s in self.registry.templates()], params, self.config)
        return ListResourceTemplatesResult(resource_templates=page.entries, next_cursor=page.next_cursor,
                                           _meta=page.meta)

    async def _handle_list_tools(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                 ) -> ListToolsResult:
        page = list_page(await self.list_tools(), params, self.config)
        return ListToolsResult(tools=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def _handle_list_prompts(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                   ) -> ListPromptsResult:
        page = list_page(await self.list_prompts(), params, self.config)
        return ListPromptsResult(prompts=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def _handle_read_resource(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        try:
            reading = await self.read(params.uri, ctx)
        except ResourceFailure as failure:
            raise _protocol_error(failure) from None
        ttl_ms, scope = self.freshness(reading)
        return ReadResourceResult(
            contents=[TextResourceContents(uri=reading.uri, text=reading.text, mime_type=reading.spec.mime_type)],
            ttl_ms=ttl_ms, cache_scope=scope,
        )

    def freshness(self, reading: Reading) -> tuple[int, Literal["public", "private"]]:
        """Truthful 2026-07-28 cache hints: caller data is private and fresh for as long as the server itself
        keeps it (what is left of its TTL; 0 for a partial result it did not keep, or one never cached, such as
        auth://status); documents that are the same for everyone are public, for the server's TTL."""
        spec = reading.spec
        if spec.requires != "none" or spec.aws_calls:
            return int((reading.fresh_seconds or 0) * 1000), "private"
        return int(self.config.cache_ttl_seconds * 1000), "public"


    async def _complete(self, ctx: ServerRequestContext[Any], params: CompleteRequestParams) -> CompleteResult:
        """Complete a template argument with real values (template names, databases, the caller's workflows)."""
        values: list[str] = []
        if isinstance(params.ref, ResourceTemplateReference):
            spec = self.registry.get(params.ref.uri)
            if spec is not None:
                chosen = (params.context.arguments if params.context else None) or {}
                values = await self.reader.complete(spec, params.argument.name, chosen, params.argument.value,
                                                    lambda: self.caller_for(ctx), remaining_seconds(request_scope(ctx)))
        return CompleteResult(completion=Completion(values=values[:MAX_COMPLETIONS], total=len(values),
                                                    has_more=len(values) > MAX_COMPLETIONS))
