"""Assembly only: settings -> registry -> MCP server -> ASGI app. No logic lives here."""

from __future__ import annotations

from aws_data_mcp.config import Settings
from aws_data_mcp.observability import configure
from aws_data_mcp.resources import registry
from aws_data_mcp.server.mcp_server import DataMCPServer
from aws_data_mcp.transport.http import McpHttpApp


def create_server(settings: Settings, about_data: str = "") -> DataMCPServer:
    """`about_data`: what this deployment's data is, for the server's instructions (the demo passes its story)."""
    configure(hosted=settings.hosted)
    return DataMCPServer(registry, settings, about_data)


def create_http_app(settings: Settings, about_data: str = "") -> McpHttpApp:
    return McpHttpApp(create_server(settings, about_data), settings)
