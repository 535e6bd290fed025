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
from aws_data_mcp.observability import lambda_invocation

app = create_http_app(Settings.from_env(default_mode="lambda"))
# lifespan "off": the app holds its own session manager open (see transport/http.py).
asgi_handler = Mangum(app, lifespan="off")


# Everything built so far is shared by every caller: keep it out of the collector's scans.
gc.freeze()


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    # API Gateway's request id (HTTP API and REST alike) is the correlation id.
    with lambda_invocation((event.get("requestContext") or {}).get("requestId"), context.aws_request_id):
        return asgi_handler(event, context)
