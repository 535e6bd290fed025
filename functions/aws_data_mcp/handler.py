"""The Lambda entry point: API Gateway event -> Mangum -> the MCP ASGI app.

Module init builds only what every caller shares (settings, registry, app) and
creates no credentials, clients or randomness, so a SnapStart snapshot is safe. Where no request waits on the
init phase (SnapStart's, provisioned concurrency's), it also builds the tools' models and parses the AWS service
models every caller's clients are built from, so no first request pays for them.
"""

# ruff: noqa: E402  (the imports below run with the collector paused, so they follow its call)
from __future__ import annotations

import gc

# Init keeps nearly all it builds: its collections found about 1,000 cyclic objects of 100,000,
# and took about a seventh of the imports' CPU. Resumed once init is done (below).
gc.disable()

import os
from typing import TYPE_CHECKING, Any

from mangum import Mangum
from mangum.protocols.http import HTTPCycle
from mcp_types import INVALID_REQUEST

from aws_data_mcp.app import create_http_app
from aws_data_mcp.aws import warm_up
from aws_data_mcp.config import Settings
from aws_data_mcp.observability import LambdaInvocation, logger
from aws_data_mcp.transport.json_errors import error_body

if TYPE_CHECKING:  # a type only: importing it at run time is a module the cold start would load for nothing
    from aws_lambda_powertools.utilities.typing import LambdaContext

INIT_PHASES_AHEAD_OF_REQUESTS = frozenset({"snap-start", "provisioned-concurrency"})
"""Lambda's AWS_LAMBDA_INITIALIZATION_TYPE values whose init no request waits on ("on-demand" is a cold start's)."""

settings = Settings.from_env(default_mode="lambda")
app = create_http_app(settings)
if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") in INIT_PHASES_AHEAD_OF_REQUESTS:
    app.server.prepare_tools()
    warm_up(settings)
# lifespan "off": the app holds its own session manager open (see transport/http.py).
asgi_handler = Mangum(app, lifespan="off")

NOT_AN_HTTP_EVENT: dict[str, Any] = {
    "statusCode": 400,
    "headers": {"content-type": "application/json"},
    "isBase64Encoded": False,
    "body": error_body(INVALID_REQUEST, "Not an API Gateway HTTP event: this function serves MCP over API "
                       "Gateway (HTTP API or REST) only").decode(),
}

# Everything built so far is shared by every caller: keep it out of the collector's scans.
gc.freeze()
gc.enable()


def lambda_handler(event: Any, context: LambdaContext) -> dict[str, Any]:
    """Mangum's own three steps (`Mangum.__call__` with lifespan off), split so that an event API Gateway never
    sends (a direct invocation, a test console's `{}`, bad base64) is refused with a 400 instead of failing the
    invocation, while a failure anywhere else still surfaces."""
    request_context = event.get("requestContext") if isinstance(event, dict) else None
    # API Gateway's request id (HTTP API and REST alike) is the correlation id.
    request_id = request_context.get("requestId") if isinstance(request_context, dict) else None
    with LambdaInvocation(request_id, context.aws_request_id):
        try:
            adapter = asgi_handler.infer(event, context)
            scope, body = adapter.scope, adapter.body
        except Exception as exc:
            logger.warning("not an API Gateway HTTP event", extra={"error": type(exc).__name__})
            return dict(NOT_AN_HTTP_EVENT)
        return adapter(HTTPCycle(scope, body)(app))
