"""The Lambda entry point: API Gateway event -> Mangum -> the MCP ASGI app.

Module init builds only what every caller shares (settings, registry, app) and
creates no credentials, clients or randomness, so a SnapStart snapshot is safe.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.observability import end_invocation_scope, invocation_scope, logger, metrics

app = create_http_app(Settings.from_env(default_mode="lambda"))
# lifespan "off": the app holds its own session manager open (see transport/http.py).
asgi_handler = Mangum(app, lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    metrics.add_metric(name="Invocations", unit=MetricUnit.Count, value=1)
    token = invocation_scope()
    try:
        return asgi_handler(event, context)
    finally:
        end_invocation_scope(token)
