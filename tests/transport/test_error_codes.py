"""The JSON-RPC code of each error as the request's revision asks it (docs/protocol.md, "Errors").

An unknown resource: -32002 up to 2025-11-25, -32602 on 2026-07-28 (SEP-2164), with the same `data` (`not_found`,
the valid URIs nearest first) on both, and get_resource's tool error carrying that same payload. Through the SDK
client over HTTP on both revisions and through the Lambda handler (API Gateway events) on both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, modern, rpc

NOT_FOUND = {"legacy": -32002, REVISION_2026: -32602}
"""The SDK client's mode -> the code it must be answered for a URI that names nothing."""
UNKNOWN = ["auth://statu", "metadata://templates/no-such-template", "athena://nothing-here"]
"""Well-formed URIs of known schemes that name nothing (the conformance suite probes only an unknown scheme)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", sorted(NOT_FOUND))
async def test_the_sdk_client_gets_the_not_found_code_of_its_revision(http_server: Any, mode: str) -> None:
    async with Client(http_server.url, mode=mode) as client:
        for uri in UNKNOWN:
            with pytest.raises(MCPError) as read:
                await client.read_resource(uri)
            assert read.value.error.code == NOT_FOUND[mode], (uri, read.value.error)
            data = read.value.error.data
            assert data["error"] == "not_found" and data["valid_uris"] and data["uri"] == uri
            tool = await client.call_tool("get_resource", {"uri": uri})
            assert tool.is_error and tool.structured_content == data, "get_resource carries the same payload"
        # A URI that is not a resource URI at all stays invalid params on both revisions.
        with pytest.raises(MCPError) as malformed:
            await client.read_resource("nope://x")
        assert malformed.value.error.code == -32602 and malformed.value.error.data["error"] == "invalid_uri"


@pytest.mark.parametrize(("revision", "code"), [(REVISION_2025, -32002), (REVISION_2026, -32602)])
def test_the_lambda_handler_answers_the_not_found_code_of_the_revision(
        lambda_handler: Callable[[Any], dict[str, Any]], revision: str, code: int) -> None:
    build = rpc if revision == REVISION_2025 else modern
    answers = {}
    for uri in UNKNOWN:
        response = lambda_handler(http_api_event(build("resources/read", {"uri": uri}, 5), revision=revision))
        message = body_json(response)
        assert message["id"] == 5 and message["error"]["code"] == code, message
        answers[uri] = message["error"]["data"]
        tool = body_json(lambda_handler(http_api_event(
            build("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}, 6), revision=revision)))
        result = tool["result"]
        assert result["isError"] is True and result["structuredContent"] == answers[uri]
        assert json.loads(result["content"][0]["text"]) == answers[uri]
    assert answers["auth://statu"]["valid_uris"][0] == "auth://status", "the nearest valid URI first"


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
@pytest.mark.parametrize("literal", ["1.5", "1e999", "7.0", "null", "true", "{}", "[]"])
def test_an_invalid_request_id_is_answered_invalid_request_with_a_null_id(
        lambda_handler: Callable[[Any], dict[str, Any]], revision: str, literal: str) -> None:
    params = json.dumps(modern("tools/list")["params"]) if revision == REVISION_2026 else "{}"
    body = '{"jsonrpc":"2.0","id":' + literal + ',"method":"tools/list","params":' + params + "}"
    response = lambda_handler(http_api_event(body, revision=revision, headers={"mcp-method": "tools/list"}))
    assert response["statusCode"] == 400, response
    message = body_json(response)
    assert message["id"] is None and message["error"]["code"] == -32600, message
    assert "string or an integer" in message["error"]["message"]
    served = body.replace(literal, "7", 1)  # the same request with an integer id is served
    assert body_json(lambda_handler(http_api_event(served, revision=revision,
                                                   headers={"mcp-method": "tools/list"})))["result"]["tools"]
