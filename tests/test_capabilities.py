"""Advertise only what is served, the same on every path: `initialize` (2025-11-25) and `server/discover`
(2026-07-28), on Lambda and on the local server. (Subscription flags follow the transport: not checked here.)"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from mcp import Client

from aws_data_mcp.app import create_server
from aws_data_mcp.config import Settings
from aws_data_mcp.resources import registry
from aws_data_mcp_demo.account.seed_data import DEMO_DATA_STORY as DEMO_DATA
from support.events import REVISION_2025, REVISION_2026, answer_of, body_json, http_api_event, modern, rpc
from support.logs import RecordKeeper

INITIALIZE = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": {},
                                "clientInfo": {"name": "pytest", "version": "1"}})
SERVED = {"completions", "logging", "prompts", "resources", "tools"}


def post_http(url: str, body: dict[str, Any], revision: str) -> dict[str, Any]:
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": revision}
    if revision == REVISION_2026:
        headers["mcp-method"] = body["method"]
        name = body["params"].get("name")
        if name:
            headers["mcp-name"] = name
    response = httpx2.post(url, json=body, headers=headers, timeout=10)
    assert response.status_code < 500
    return answer_of(response.headers.get("content-type", ""), response.text)  # type: ignore[no-any-return]


@pytest.fixture(params=["lambda", "http"])
def post(request: pytest.FixtureRequest) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    if request.param == "lambda":
        handler = request.getfixturevalue("lambda_handler")
        return lambda body, revision: body_json(handler(http_api_event(body, revision=revision)))
    url = request.getfixturevalue("http_server").url
    return lambda body, revision: post_http(url, body, revision)


def test_initialize_and_discover_advertise_the_same_served_capabilities(post: Any) -> None:
    legacy = post(INITIALIZE, REVISION_2025)["result"]["capabilities"]
    modern_ = post(modern("server/discover", {}), REVISION_2026)["result"]["capabilities"]
    assert set(legacy) == SERVED and set(modern_) == SERVED | {"extensions"}, (legacy, modern_)
    # MCP Apps, trust annotations and Tasks (SEP-2133 extensions are a 2026-07-28 capability; a 2025-11-25 client
    # still negotiates MCP Apps by its own).
    assert modern_["extensions"] == {"io.modelcontextprotocol/ui": {}, "io.modelcontextprotocol/trust-annotations": {},
                                     "io.modelcontextprotocol/tasks": {}}


def test_prompts_are_the_registrys_and_an_unknown_name_is_an_invalid_parameter(post: Any,
                                                                               log_records: RecordKeeper) -> None:
    for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
        listed = post(build("prompts/list", {}, 10), revision)["result"]["prompts"]
        assert [p["name"] for p in listed] == [p.name for p in registry.prompts()] != []
        error = post(build("prompts/get", {"name": "x" * 5_000}, 11), revision)["error"]
        assert error["code"] == -32602 and "Unknown prompt" in error["message"], (revision, error)
        assert error["data"]["error"] == "invalid_argument"
        assert len(error["message"]) < 400, "the unknown name is echoed bounded"
    assert [r.getMessage() for r in log_records.at_least(logging.ERROR)] == []


def test_instructions_say_what_the_server_is_for_and_where_to_start(post: Any) -> None:
    """A few lines, the same from `initialize` and `server/discover`, naming the first reads, the query tool with
    its cutoff and estimate, whose credentials every call uses, and the prompts."""
    legacy = post(INITIALIZE, REVISION_2025)["result"]["instructions"]
    assert post(modern("server/discover", {}), REVISION_2026)["result"]["instructions"] == legacy
    for said in ("caller's own AWS credentials", "info://capabilities", "athena://databases", "athena_query",
                 "cutoff", "estimate_only=true", "permissions://recommendations", "get_resource()",
                 *(p.name for p in registry.prompts())):
        assert said in legacy, said
    assert len(legacy.splitlines()) <= 8 and len(legacy) < 1_500


@pytest.mark.anyio
async def test_a_deployment_adds_what_its_data_is_to_the_instructions() -> None:
    """The hook the demo uses (`about_data`): its story is the instructions' last line, through the protocol."""
    async with Client(create_server(Settings(mode="local"), about_data=DEMO_DATA)) as client:
        instructions = client.instructions or ""
    assert instructions.splitlines()[-1] == DEMO_DATA and "athena_query" in instructions


def test_logging_set_level_is_accepted_where_the_revision_has_it(post: Any) -> None:
    """Kept for the 2025-11-25 conformance suite (`logging-set-level` is required); the server sends no log
    notifications, so the level filters nothing. 2026-07-28 has no such method (the level travels in `_meta`)."""
    assert post(rpc("logging/setLevel", {"level": "debug"}, 12), REVISION_2025)["result"] == {}
    assert post(modern("logging/setLevel", {"level": "debug"}, 13), REVISION_2026)["error"]["code"] == -32601


@pytest.mark.anyio
async def test_an_operator_describes_the_deployments_data_with_a_setting() -> None:
    """AWS_DATA_MCP_DATA_DESCRIPTION (template DataDescription): the hosted demo's story comes this way too."""
    described = "Our lake: sales (orders, customers) and finance (invoices), joined on customer_id."
    async with Client(create_server(Settings(mode="local", data_description=described))) as client:
        instructions = client.instructions or ""
    assert instructions.splitlines()[-1] == described
