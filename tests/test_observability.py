"""Log context: every line of a request carries its own MCP method and URI, even under concurrency; metrics: every
Lambda invocation prints its own EMF line."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from aws_data_mcp.observability import bind_request, configure, logger
from support.events import http_api_event, rpc


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


def _emf_documents(capfd: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """The EMF lines printed on stdout since the last call, parsed."""
    return [json.loads(line) for line in capfd.readouterr().out.splitlines() if line.startswith('{"_aws"')]


def test_every_invocation_prints_its_own_metrics_before_it_returns(
    lambda_handler: Callable[[Any], dict[str, Any]], capfd: pytest.CaptureFixture[str]
) -> None:
    """CloudWatch reads the EMF lines an invocation printed: one per invocation, printed before the handler
    returns (a frozen container prints nothing more), latency per URI template and errors by code."""
    capfd.readouterr()
    answered = lambda_handler(http_api_event(rpc("resources/read", {"uri": "config://server"})))
    [read] = _emf_documents(capfd)
    refused = lambda_handler(http_api_event(rpc("resources/read", {"uri": "athena://nothing/here"})))
    [failed] = _emf_documents(capfd)

    assert answered["statusCode"] == refused["statusCode"] == 200
    assert read["_aws"]["CloudWatchMetrics"] == [{"Namespace": "AwsDataMcp", "Dimensions": [["uri", "service"]],
                                                  "Metrics": [{"Name": "Latency", "Unit": "Milliseconds"}]}]
    assert (read["uri"], read["service"]) == ("config://server", "aws-data-mcp")
    assert len(read["Latency"]) == 1 and read["Latency"][0] >= 0
    assert abs(read["_aws"]["Timestamp"] / 1000 - time.time()) < 60
    assert [m["Name"] for m in failed["_aws"]["CloudWatchMetrics"][0]["Metrics"]] == [
        "Latency", "Errors", "Errors_not_found"]
    assert (failed["uri"], failed["Errors"], failed["Errors_not_found"]) == ("unknown", [1.0], [1.0])
