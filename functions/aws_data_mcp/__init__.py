"""aws-data-mcp: a serverless MCP server for a team's AWS data estate.

Data flows one way: request -> identity -> caller session -> resolver -> typed result -> JSON. By layer: the
entries (`handler` on Lambda, `cli` locally, assembled by `app`), `transport/`, `server/`, `registry`, `identity/`,
`reading/`, `aws` (clients), then `resources/`, `guard/`, `query/`, `explainer/`, `lakehouse/`, `workflows/`
and `sign_in/`; `check/` is the operator's command, never served; beside them `config` (settings), `errors` (the
error vocabulary), `observability` (logs and metrics), `audit` (the record of each MCP call) and `private_files`
(owner-only local state).
"""

__version__ = "0.1.0"
