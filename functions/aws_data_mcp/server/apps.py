"""MCP Apps (`io.modelcontextprotocol/ui`): the registry's views, as the SDK's `Apps` extension serves them, offered
only where a client negotiated the extension.

A client that did not (it advertises no `extensions["io.modelcontextprotocol/ui"]` with the app MIME type, on
`initialize` or in a 2026-07-28 request's `_meta`) gets exactly the lists and answers it always got. One that did
gets the `ui://` documents in `resources/list` and `resources/read`, each bound tool with `_meta.ui.resourceUri`,
the view-only tools, and the bound tools' results without a `resource_link` block (a host that sees one hands the
view nothing, anthropics/claude-ai-mcp #753; the link stays in the structured content).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, client_supports_apps
from mcp.server.context import ServerRequestContext
from mcp_types import CallToolResult, ReadResourceResult, Resource, TextResourceContents
from mcp_types import Tool as ToolInfo

from aws_data_mcp.registry import Registry

VIEWS = Path(__file__).parents[1] / "views"
"""The built documents (`make views` writes them from views/ at the repository's root)."""


class Views:
    """The registry's views and the tools bound to them, for one server."""

    def __init__(self, registry: Registry) -> None:
        self.extension = Apps()
        self._bound = {tool: view.uri for view in registry.views() for tool in view.tools}
        for view in registry.views():
            # No CSP domains: the document loads nothing and connects nowhere, so the host's default CSP holds.
            self.extension.add_html_resource(
                view.uri, (VIEWS / view.html_file).read_text(encoding="utf-8"), name=view.name, title=view.title,
                description=view.description, csp=ResourceCsp(),
                permissions=ResourcePermissions(clipboard_write={}))  # "copy a cell" and "copy the fix"
        self._documents = {binding.resource.uri: binding.resource for binding in self.extension.resources()}

    @staticmethod
    def negotiated(ctx: ServerRequestContext[Any, Any] | None) -> bool:
        return ctx is not None and client_supports_apps(ctx)

    def resources(self) -> list[Resource]:
        return [Resource(uri=str(doc.uri), name=doc.name, title=doc.title, description=doc.description,
                         mime_type=doc.mime_type, _meta=doc.meta) for doc in self._documents.values()]

    def read(self, uri: str) -> ReadResourceResult | None:
        doc = self._documents.get(uri)
        if doc is None:
            return None
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=doc.text, mime_type=doc.mime_type,
                                                                 _meta=doc.meta)])

    def stamped(self, tool: ToolInfo) -> ToolInfo:
        """`tool` with `_meta.ui.resourceUri` where a view renders its results."""
        uri = self._bound.get(tool.name)
        if uri is None:
            return tool
        return tool.model_copy(update={"meta": {**(tool.meta or {}), "ui": {"resourceUri": uri}}})

    def for_view(self, name: str, result: CallToolResult) -> CallToolResult:
        """A bound tool's result without its `resource_link` blocks."""
        if name not in self._bound:
            return result
        content = [block for block in result.content if block.type != "resource_link"]
        return result.model_copy(update={"content": content})
