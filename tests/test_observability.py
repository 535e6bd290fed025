"""Log context: every line of a request carries its own MCP method and URI, even under concurrency."""

from __future__ import annotations

import asyncio
import io
import json
import logging

from aws_data_mcp.observability import bind_request, configure, logger


def test_concurrent_requests_never_label_each_others_lines() -> None:
    configure(hosted=True)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)

    async def request(i: int) -> None:
        bind_request("resources/read", f"test://{i}")
        await asyncio.sleep(0.005 * (5 - i))  # finish in the reverse order of starting
        logger.warning("answered", extra={"i": i})

    async def many() -> None:
        await asyncio.gather(*(asyncio.create_task(request(i)) for i in range(5)))

    try:
        asyncio.run(many())
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(lines) == 5
    assert all(line["mcp_uri"] == f"test://{line['i']}" for line in lines)
    assert all(line["mcp_method"] == "resources/read" for line in lines)
