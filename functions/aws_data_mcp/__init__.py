"""aws-data-mcp: a serverless MCP server for a team's AWS data estate.

Data flows one way: request -> identity -> caller session -> resolver -> typed result -> JSON.
"""

__version__ = "0.1.0"
