"""The registry: the single source of truth for every URI, tool and prompt this server offers.

`resources/list`, `resources/templates/list`, `prompts/list`, completion, `get_resource` discovery,
`info://capabilities` and the docs' resource table (docs/resources.md) all read from here, so adding
a resource is one `@registry.resource(...)` beside its resolver (a prompt: `@registry.prompt(...)`; an MCP Apps
view of answers: `registry.view(...)`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Protocol

from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.shared.uri_template import UriTemplate

from aws_data_mcp.aws import client
from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.reading.fanout import I, Outcome, T, fan_out

if TYPE_CHECKING:
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.resolve import Caller

Requirement = Literal["none", "auth", "admin"]
MIME_JSON = "application/json"


@dataclass(frozen=True)
class ResourceRequest:
    """What a resolver gets: template arguments, query parameters and the caller. Never a token.

    AWS is reached only through `client()`, which acts as `caller`; the request's deadline reaches
    every call made here or in `fan_out()` workers (see `aws.deadline_scope`).
    """

    args: Mapping[str, str]
    query: Mapping[str, str]
    caller: Caller
    settings: Settings
    registry: Registry
    related: Callable[[str], Mapping[str, Any]] | None = field(default=None, repr=False)
    """Reads another URI's result for the same caller, through the same cache (e.g. discover for
    recommendations)."""
    memo: Callable[[Hashable, Callable[[], Any]], Any] | None = field(default=None, repr=False)
    """Keeps an AWS answer that can no longer change (a finished query's description) for this caller, for the
    cache's TTL; None where the server caches nothing."""

    def client(self, service: str, region: str | None = None) -> Any:
        """A boto3 client acting as the caller (in `region`, else the caller's region)."""
        return client(self.caller.require_session(), service, self.settings, region or self.caller.region)

    def fan_out(self, fn: Callable[[I], T], items: Iterable[I], *,
                action: str | Callable[[I], str]) -> list[Outcome[I, T]]:
        """`fn` over `items` in parallel, bounded by the server's fan-out width and the request's deadline."""
        return fan_out(fn, items, action=action, width=self.settings.fanout_width)

    def remembered(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, or the value it gave this caller under `key` within the cache's TTL. Only for answers that
        cannot change: a cached one is served without asking AWS again."""
        return compute() if self.memo is None else self.memo(key, compute)

    def read_related(self, uri: str) -> Mapping[str, Any]:
        if self.related is None:
            raise RuntimeError("this request cannot read related resources")
        return self.related(uri)


Resolver = Callable[[ResourceRequest], Mapping[str, Any]]
Completer = Callable[[ResourceRequest, str], Sequence[str]]
"""Offers values for one template argument, given the request (its `args` are the arguments already
chosen, from the completion context) and the typed prefix."""
ArgumentCheck = Callable[[str], object]
"""Raises `ResourceFailure` for a template argument no resource could have; runs before the caller is resolved."""


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    """A static URI, or an RFC 6570 template."""
    name: str
    title: str
    description: str
    requires: Requirement
    resolver: Resolver
    aws_calls: tuple[str, ...] = ()
    completions: Mapping[str, Completer] = field(default_factory=dict)
    list_field: str | None = None
    """The top-level list that the character budget may cut into pages (`?cursor=`)."""
    example: str | None = None
    """For a template: one concrete URI it serves, for docs and the tool description."""
    mime_type: str = MIME_JSON
    cacheable: bool = True
    """False for data that changes with every write (workflows): never served from the result cache."""
    query_params: tuple[str, ...] = ()
    """Query parameters the resolver reads (`?limit=`); `cursor` is implied for a paged list. Any other is
    refused as `invalid_argument`."""
    argument_checks: Mapping[str, ArgumentCheck] = field(default_factory=dict)
    """Checks of template arguments that need no AWS: a bad argument is refused before any call, STS's included."""

    @property
    def accepted_query(self) -> tuple[str, ...]:
        return (*self.query_params, "cursor") if self.list_field else self.query_params

    @property
    def category(self) -> str:
        return self.uri.split("://", 1)[0]

    @cached_property
    def template(self) -> UriTemplate | None:
        parsed = UriTemplate.parse(self.uri)
        return parsed if parsed.variable_names else None

    def describe(self) -> dict[str, Any]:
        """The discovery entry shared by `get_resource()` and `info://capabilities`."""
        template = self.template
        entry: dict[str, Any] = {"uriTemplate" if template else "uri": self.uri}
        entry |= {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
            "isTemplate": template is not None,
            "parameters": list(template.variable_names) if template else [],
            "requires": self.requires,
            "category": self.category,
            "awsCalls": list(self.aws_calls),
            "paged": self.list_field is not None,
            "queryParameters": list(self.accepted_query),
        }
        if self.example:
            entry["example"] = self.example
        return entry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    fn: Callable[..., Any]
    read_only: bool = True
    destructive: bool = False
    view_only: bool = False
    """Offered (listed and called) only to a client that negotiated MCP Apps: it exists to open a view."""
    idempotent: bool = False
    """A tool that writes: whether the same call sent again changes nothing more (a read-only tool always is)."""
    open_world: bool = True
    """Whether it reaches AWS as the caller (False: only this server's own store, the workflows)."""
    output_schema: Mapping[str, Any] | None = None
    """The JSON Schema of what it answers when it is not an error: its `outputSchema`."""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "description": self.description, "readOnly": self.read_only,
                "destructive": self.destructive}


@dataclass(frozen=True)
class ViewSpec:
    """An MCP Apps view (`ui://`): one HTML document that renders the answers of `tools` (and of the resources it
    reads through the host).

    Listed, and stamped on its tools, only for a client that negotiated the extension (`views.py`)."""

    uri: str
    name: str
    title: str
    description: str
    html_file: str
    """The built document's file name in `aws_data_mcp/views/` (`make views` writes it)."""
    tools: tuple[str, ...] = ()


class Completable(Protocol):
    """What completion needs of a resource template or a prompt: a completer per argument, and whether a caller
    must be resolved to run them."""

    @property
    def completions(self) -> Mapping[str, Completer]: ...

    @property
    def requires(self) -> Requirement: ...


PromptRenderer = Callable[[Mapping[str, str]], str]
"""A prompt's message, from its arguments: required ones present, every one checked (`PromptArgument.value`)."""


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = True
    completer: Completer | None = None
    max_chars: int = 255
    multiline: bool = False
    """A question may span lines; a name may not (it lands in a URI or SQL the prompt spells out)."""
    check: ArgumentCheck | None = None
    """What a well-formed value looks like, beyond one bounded line (e.g. `database.table` or `s3://...`)."""

    def value(self, raw: object) -> str:
        """The argument's value, or `invalid_argument` saying what it must be."""
        what, details = f"Prompt argument {self.name!r}", [f"{self.name}: {self.description}"]
        if not isinstance(raw, str) or not raw.strip():
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{what} must be a non-empty string", details=details)
        text = raw.strip()
        if len(text) > self.max_chars:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                                  f"{what} is {len(text)} characters: at most {self.max_chars}", details=details)
        allowed = "\n\t" if self.multiline else ""
        if any(ord(c) < 32 and c not in allowed for c in text):
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"{what} must be one line without control characters",
                                  details=details)
        if self.check is not None:
            self.check(text)
        return text


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    render: PromptRenderer
    requires: Requirement = "auth"
    """What the reads it leads to need; also whether completing its arguments needs a caller."""

    @property
    def completions(self) -> Mapping[str, Completer]:
        return {a.name: a.completer for a in self.arguments if a.completer is not None}

    def values(self, raw: Mapping[str, object] | None) -> dict[str, str]:
        """The arguments a client sent, checked: every required one present, none unknown, each well formed."""
        sent = dict(raw or {})
        takes = f"{self.name} takes: " + ", ".join(
            f"{a.name}{'' if a.required else ' (optional)'}" for a in self.arguments) + "."
        unknown = sorted(set(sent) - {a.name for a in self.arguments})
        if unknown:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                                  f"Prompt {self.name!r} takes no argument {echo(', '.join(unknown))!r}",
                                  details=[takes])
        missing = [a.name for a in self.arguments if a.required and sent.get(a.name) in (None, "")]
        if missing:
            raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                                  f"Prompt {self.name!r} is missing its required {', '.join(map(repr, missing))}",
                                  details=[takes, *(f"{a.name}: {a.description}" for a in self.arguments
                                                    if a.name in missing)])
        return {a.name: a.value(sent[a.name]) for a in self.arguments if sent.get(a.name) not in (None, "")}

    def describe(self) -> dict[str, Any]:
        """The discovery entry in `get_resource()` and `info://capabilities`."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": [{"name": a.name, "description": a.description, "required": a.required,
                           "completes": a.completer is not None} for a in self.arguments],
            "requires": self.requires,
        }


@dataclass(frozen=True)
class Match:
    spec: ResourceSpec
    args: Mapping[str, str]


class Registry:
    """Holds resource, tool and prompt specs; lists come out sorted so clients and prompt caches can reuse them."""

    def __init__(self, security: ResourceSecurity | None = None) -> None:
        self._resources: dict[str, ResourceSpec] = {}
        self._tools: dict[str, ToolSpec] = {}
        self._prompts: dict[str, PromptSpec] = {}
        self._views: dict[str, ViewSpec] = {}
        self._templates: dict[str, UriTemplate] = {}
        self._security = security or ResourceSecurity()

    def resource(
        self,
        uri: str,
        *,
        name: str,
        title: str,
        description: str,
        requires: Requirement = "none",
        aws_calls: Sequence[str] = (),
        completions: Mapping[str, Completer] | None = None,
        list_field: str | None = None,
        example: str | None = None,
        query_params: Sequence[str] = (),
        cacheable: bool = True,
        argument_checks: Mapping[str, ArgumentCheck] | None = None,
    ) -> Callable[[Resolver], Resolver]:
        def register(resolver: Resolver) -> Resolver:
            self.add(ResourceSpec(uri, name, title, description, requires, resolver, tuple(aws_calls),
                                  dict(completions or {}), list_field, example, cacheable=cacheable,
                                  query_params=tuple(query_params), argument_checks=dict(argument_checks or {})))
            return resolver

        return register

    def add(self, spec: ResourceSpec) -> None:
        if spec.uri in self._resources:
            raise ValueError(f"resource {spec.uri!r} is registered twice")
        template = spec.template
        if template is not None:
            if spec.example is None or template.match(spec.example) is None:
                raise ValueError(f"template {spec.uri!r} needs an example URI that it matches")
            unknown = (set(spec.completions) | set(spec.argument_checks)) - set(template.variable_names)
            if unknown:
                raise ValueError(f"completions or checks for unknown arguments {sorted(unknown)} of {spec.uri!r}")
            self._templates[spec.uri] = template
        self._resources[spec.uri] = spec

    def tool(self, *, name: str, title: str, description: str, read_only: bool = True, destructive: bool = False,
             view_only: bool = False, idempotent: bool = False, open_world: bool = True,
             output_schema: Mapping[str, Any] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if name in self._tools:
                raise ValueError(f"tool {name!r} is registered twice")
            self._tools[name] = ToolSpec(name, title, description, fn, read_only, destructive, view_only,
                                         idempotent=idempotent, open_world=open_world, output_schema=output_schema)
            return fn

        return register

    def prompt(self, *, name: str, title: str, description: str, arguments: Sequence[PromptArgument],
               requires: Requirement = "auth") -> Callable[[PromptRenderer], PromptRenderer]:
        def register(render: PromptRenderer) -> PromptRenderer:
            if name in self._prompts:
                raise ValueError(f"prompt {name!r} is registered twice")
            self._prompts[name] = PromptSpec(name, title, description, tuple(arguments), render, requires)
            return render

        return register

    def view(self, uri: str, *, name: str, title: str, description: str, html_file: str,
             tools: Sequence[str] = ()) -> None:
        if not uri.startswith("ui://") or uri in self._views:
            raise ValueError(f"view {uri!r} must be a ui:// URI registered once")
        taken = {tool for view in self._views.values() for tool in view.tools} & set(tools)
        if taken:
            raise ValueError(f"tools {sorted(taken)} already have a view")
        self._views[uri] = ViewSpec(uri, name, title, description, html_file, tuple(tools))

    def views(self) -> list[ViewSpec]:
        return sorted(self._views.values(), key=lambda v: v.uri)

    def prompts(self) -> list[PromptSpec]:
        return sorted(self._prompts.values(), key=lambda p: p.name)

    def prompt_named(self, name: str) -> PromptSpec | None:
        return self._prompts.get(name)

    def static(self) -> list[ResourceSpec]:
        return sorted((s for s in self._resources.values() if s.uri not in self._templates), key=lambda s: s.uri)

    def templates(self) -> list[ResourceSpec]:
        return sorted((s for s in self._resources.values() if s.uri in self._templates), key=lambda s: s.uri)

    def tools(self, *, view_only: bool = False) -> list[ToolSpec]:
        """The tools every client gets; with `view_only`, those of negotiated MCP Apps clients too."""
        return sorted((t for t in self._tools.values() if view_only or not t.view_only), key=lambda t: t.name)

    def tool_named(self, name: str, *, view_only: bool = False) -> ToolSpec | None:
        tool = self._tools.get(name)
        return tool if tool is not None and (view_only or not tool.view_only) else None

    def __iter__(self) -> Iterator[ResourceSpec]:
        return iter([*self.static(), *self.templates()])

    def get(self, uri: str) -> ResourceSpec | None:
        return self._resources.get(uri)

    def match(self, uri: str) -> Match | None:
        """The spec serving `uri`: an exact static URI first, then the SDK's RFC 6570 matching.

        Raises `invalid_argument` when a template matches but an argument fails the
        SDK's path-safety checks (traversal, absolute paths, NUL), however encoded.
        """
        spec = self._resources.get(uri)
        if spec is not None and uri not in self._templates:
            return Match(spec, {})
        for template_uri, template in sorted(self._templates.items()):
            params = template.match(uri)
            if params is None:
                continue
            rejected = self._security.validate(params)
            if rejected is not None:
                raise ResourceFailure(
                    ErrorCode.INVALID_ARGUMENT,
                    f"Argument {echo(rejected)!r} of {template_uri} is not a safe value",
                    details=["Template arguments are names, not paths: no '..', no leading '/', no NUL."],
                )
            args = {k: v if isinstance(v, str) else ",".join(v) for k, v in params.items()}
            empty = next((name for name, value in args.items() if not value), None)
            if empty is not None:  # `a//b`: no name is empty, so nothing is looked up (a store may refuse it loudly)
                example = self._resources[template_uri].example
                raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Argument {empty!r} of {template_uri} is empty",
                                      details=[f"Give a value, e.g. {example}." if example else
                                               "Give every template argument a value."])
            return Match(self._resources[template_uri], args)
        return None

    def nearest(self, uri: str) -> list[str]:
        """Every URI and template, the most similar to `uri` first (difflib imported here: a not-found's advice,
        never on a cold start's path)."""
        import difflib

        known = [s.uri for s in self]
        return sorted(known, key=lambda k: (-difflib.SequenceMatcher(None, uri.lower(), k).ratio(), k))

    def markdown_table(self) -> str:
        """The resource table of docs/resources.md, so the docs cannot drift from what is served."""
        rows = ["| URI | what it returns | AWS calls (as the caller) | requires |", "|---|---|---|---|"]
        for spec in self:
            calls = ", ".join(spec.aws_calls) or "none"
            rows.append(f"| `{spec.uri}` | {spec.description} | {calls} | {spec.requires} |")
        rows += ["", "| tool | what it does |", "|---|---|"]
        rows += [f"| `{tool.name}` | {tool.description} |" for tool in self.tools()]
        if self._prompts:
            rows += ["", "| prompt | arguments | what it does |", "|---|---|---|"]
            rows += [f"| `{p.name}` | {', '.join(a.name + ('' if a.required else '?') for a in p.arguments)} "
                     f"| {p.description} |" for p in self.prompts()]
        return "\n".join(rows) + "\n"

    def discovery(self) -> dict[str, Any]:
        return {
            "resources": [s.describe() for s in self.static()],
            "templates": [s.describe() for s in self.templates()],
            "tools": [t.describe() for t in self.tools()],
            "prompts": [p.describe() for p in self.prompts()],
        }


registry = Registry()
"""The process-wide registry. Empty here: importing `aws_data_mcp.resources` registers every namespace into it."""
