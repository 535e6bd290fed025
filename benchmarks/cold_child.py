"""One cold start, in a fresh interpreter: `floor` or `ours`.

Deliberately tiny and import-free before the measured imports, so that both kinds pay the
same interpreter start-up and differ only in what they load and do. At each marker it
prints a CLOCK_MONOTONIC reading (system-wide on Linux, so the parent can subtract its own
spawn time) and this process's CPU time so far:
`floor` -> "<mono> <cpu>" when the imports are done; `ours` -> the same, then again at the
first response. Then it leaves without interpreter shutdown, which no one waits for on Lambda.
"""

import os
import sys
import time


class Context:
    """The Lambda context fields Powertools and Mangum read (the CLI's own class would add argparse)."""

    function_name = "aws-data-mcp-bench"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:aws-data-mcp-bench"
    memory_limit_in_mb = 1024
    aws_request_id = "cold-start"
    log_group_name = "/aws/lambda/aws-data-mcp-bench"
    log_stream_name = "bench"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def _marker() -> str:
    return f"{time.monotonic()} {time.process_time()}"


def floor() -> str:
    import boto3  # noqa: F401
    import mangum  # noqa: F401
    from mcp.server.mcpserver import MCPServer  # noqa: F401

    return _marker()


def ours(event_path: str) -> str:
    import contextlib
    import json

    from aws_data_mcp.handler import lambda_handler

    imported = _marker()
    with open(event_path, encoding="utf-8") as source:
        event = json.load(source)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):  # the EMF metric line
        response = lambda_handler(event, Context())
    answered = _marker()
    if response.get("statusCode") != 200 or '"contents"' not in (response.get("body") or ""):
        raise SystemExit(f"unexpected first response: {response!r:.300}")
    return f"{imported} {answered}"


if __name__ == "__main__":
    print(floor() if sys.argv[1] == "floor" else ours(sys.argv[2]), flush=True)
    os._exit(0)
