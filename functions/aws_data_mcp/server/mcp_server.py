"""The MCP server: the SDK's `MCPServer`, with resource and prompt methods served from our registry.

The SDK lists resources without cursors and cannot hand a static resource its caller.
So the registry serves `resources/*`: cursors, a sorted order, the caller, our error codes.
Everything else stays the SDK's. Its private members are reached only through `sdk_adapter.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlencode

from mcp.server.caching import CacheHint
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    DiscoverResult,
    EmptyResult,
    GetPromptResult,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptsCapability,
    ReadResourceRequestParams,
    ReadResourceResult,
    RequestParams,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    ServerCapabilities,
    SetLevelRequestParams,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
    ToolsCapability,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from aws_data_mcp.audit import note_caller
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ECHO_LIMIT, ErrorCode, ResourceFailure, echo, invalid_arguments
from aws_data_mcp.identity import accounts
from aws_data_mcp.identity.accounts import caller_in
from aws_data_mcp.identity.resolve import Caller, resolve_caller
from aws_data_mcp.query.tasks import AthenaTasks
from aws_data_mcp.reading.deadlines import request_scope, seconds_to_edge_deadline
from aws_data_mcp.reading.reader import Reading, ResourceReader
from aws_data_mcp.registry import Completable, PromptSpec, Registry, ResourceSpec
from aws_data_mcp.resources.get_resource import TOOL_NAME as GET_RESOURCE
from aws_data_mcp.resources.get_resource import get_resource_result
from aws_data_mcp.server.answers import failure_result, protocol_error
from aws_data_mcp.server.apps import Views
from aws_data_mcp.server.audit_trail import AuditTrail
from aws_data_mcp.server.list_paging import list_page
from aws_data_mcp.server.live_updates import LiveUpdates
from aws_data_mcp.server.request_state import snapshot_safe_request_state
from aws_data_mcp.server.sdk_adapter import SdkServer
from aws_data_mcp.server.trust_marks import TrustMarks

MAX_COMPLETIONS = 100
LIST_TTL_MS = 3_600_000
"""How long a 2026-07-28 client may keep a list (`ttlMs`): tools, prompts, resources and templates change only
with a deployment, so an hour; a client that kept a list over one learns the new names from the error it gets."""
LIST_CACHE_HINTS = {method: CacheHint(ttl_ms=LIST_TTL_MS, scope="public") for method in (
    "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list")}
"""The same for every caller (`public`): no list depends on who asks, only on the client's own capabilities (the
views of MCP Apps), which travel in the request and so in its cache key. resources/read sets its own (`freshness`)."""
ACCOUNT_ARGUMENT = {accounts.PARAMETER: {
    "type": "string", "description": "The listed account to act in, by its short name (config://server lists them); "
    "omit it for your home account. Never a role ARN."}}
"""Every tool's `account`: taken off the arguments before the tool runs (`call_tool`), so no tool declares it."""


def server_instructions(registry: Registry, about_data: str = "") -> str:
    """What `initialize` and `server/discover` tell the agent: what this server is for and where to start, the prompts
    the registry holds, and `about_data`, what this deployment's data is (the demo's story)."""
    lines = [
        "Read-only access to an AWS data estate: Athena and Glue tables, S3 permissions, IAM and SSO. Every call runs "
        "with the caller's own AWS credentials, so it sees exactly what the caller may read.",
        "Start with info://capabilities (everything offered here) or athena://databases (the data); "
        "athena://databases/{database}/tables lists a database's tables with their descriptions and "
        "athena://databases/{database}/tables/{table} gives a table's columns.",
        "Where is the data about something? Search first, above all in a large estate: athena://search?q=<words> "
        "finds tables by name, column, comment or description across every database in one read, and the team's "
        "saved queries (athena://named-queries), which athena_query runs by named_query_id.",
        "Query with the athena_query tool: it runs in a workgroup whose bytes-scanned cutoff Athena enforces "
        "(athena://workgroups says which are usable for you); for a query that may scan much, call it with "
        "estimate_only=true first.",
        "Refused? auth://status says who you are; permissions://discover and permissions://recommendations say what "
        "you may read and what is missing.",
        "A client that cannot read resources: call get_resource() to list them and get_resource(uri=...) to read one.",
    ]
    prompts = ", ".join(prompt.name for prompt in registry.prompts())
    if prompts:
        lines.append(f"Prompts for common tasks: {prompts}.")
    if about_data:
        lines.append(about_data)
    return "\n".join(lines)


def _prompt(spec: PromptSpec) -> Prompt:
    return Prompt(name=spec.name, title=spec.title, description=spec.description,
                  arguments=[PromptArgument(name=a.name, description=a.description, required=a.required)
                             for a in spec.arguments], _meta={"requires": spec.requires})


def _resource(spec: ResourceSpec) -> Resource:
    return Resource(uri=spec.uri, name=spec.name, title=spec.title, description=spec.description,
                    mime_type=spec.mime_type, _meta={"requires": spec.requires, "category": spec.category})


def _resource_template(spec: ResourceSpec) -> ResourceTemplate:
    return ResourceTemplate(uri_template=spec.uri, name=spec.name, title=spec.title, description=spec.description,
                            mime_type=spec.mime_type, _meta={"requires": spec.requires, "category": spec.category})


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


class DataMCPServer(SdkServer):
    def __init__(self, registry: Registry, settings: Settings, about_data: str = "") -> None:
        """`about_data`: a few words on what this deployment's data is, added to the instructions (the demo's; else
        the operator's `AWS_DATA_MCP_DATA_DESCRIPTION`)."""
        self.views = Views(registry)
        self.trust_marks = TrustMarks(registry)
        super().__init__(
            name="aws-data-mcp",
            title="AWS data estate",
            version=settings.version,
            instructions=server_instructions(registry, about_data or settings.data_description),
            log_level="WARNING",
            request_state_security=snapshot_safe_request_state(),
            # No subscriptions/listen unless the transport serves live updates: `live_updates.serve()` (stdio).
            subscriptions=False,
            # Advertised as `extensions["io.modelcontextprotocol/ui"]`, `[".../trust-annotations"]` and `[...tasks]`.
            extensions=[self.views.extension, self.trust_marks, AthenaTasks(self)],
            cache_hints=LIST_CACHE_HINTS,  # filled in on 2026-07-28 only: the older revisions have no such fields
        )
        self.registry = registry
        self.config = settings
        self.reader = ResourceReader(registry, settings)
        self.live_updates = LiveUpdates(self, self.reader)
        self.middleware.extend([_bound_echoes, AuditTrail(settings)])
        self.add_request_handler("completion/complete", CompleteRequestParams, self._complete)
        self.add_request_handler("logging/setLevel", SetLevelRequestParams, _set_log_level)
        self.add_request_handler("server/discover", RequestParams, self._discover)
        for tool in registry.tools(view_only=True):
            annotations = ToolAnnotations(read_only_hint=tool.read_only, destructive_hint=tool.destructive,
                                          idempotent_hint=tool.read_only or tool.idempotent,
                                          open_world_hint=tool.open_world)
            self.add_strict_tool(tool.fn, name=tool.name, title=tool.title, description=tool.description,
                                 annotations=annotations, extra_properties=ACCOUNT_ARGUMENT,
                                 output_schema=tool.output_schema)

    def capabilities(self, protocol_version: str | None = None) -> ServerCapabilities:
        """What `initialize` and `server/discover` advertise: derived from the registered methods, so both say
        the same on each transport. The tool and prompt lists never change at run time, so neither
        `listChanged` (the SDK's 2026-07-28 derivation claims both wherever subscriptions/listen is served)."""
        capabilities = self.sdk_capabilities(resources_changed=self.live_updates.served,
                                             protocol_version=protocol_version)
        return capabilities.model_copy(update={"tools": ToolsCapability(list_changed=False),
                                               "prompts": PromptsCapability(list_changed=False)})

    async def _discover(self, ctx: ServerRequestContext[Any], params: RequestParams) -> DiscoverResult:
        return DiscoverResult(supported_versions=list(MODERN_PROTOCOL_VERSIONS),
                              capabilities=self.capabilities(ctx.protocol_version), instructions=self.instructions)

    async def announce(self, uris: Sequence[str], *, lists_change: bool = False) -> None:
        await self.live_updates.announce(uris, lists_change=lists_change)

    async def list_prompts(self) -> list[Prompt]:
        return [_prompt(spec) for spec in self.registry.prompts()]

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None,
                         context: Context[Any, Any] | None = None) -> GetPromptResult:
        """The registry's prompt rendered with its checked arguments; an unknown name or a missing or malformed
        argument is `invalid_argument` with the structured payload every error of this server carries."""
        try:
            spec = self.registry.prompt_named(name)
            if spec is None:
                names = ", ".join(prompt.name for prompt in self.registry.prompts()) or "none"
                raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Unknown prompt {echo(name)!r}",
                                      details=[f"This server's prompts (prompts/list): {names}."])
            text = spec.render(spec.values(arguments))
        except ResourceFailure as failure:
            raise protocol_error(failure) from None
        return GetPromptResult(description=spec.description,
                               messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))])

    def caller_for(self, ctx: ServerRequestContext[Any, Any] | None) -> Caller:
        """The caller behind the request, in the account it reads (`accounts.reading_in`)."""
        caller = caller_in(resolve_caller(request_scope(ctx), self.config), accounts.current())
        note_caller(caller)
        return caller

    async def read(self, uri: str, ctx: ServerRequestContext[Any, Any] | None) -> Reading:
        """Read one URI for the request behind `ctx`: the path shared by resources/read and get_resource."""
        return await self.reader.read(uri, lambda: self.caller_for(ctx), seconds_to_edge_deadline(ctx))

    async def answer_call_tool(
        self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        """`get_resource` takes one string, so it skips the SDK's generic tool path.

        Why: building the SDK's `Context`, its pydantic argument model and result
        conversion cost about a fifth of a warm read; the fallback tool must cost what
        `resources/read` costs; it also refuses arguments it does not take, where the SDK's path
        would drop them silently. Other tools take the SDK's path.
        """
        if params.name == GET_RESOURCE and self.registry.tool_named(GET_RESOURCE):
            arguments = dict(params.arguments or {})
            account = arguments.pop(accounts.PARAMETER, None)
            if account is not None and isinstance(arguments.get("uri"), str):  # read as `?account=` on the URI
                uri = arguments["uri"]
                arguments["uri"] = f"{uri}{'&' if '?' in uri else '?'}{urlencode({accounts.PARAMETER: account})}"
            return await get_resource_result(self, arguments, ctx)
        result = await self.sdk_call_tool(ctx, params)
        if self.views.negotiated(ctx) and isinstance(result, CallToolResult):
            return self.views.for_view(params.name, result)
        return result

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """An unknown tool, or arguments that fail a tool's input schema, answer as every error of this server
        does: `isError` with the structured `invalid_argument` payload, not the SDK's text. The SDK validates
        before any tool runs, so this is the one place that sees it, for every tool."""
        apps = self.views.negotiated(context.request_context if context else None)
        if self.registry.tool_named(name, view_only=apps) is None:  # the SDK's answer quotes the whole name
            names = ", ".join(tool.name for tool in self.registry.tools(view_only=apps))
            return failure_result(ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Unknown tool {echo(name)!r}",
                                                  details=[f"This server's tools (tools/list): {names}."]))
        try:
            arguments = dict(arguments)
            choice = accounts.chosen(self.config, arguments.pop(accounts.PARAMETER, None))
        except ResourceFailure as failure:  # an unlisted account, an ARN: refused before any AWS call
            return failure_result(failure)
        try:
            with accounts.reading_in(choice):
                return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            failure = invalid_arguments(exc.__cause__)
            schema = self.tool_input_schema(name) or {}
            failure.details.insert(0, f"{name} takes: {', '.join(schema.get('properties', {}))}.")
            return failure_result(failure)

    async def answer_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        resources = [_resource(s) for s in self.registry.static()]
        if self.views.negotiated(ctx):
            resources += self.views.resources()
        page = list_page(resources, params, self.config)
        return ListResourcesResult(resources=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def answer_list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        page = list_page([_resource_template(s) for s in self.registry.templates()], params, self.config)
        return ListResourceTemplatesResult(resource_templates=page.entries, next_cursor=page.next_cursor,
                                           _meta=page.meta)

    async def answer_list_tools(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                ) -> ListToolsResult:
        tools = await self.list_tools()
        if self.views.negotiated(ctx):
            tools = [self.views.stamped(tool) for tool in tools]
        else:
            tools = [tool for tool in tools if self.registry.tool_named(tool.name)]
        page = list_page(tools, params, self.config)
        return ListToolsResult(tools=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def answer_list_prompts(self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
                                  ) -> ListPromptsResult:
        page = list_page(await self.list_prompts(), params, self.config)
        return ListPromptsResult(prompts=page.entries, next_cursor=page.next_cursor, _meta=page.meta)

    async def answer_read_resource(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        document = self.views.read(params.uri) if self.views.negotiated(ctx) else None
        if document is not None:
            return document
        try:
            reading = await self.read(params.uri, ctx)
        except ResourceFailure as failure:
            raise protocol_error(failure, ctx.protocol_version) from None
        ttl_ms, scope = self.freshness(reading)
        return ReadResourceResult(
            contents=[TextResourceContents(uri=reading.uri, text=reading.text, mime_type=reading.spec.mime_type,
                                           _meta=self.trust_marks.for_read(ctx, reading.spec))],
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
        """Complete a template's or a prompt's argument with real values (template names, databases, tables, the
        caller's workflows), read as the caller."""
        values: list[str] = []
        ref = params.ref
        spec: Completable | None = (self.registry.get(ref.uri) if isinstance(ref, ResourceTemplateReference)
                                    else self.registry.prompt_named(ref.name))
        if spec is not None:
            chosen = (params.context.arguments if params.context else None) or {}
            values = await self.reader.complete(spec, params.argument.name, chosen, params.argument.value,
                                                lambda: self.caller_for(ctx), seconds_to_edge_deadline(ctx))
        return CompleteResult(completion=Completion(values=values[:MAX_COMPLETIONS], total=len(values),
                                                    has_more=len(values) > MAX_COMPLETIONS))
