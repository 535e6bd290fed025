"""A body nested past Python's recursion limit gets the same JSON-RPC parse error from `serve` as from Lambda.

The local server looks into an `initialize` body to give it a session; parsing one nested 100,000 levels
deep raised `RecursionError` there (not a `ValueError`), which escaped as uvicorn's plain-text 500 with a
traceback in the log, while the Lambda path answered -32700.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from support.events import http_api_event
from support.logs import RecordKeeper
from support.servers import ServerThread

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-11-25"}
NESTED_INITIALIZE = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":' + "[" * 100_000 + "]" * 100_000
                     + "}")


@pytest.mark.parametrize("body", [NESTED_INITIALIZE, '{"method":"initialize","x":' + '{"a":' * 100_000 + "1"
                                  + "}" * 100_001])
def test_the_local_server_and_lambda_give_one_parse_error(
        body: str, http_server: ServerThread, lambda_handler: Callable[[Any], dict[str, Any]],
        log_records: RecordKeeper) -> None:
    local = httpx2.post(http_server.url, content=body, headers=HEADERS, timeout=30)
    hosted = lambda_handler(http_api_event(body, headers=HEADERS))
    assert (local.status_code, hosted["statusCode"]) == (400, 400), local.text[:300]
    assert local.headers["content-type"].startswith("application/json")
    assert local.json() == json.loads(hosted["body"])
    assert local.json()["error"]["code"] == -32700
    assert not [r for r in log_records.at_least(logging.ERROR)], "no traceback logged for a client's bad body"
    assert httpx2.post(http_server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=HEADERS,
                       timeout=10).status_code == 200, "the server keeps serving"
