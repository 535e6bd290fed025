"""The local stand-in for the context object Lambda passes to the handler.

One class for every place that runs the real handler without Lambda. That is the command line's
`invoke`, the demo's API Gateway front and the tests. It imports only the standard library. So
`invoke` runs without the demo extra (moto).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

FUNCTION_TIMEOUT_SECONDS = 29
"""The function's Timeout in template.yaml: what the remaining time counts down from."""


@dataclass
class LocalLambdaContext:
    """What Powertools and Mangum read of a Lambda context; the remaining time really counts down."""

    aws_request_id: str = "local-invoke"
    function_name: str = "aws-data-mcp-local"
    function_version: str = "$LATEST"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:000000000000:function:aws-data-mcp-local"
    memory_limit_in_mb: int = 1024
    log_group_name: str = "/aws/lambda/aws-data-mcp-local"
    log_stream_name: str = "local"
    _deadline: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + FUNCTION_TIMEOUT_SECONDS

    def get_remaining_time_in_millis(self) -> int:
        return max(int((self._deadline - time.monotonic()) * 1000), 0)
