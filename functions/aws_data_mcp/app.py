"""Assembly only: settings -> registry -> MCP server -> ASGI app. No logic lives here."""

from __future__ import annotations

from aws_data_mcp.config import Settings
from aws_data_mcp.observability import configure
from aws_data_mcp.resources import registry
from aws_data_mcp.server import DataMCPServer
from aws_data_mcp.transport.http import McpHttpApp


def create_server(settings: Settings) -> DataMCPServer:
    configure(hosted=settings.hosted)
    return DataMCPServer(registry, settings)


def create_http_app(settings: Settings) -> McpHttpApp:
    return McpHttpApp(create_server(settings), settings)
