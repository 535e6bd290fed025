"""Requests as clients send them: JSON-RPC bodies of both protocol revisions, and API Gateway events shaped like
the files in events/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
REVISION_2025 = "2025-11-25"
REVISION_2026 = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": REVISION_2026,
    "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def load_event(relative: str) -> dict[str, Any]:
    return json.loads((EVENTS / relative).read_text())


def rpc(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def modern(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    """A 2026-07-28 request body: protocol version and client info travel in `_meta`."""
    return rpc(method, {**(params or {}), "_meta": MODERN_META}, request_id)


def http_api_event(
    body: dict[str, Any] | str | None,
    *,
    revision: str = REVISION_2025,
    method: str = "POST",
    stage: str = "$default",
    path: str = "/mcp",
    headers: dict[str, str] | None = None,
    request_id: str = "req-0001",
) -> dict[str, Any]:
    """An HTTP API (payload 2.0) event, shaped like the files in events/http-api-v2/."""
    event = load_event("http-api-v2/resources-read-static.json")
    raw_path = path if stage == "$default" else f"/{stage}{path}"
    base_headers = dict(event["headers"], **{"mcp-protocol-version": revision})
    if revision == REVISION_2026 and isinstance(body, dict):
        base_headers["mcp-method"] = body.get("method", "")
        name = (body.get("params") or {}).get("uri") or (body.get("params") or {}).get("name")
        if name:
            base_headers["mcp-name"] = name
    event["headers"] = {**base_headers, **(headers or {})}
    event["rawPath"] = raw_path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = raw_path
    event["requestContext"]["stage"] = stage
    event["requestContext"]["requestId"] = request_id
    event["body"] = body if isinstance(body, str) or body is None else json.dumps(body)
    return event


def body_json(response: dict[str, Any]) -> Any:
    assert not response.get("isBase64Encoded"), "JSON responses must not come back base64-encoded"
    return json.loads(response["body"])


def answer_of(content_type: str, text: str) -> Any:
    """The JSON-RPC answer of an HTTP response: its JSON body, or the last message of its SSE stream (a local
    2025-11-25 session answers as a stream, so a call's progress can come before its result)."""
    if not content_type.startswith("text/event-stream"):
        return json.loads(text)
    data = [line.removeprefix("data:").strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])
