"""The Lambda entry point: API Gateway event -> Mangum -> the MCP ASGI app.

Module init builds only what every caller shares (settings, registry, app) and
creates no credentials, clients or randomness, so a SnapStart snapshot is safe.
"""

from __future__ import annotations

import gc
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.observability import bind_request, end_invocation_scope, flush_metrics, invocation_scope, logger

app = create_http_app(Settings.from_env(default_mode="lambda"))
# lifespan "off": the app holds its own session manager open (see transport/http.py).
asgi_handler = Mangum(app, lifespan="off")


# Everything built so far is shared by every caller: keep it out of the collector's scans.
gc.freeze()


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    # The correlation id is API Gateway's request id (HTTP API and REST alike). Set directly rather
    # than with `inject_lambda_context`, whose per-call context model costs more than our whole middleware.
    logger.set_correlation_id((event.get("requestContext") or {}).get("requestId"))
    logger.append_keys(aws_request_id=context.aws_request_id)
    bind_request(None, None)
    token = invocation_scope()
    try:
        return asgi_handler(event, context)
    finally:
        end_invocation_scope(token)
        flush_metrics()
