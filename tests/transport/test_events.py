"""Every API Gateway event under events/ replayed through the real Lambda handler, and the project's `invoke`."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from support.events import EVENTS, REVISION_2025, REVISION_2026, ROOT, body_json, load_event

Invoke = Callable[[dict[str, Any]], dict[str, Any]]

EVENT_FILES = sorted(str(path.relative_to(EVENTS)) for path in EVENTS.rglob("*.json"))
AUTH_EVENTS = ("iam-", "oidc-")
"""Events of callers of one auth mode (valid and invalid): replayed with that mode in tests/auth."""


def request_of(event: dict[str, Any]) -> dict[str, Any]:
    body = event["body"]
    assert not event.get("isBase64Encoded"), "event bodies are plain JSON text"
    return json.loads(body)  # type: ignore[no-any-return]


def headers_of(event: dict[str, Any]) -> dict[str, str]:
    return {k.lower(): v for k, v in (event.get("headers") or {}).items()}


def with_body(event: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The same event (shape, stage, headers) carrying another request; routing headers follow the body."""
    other = copy.deepcopy(event)
    other["body"] = json.dumps(body)
    for field in ("headers", "multiValueHeaders"):
        headers = other.get(field)
        if not headers:
            continue
        wrap = (lambda v: [v]) if field == "multiValueHeaders" else (lambda v: v)
        if "mcp-method" in headers:
            headers["mcp-method"] = wrap(body["method"])
        if "mcp-name" in headers:
            headers["mcp-name"] = wrap(body["params"]["uri"])
    return other


def test_events_cover_both_payload_formats_and_both_revisions() -> None:
    assert len(EVENT_FILES) >= 10
    kinds = {(path.split("/")[0], headers_of(load_event(path)).get("mcp-protocol-version")) for path in EVENT_FILES}
    assert kinds >= {("http-api-v2", REVISION_2025), ("http-api-v2", REVISION_2026), ("rest-v1", REVISION_2025),
                     ("rest-v1", REVISION_2026)}


@pytest.mark.parametrize("relative", [path for path in EVENT_FILES if not path.split("/")[-1].startswith(AUTH_EVENTS)])
def test_event_replays_through_the_handler(lambda_handler: Invoke, relative: str) -> None:
    event = load_event(relative)
    request = request_of(event)
    method, params = request["method"], request.get("params") or {}
    if headers_of(event).get("mcp-protocol-version") == REVISION_2026:
        assert headers_of(event).get("mcp-method") == method, "2026-07-28 events carry a matching Mcp-Method"
        assert "io.modelcontextprotocol/protocolVersion" in params.get("_meta", {})

    response = lambda_handler(copy.deepcopy(event))
    assert response["statusCode"] == 200, response
    assert response["isBase64Encoded"] is False
    message = body_json(response)
    assert message["id"] == request["id"]
    assert "error" not in message, message
    result = message["result"]

    if method == "initialize":
        assert result["serverInfo"]["name"] == "aws-data-mcp"
        assert result["protocolVersion"] == params["protocolVersion"]
        assert "resources" in result["capabilities"] and "tools" in result["capabilities"]
    elif method == "server/discover":
        assert REVISION_2026 in result["supportedVersions"]
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "aws-data-mcp"
    elif method == "resources/list":
        uris = [resource["uri"] for resource in result["resources"]]
        assert "config://server" in uris
        assert uris == sorted(uris)
        assert all(resource["mimeType"] == "application/json" for resource in result["resources"])
    elif method == "resources/templates/list":
        templates = [template["uriTemplate"] for template in result["resourceTemplates"]]
        assert "metadata://templates/{template}" in templates
        assert templates == sorted(templates)
    elif method == "resources/read":
        content = result["contents"][0]
        assert content["uri"] == params["uri"]
        assert content["mimeType"] == "application/json"
        assert isinstance(json.loads(content["text"]), dict)
    elif method == "tools/list":
        tool = next(tool for tool in result["tools"] if tool["name"] == "get_resource")
        assert tool["annotations"]["readOnlyHint"] is True
        assert "uri" in tool["inputSchema"]["properties"]
    elif method == "tools/call" and not (params.get("arguments") or {}).get("uri"):
        assert result["isError"] is False
        discovery = json.loads(result["content"][0]["text"])
        assert discovery == result["structuredContent"]
        assert "config://server" in [entry["uri"] for entry in discovery["resources"]]
        assert "metadata://templates/{template}" in [entry["uriTemplate"] for entry in discovery["templates"]]
    elif method == "tools/call":
        uri = params["arguments"]["uri"]
        assert result["isError"] is False, result
        read_request = {"jsonrpc": "2.0", "id": request["id"] + 1000, "method": "resources/read",
                        "params": {"uri": uri, **({"_meta": params["_meta"]} if "_meta" in params else {})}}
        read = body_json(lambda_handler(with_body(event, read_request)))
        assert read["id"] == request["id"] + 1000
        assert result["content"][0]["text"] == read["result"]["contents"][0]["text"], (
            "get_resource must return exactly what resources/read returns")
    else:
        pytest.fail(f"{relative}: no content check for {method}")


# --- The project's own invoke command (no Docker): same code path as Lambda ------------------------

@pytest.mark.parametrize("relative", ["http-api-v2/resources-read-static.json",
                                      "rest-v1/resources-read-2026-07-28.json"])
def test_invoke_command_prints_the_decoded_response(relative: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AWS_DATA_MCP_MODE"}
    event_path = EVENTS / relative
    done = subprocess.run([sys.executable, "-m", "aws_data_mcp", "invoke", str(event_path)], env=env,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    response = json.loads(done.stdout)  # stdout is the response and nothing else
    assert response["statusCode"] == 200
    request = json.loads(json.loads(event_path.read_text())["body"])
    body = response["body"]
    assert isinstance(body, dict), "the printed body is decoded JSON, not a string"
    assert body["id"] == request["id"]
    content = body["result"]["contents"][0]
    assert content["uri"] == request["params"]["uri"]
    assert isinstance(json.loads(content["text"]), dict)
    assert '"_aws"' not in done.stdout
    assert '"_aws"' in done.stderr, "EMF metric lines go to stderr (the log stream)"
    if content["uri"] == "config://server":
        assert json.loads(content["text"])["deployment_mode"] == "lambda", "invoke runs the handler as on Lambda"


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("AWS_DATA_MCP_PORT", "abc", "AWS_DATA_MCP_PORT must be a whole number, not 'abc'"),
    ("AWS_DATA_MCP_AUTH_MODE", "local", "auth mode 'local' would use the function's own role"),
    ("AWS_DATA_MCP_AUTH_MODE", "sigv5", "AWS_DATA_MCP_AUTH_MODE must be one of local, oidc, iam, not 'sigv5'"),
])
def test_invoke_with_an_unusable_setting_is_one_line_naming_it(variable: str, value: str, message: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AWS_DATA_MCP_MODE"}
    done = subprocess.run([sys.executable, "-m", "aws_data_mcp", "invoke",
                           str(EVENTS / "http-api-v2/resources-read-static.json")], env={**env, variable: value},
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aws-data-mcp: error: ") and message in lines[0], lines[-20:]
