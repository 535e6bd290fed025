"""Bad input (docs/protocol.md), through the Lambda handler AND the local HTTP server.

Every case: never a 500, a JSON error body, no traceback text, and the next request is served normally.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from support.events import REVISION_2025, REVISION_2026, http_api_event, modern, rpc
from support.logs import RecordKeeper

# --- One interface over both edges --------------------------------------------------------------

@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def routing_headers(body: Any, revision: str) -> dict[str, str]:
    """The Mcp-Method / Mcp-Name headers a conforming 2026-07-28 client sends for `body`."""
    if revision != REVISION_2026 or not isinstance(body, dict) or "method" not in body:
        return {}
    headers = {"mcp-method": body["method"]}
    params = body.get("params") or {}
    name = params.get("uri") or params.get("name")
    if isinstance(name, str) and name:
        headers["mcp-name"] = name
    return headers


class Edge:
    name: str

    def send_raw(self, payload: str | bytes, headers: dict[str, str]) -> Reply:
        raise NotImplementedError

    def send(self, body: Any, *, revision: str = REVISION_2025, headers: dict[str, str] | None = None) -> Reply:
        if isinstance(body, str | bytes):
            payload: str | bytes = body
        else:
            payload = json.dumps(body)
        merged = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": revision,
            **routing_headers(body, revision),
            **(headers or {}),
        }
        return self.send_raw(payload, merged)

    def read(self, uri: str, *, revision: str = REVISION_2025, request_id: int = 1) -> dict[str, Any]:
        build = rpc if revision == REVISION_2025 else modern
        reply = self.send(build("resources/read", {"uri": uri}, request_id), revision=revision)
        # 2026-07-28's transport answers -32602 (a bad argument, an unknown resource) with HTTP 400.
        assert reply.status == 200 or (revision == REVISION_2026 and reply.status == 400
                                       and reply.json()["error"]["code"] == -32602), reply
        return reply.json()  # type: ignore[no-any-return]

    def get_resource(self, uri: Any, *, revision: str = REVISION_2025, request_id: int = 1) -> dict[str, Any]:
        build = rpc if revision == REVISION_2025 else modern
        body = build("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}, request_id)
        reply = self.send(body, revision=revision)
        assert reply.status == 200, reply
        return reply.json()  # type: ignore[no-any-return]


class LambdaEdge(Edge):
    name = "lambda"

    def __init__(self, invoke: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.invoke = invoke

    def send_raw(self, payload: str | bytes, headers: dict[str, str]) -> Reply:
        text = payload.decode() if isinstance(payload, bytes) else payload
        event = http_api_event(text, revision=headers["mcp-protocol-version"], headers=headers)
        response = self.invoke(event)
        assert response["isBase64Encoded"] is False, response
        names = {k.lower(): str(v) for k, v in (response.get("headers") or {}).items()}
        return Reply(response["statusCode"], names, response.get("body") or "")


class HttpEdge(Edge):
    name = "http"

    def __init__(self, url: str, client: httpx2.Client) -> None:
        self.url = url
        self.client = client

    def send_raw(self, payload: str | bytes, headers: dict[str, str]) -> Reply:
        content = payload.encode() if isinstance(payload, str) else payload
        response = self.client.post(self.url, content=content, headers=headers)  # the client's timeout: a hang fails
        return Reply(response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.text)


@pytest.fixture(scope="module")
def http_client() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=10) as client:
        yield client


@pytest.fixture(params=["lambda", "http"])
def edge(request: pytest.FixtureRequest, http_client: httpx2.Client) -> Edge:
    """The Lambda handler (HTTP API v2 events), then the local HTTP server (uvicorn, real sockets)."""
    if request.param == "lambda":
        return LambdaEdge(request.getfixturevalue("lambda_handler"))
    return HttpEdge(request.getfixturevalue("http_server").url, http_client)


def assert_no_traceback(text: str) -> None:
    for marker in ("Traceback", 'File "'):
        assert marker not in text, f"traceback text {marker!r} in a response: {text[:400]}"


def assert_next_request_served(edge: Edge) -> None:
    """After any bad input, a normal request on the same server is answered normally."""
    for revision in (REVISION_2025, REVISION_2026):
        message = edge.read("config://server", revision=revision, request_id=4242)
        assert message["id"] == 4242
        content = message["result"]["contents"][0]
        assert content["uri"] == "config://server"
        assert json.loads(content["text"])["name"] == "aws-data-mcp"


# --- Malformed requests: refused cleanly, and the server keeps serving ---------------------------

MODERN_READ = modern("resources/read", {"uri": "config://server"}, 7)


@dataclass(frozen=True)
class Case:
    body: Any
    revision: str = REVISION_2025
    headers: tuple[tuple[str, str], ...] = ()
    status: int | tuple[int, ...] | None = None
    code: int | tuple[int, ...] | None = None
    json_xfail: str | None = None


CASES: dict[str, Case] = {
    "invalid-json": Case("{not json", status=400, code=-32700),
    "invalid-json-2026": Case("{not json", REVISION_2026, status=400, code=-32700),
    "empty-body": Case("", status=400, code=(-32700, -32600)),
    "empty-body-2026": Case("", REVISION_2026, status=400, code=(-32700, -32600)),
    "whitespace-body": Case("   \n", status=400, code=(-32700, -32600)),
    "json-null": Case("null", status=400, code=-32600),
    "json-string": Case('"resources/read"', status=400, code=-32600),
    "json-number": Case("42", status=400, code=-32600),
    "empty-array": Case("[]", status=400, code=-32600),
    "batch-array": Case([rpc("resources/list", {}, 1), rpc("tools/list", {}, 2)], status=400, code=-32600),
    "no-jsonrpc": Case({"id": 1, "method": "tools/list"}, status=400, code=-32600),
    "no-jsonrpc-2026": Case({"id": 1, "method": "tools/list"}, REVISION_2026, headers=(("mcp-method", "tools/list"),),
                            status=400, code=-32600),
    "batch-array-2026": Case([modern("tools/list", {}, 1)], REVISION_2026, headers=(("mcp-method", "tools/list"),),
                             status=400, code=-32600),
    "jsonrpc-1.0": Case({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}, status=400, code=-32600),
    # An id that is neither a string nor an integer: -32600 on every revision (the SDK's 2025-11-25 transport
    # took it for a notification and answered 202 with nothing).
    **{f"{name}-id{suffix}": Case('{"jsonrpc":"2.0","id":' + literal + ',"method":"tools/list"' + params + "}",
                                  revision, headers=(("mcp-method", "tools/list"),), status=400, code=-32600)
       for name, literal in (("fraction", "1.5"), ("overflowing", "1e999"), ("null", "null"), ("true", "true"),
                             ("object", '{"a":1}'), ("array", "[]"))
       for suffix, revision, params in (("", REVISION_2025, ""),
                                        ("-2026", REVISION_2026, ',"params":' + json.dumps(modern("x")["params"])))},
    "deeply-nested": Case("[" * 100_000 + "]" * 100_000, status=400, code=-32700),
    "huge-integer-id": Case('{"jsonrpc":"2.0","id":' + "9" * 5000 + ',"method":"tools/list"}', status=400),
    "unknown-method": Case(rpc("tools/destroy_everything", {}, 3), code=-32601),
    "unknown-method-2026": Case(modern("tools/destroy_everything", {}, 3), REVISION_2026, code=-32601),
    "read-without-params": Case(rpc("resources/read", None, 3), code=-32602),
    "read-uri-not-a-string": Case(rpc("resources/read", {"uri": ["auth://status"]}, 3), code=-32602),
    "body-2mb": Case('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"' + "x" * 2_000_000 + '"}}',
                     status=413),
    "body-2mb-2026": Case("x" * 2_000_000, REVISION_2026, status=413),
    "content-type-text-plain": Case(json.dumps(rpc("tools/list")), headers=(("content-type", "text/plain"),),
                                    status=(400, 415)),
    "content-type-form": Case(json.dumps(rpc("tools/list")),
                              headers=(("content-type", "application/x-www-form-urlencoded"),),
                              status=(400, 415)),
    "mcp-method-disagrees": Case(MODERN_READ, REVISION_2026, headers=(("mcp-method", "tools/list"),), status=400,
                                 code=-32020),
    "mcp-name-disagrees": Case(MODERN_READ, REVISION_2026, headers=(("mcp-name", "auth://status"),), status=400,
                               code=-32020),
    "mcp-method-missing": Case(json.dumps(MODERN_READ), REVISION_2026, headers=(("mcp-name", "config://server"),),
                               status=400, code=-32020),
    "2026-without-meta": Case(rpc("resources/read", {"uri": "config://server"}, 3), REVISION_2026, status=400,
                              code=-32602),
}


def _status_ok(case: Case, status: int) -> bool:
    if case.status is None:
        return status < 500
    expected = case.status if isinstance(case.status, tuple) else (case.status,)
    return status in expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_request_is_refused_cleanly_and_the_next_is_served(edge: Edge, name: str) -> None:
    case = CASES[name]
    reply = edge.send(case.body, revision=case.revision, headers=dict(case.headers))
    assert reply.status < 500, reply
    assert _status_ok(case, reply.status), f"{name}: status {reply.status}, expected {case.status}: {reply.text[:300]}"
    assert_no_traceback(reply.text)
    assert_next_request_served(edge)


def _json_cases() -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.xfail(reason=CASES[name].json_xfail, strict=True))
            if CASES[name].json_xfail else name for name in sorted(CASES)]


@pytest.mark.parametrize("name", _json_cases())
def test_bad_request_gets_a_structured_json_rpc_error(edge: Edge, name: str) -> None:
    case = CASES[name]
    reply = edge.send(case.body, revision=case.revision, headers=dict(case.headers))
    assert reply.headers.get("content-type", "").startswith("application/json"), (
        f"{name}: content-type {reply.headers.get('content-type')!r}, body {reply.text[:200]!r}")
    message = reply.json()
    assert message["jsonrpc"] == "2.0"
    error = message["error"]
    assert isinstance(error["code"], int) and error["code"] < 0
    assert isinstance(error["message"], str) and error["message"]
    if case.code is not None:
        expected = case.code if isinstance(case.code, tuple) else (case.code,)
        assert error["code"] in expected, f"{name}: {error}"
    if isinstance(case.body, dict) and case.body.get("jsonrpc") == "2.0" and isinstance(case.body.get("id"), int):
        assert message["id"] == case.body["id"]
    if error["code"] == -32600:
        # An envelope refusal says what is wrong in a sentence: no validation dump echoing the input or naming
        # internal models and library versions.
        assert len(error["message"]) < 200, error
        for leak in ("pydantic", "JSONRPCRequest", "input_value", "validation error"):
            assert leak not in error["message"].lower() and leak not in json.dumps(error).lower(), error


# --- Malformed and unknown URIs: the same code from resources/read and get_resource ----------------

NEAREST = {
    "auth://statu": "auth://status",
    "auth://stauts": "auth://status",
    "config://serve": "config://server",
    "config://securty": "config://security",
    "metadata://template": "metadata://templates",
    "info://capability": "info://capabilities",
}
MALFORMED = ["auth:/status", "://", "auth://", "http://example.com/", "s3://bucket/key", "🙂://x", "auth//status",
             "a" * 3000, "Auth://Status", "metadata://templates/dataset#fragment", "status"]


def _read_error(edge: Edge, uri: str, revision: str) -> dict[str, Any]:
    message = edge.read(uri, revision=revision, request_id=31)
    assert message["id"] == 31
    assert "result" not in message, f"{uri!r} was served: {str(message)[:300]}"
    return message["error"]  # type: ignore[no-any-return]


def _tool_error(edge: Edge, uri: Any, revision: str) -> dict[str, Any]:
    result = edge.get_resource(uri, revision=revision, request_id=32)["result"]
    assert result["isError"] is True, f"{uri!r} was served by get_resource: {str(result)[:300]}"
    structured = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == structured
    return structured  # type: ignore[no-any-return]


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
@pytest.mark.parametrize("uri", sorted(NEAREST))
def test_unknown_uri_names_the_nearest_valid_uri_first(edge: Edge, uri: str, revision: str) -> None:
    read = _read_error(edge, uri, revision)
    tool = _tool_error(edge, uri, revision)
    assert read["data"]["error"] == tool["error"] == "not_found"
    # SEP-2164: 2026-07-28 answers an unknown resource -32602 (the `data` tells it from a bad argument); the
    # older revisions keep -32002.
    assert read["code"] == (-32602 if revision == REVISION_2026 else -32002)
    for payload in (read["data"], tool):
        assert payload["valid_uris"][0] == NEAREST[uri], payload["valid_uris"]
        assert payload["message"] and payload["details"] and payload["retryable"] is False
    assert read["data"]["valid_uris"] == tool["valid_uris"]


@pytest.mark.parametrize("uri", MALFORMED, ids=lambda u: repr(u[:24]))
def test_malformed_uri_gets_the_same_code_on_both_paths(edge: Edge, uri: str) -> None:
    read = _read_error(edge, uri, REVISION_2025)
    tool = _tool_error(edge, uri, REVISION_2025)
    assert read["data"]["error"] == tool["error"]
    assert tool["error"] in ("invalid_uri", "not_found"), tool
    assert read["code"] == (-32602 if tool["error"] == "invalid_uri" else -32002)
    assert tool["valid_uris"] and read["data"]["valid_uris"] == tool["valid_uris"]
    assert set(tool["valid_uris"]) >= {"auth://status", "config://server", "metadata://templates/{template}"}
    assert len(json.dumps(tool)) < 20_000, "an error echoes the input bounded"


TRAVERSAL = [
    "metadata://templates/..%2F..%2Fetc%2Fpasswd",
    "metadata://templates/%2E%2E",
    "metadata://templates/../x",
    "metadata://templates/..",
    "metadata://templates/../../../../etc/passwd",
    "metadata://templates/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "metadata://templates/%252E%252E%252Fetc%252Fpasswd",
    "metadata://templates/%2Fetc%2Fpasswd",
    "metadata://templates/dataset%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "metadata://templates/%00",
    "metadata://templates/dataset%00.json",
    "metadata://templates/..\\..\\windows",
]


@pytest.mark.parametrize("uri", TRAVERSAL)
def test_traversal_in_template_arguments_is_refused(edge: Edge, uri: str) -> None:
    build_codes = ("invalid_argument", "not_found", "invalid_uri")
    for revision in (REVISION_2025, REVISION_2026):
        reply = edge.send((rpc if revision == REVISION_2025 else modern)("resources/read", {"uri": uri}, 8),
                          revision=revision)
        assert reply.status < 500
        assert_no_traceback(reply.text)
        assert "root:" not in reply.text and "/bin/" not in reply.text, "file contents leaked"
        read = reply.json()["error"]
        tool = _tool_error(edge, uri, revision)
        assert read["data"]["error"] == tool["error"] and tool["error"] in build_codes, (read, tool)
    assert_next_request_served(edge)


# --- Forgiving where unambiguous, never guessing ---------------------------------------------------

@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
@pytest.mark.parametrize("spelling", ["  auth://status  ", "AUTH://status", "auth/status", "\tauth://status\n",
                                      "Auth/status"])
def test_get_resource_forgives_unambiguous_spellings(edge: Edge, aws: None, spelling: str, revision: str) -> None:
    expected = edge.read("auth://status", revision=revision)["result"]["contents"][0]["text"]
    result = edge.get_resource(spelling, revision=revision)["result"]
    assert result["isError"] is False, result
    assert result["content"][0]["text"] == expected, "get_resource must return resources/read's bytes"
    if revision == REVISION_2025 or spelling == spelling.strip():
        # (On 2026-07-28 the URI also travels in the Mcp-Name header, which cannot carry surrounding whitespace.)
        read = edge.read(spelling, revision=revision)["result"]["contents"][0]
        assert read["text"] == expected


@pytest.mark.parametrize("guess", ["status", "Status", "auth", "server", "templates/dataset"])
def test_get_resource_never_guesses(edge: Edge, guess: str) -> None:
    tool = _tool_error(edge, guess, REVISION_2025)
    assert tool["error"] in ("invalid_uri", "not_found")
    read = _read_error(edge, guess, REVISION_2025)
    assert read["data"]["error"] == tool["error"]
    if guess == "status":
        assert tool["error"] == "invalid_uri"
        assert tool["valid_uris"][0] == "auth://status"


@pytest.mark.parametrize("value", [123, ["auth://status"], {"uri": "auth://status"}])
def test_get_resource_with_a_non_string_uri_is_a_structured_error(edge: Edge, value: Any) -> None:
    result = edge.get_resource(value)["result"]
    assert result["isError"] is True
    assert_no_traceback(json.dumps(result))
    assert result.get("structuredContent", {}).get("error") in ("invalid_uri", "invalid_argument"), result


@pytest.mark.parametrize("value", [123, ["auth://status"], {"uri": "auth://status"}])
def test_get_resource_with_a_non_string_uri_is_refused_cleanly(edge: Edge, value: Any) -> None:
    result = edge.get_resource(value)["result"]
    assert result["isError"] is True
    assert_no_traceback(json.dumps(result))
    assert_next_request_served(edge)


def cursor_of(json_text: str) -> str:
    return base64.urlsafe_b64encode(json_text.encode()).decode().rstrip("=")


# --- Cursors -------------------------------------------------------------------------------------

BAD_CURSORS = {
    "infinity": cursor_of('{"offset": Infinity}'),
    "minus-infinity": cursor_of('{"offset": -Infinity}'),
    "1e999": cursor_of('{"offset": 1e999}'),
    "nan": cursor_of('{"offset": NaN}'),
    "fraction": cursor_of('{"offset": 1.5}'),
    "boolean": cursor_of('{"offset": true}'),
    "huge-integer": cursor_of('{"offset": ' + "9" * 1000 + "}"),
    "string": cursor_of('{"offset": "1"}'),
    "list": cursor_of("[1]"),
    "not-base64": "%%%",
    "not-json": cursor_of("offset=1"),
}


def assert_no_error_logged(log_records: RecordKeeper) -> None:
    errors = [f"{r.name}: {r.getMessage()}" for r in log_records.at_least(logging.ERROR)]
    assert errors == [], "a client's bad input is not a server error"


@pytest.mark.parametrize("name", sorted(BAD_CURSORS))
def test_every_bad_cursor_is_invalid_argument(edge: Edge, name: str, log_records: RecordKeeper,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cursor = BAD_CURSORS[name]
    for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
        for method in ("resources/list", "resources/templates/list", "tools/list", "prompts/list"):
            reply = edge.send(build(method, {"cursor": cursor}, 5), revision=revision)
            assert reply.status < 500
            error = reply.json()["error"]
            assert error["code"] == -32602 and error["data"]["error"] == "invalid_argument", (revision, method, error)
            assert "Invalid cursor" in error["message"] and error["data"]["details"]
        uri = f"metadata://templates?cursor={cursor}"
        reply = edge.send(build("resources/read", {"uri": uri}, 6), revision=revision)
        error = reply.json()["error"]
        assert error["code"] == -32602 and error["data"]["error"] == "invalid_argument", reply.text
        tool = edge.get_resource(uri, revision=revision)["result"]
        assert tool["isError"] and tool["structuredContent"]["error"] == "invalid_argument"
        assert_no_traceback(reply.text)
    assert_no_error_logged(log_records)
    assert "Errors_internal" not in capsys.readouterr().out
    assert_next_request_served(edge)


@pytest.mark.parametrize("uri", ["auth://status?cursor=x", "config://server?limit=5", "metadata://templates?a=1&b=2"])
def test_a_query_parameter_a_resource_does_not_take_is_invalid_argument(edge: Edge, uri: str) -> None:
    for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
        error = edge.send(build("resources/read", {"uri": uri}, 4), revision=revision).json()["error"]
        assert error["data"]["error"] == "invalid_argument", error
        assert "takes no query parameter" in error["message"] and error["data"]["details"]
        tool = edge.get_resource(uri, revision=revision)["result"]
        assert tool["structuredContent"]["error"] == "invalid_argument"
    assert_next_request_served(edge)


# --- get_resource arguments ---------------------------------------------------------------------

@pytest.mark.parametrize("arguments", [{"uri": 5}, {"uri": ["auth://status"]}, {"uri": {"uri": "auth://status"}},
                                       {"uri": True}, {"foo": 1}, {"uri": "auth://status", "limit": 5},
                                       {"x" * 10_000: 1}], ids=lambda a: repr(a)[:40])
def test_get_resource_refuses_what_it_does_not_take_naming_what_it_does(edge: Edge, arguments: Any) -> None:
    for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
        reply = edge.send(build("tools/call", {"name": "get_resource", "arguments": arguments}, 9), revision=revision)
        result = reply.json()["result"]
        assert result["isError"] is True, f"{arguments!r} was served: {reply.text[:300]}"
        error = result["structuredContent"]
        assert error["error"] == "invalid_argument", error
        assert "uri" in error["message"] and any("uri" in detail for detail in error["details"])
        assert len(reply.text) < 2_000, "the refusal echoes the input bounded"
    assert_next_request_served(edge)


# --- What an error echoes, and how big a header may be ------------------------------------------

@pytest.mark.parametrize("uri", ["nope://" + "a" * 1_000_000, "auth://status?" + "a" * 1_000_000,
                                 "metadata://templates/" + "a" * 2_000], ids=["scheme", "query", "template-arg"])
def test_an_error_echoes_a_bounded_part_of_a_huge_uri(edge: Edge, uri: str) -> None:
    read = edge.send(rpc("resources/read", {"uri": uri}, 3))
    tool = edge.send(rpc("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}, 4))
    for reply in (read, tool):
        assert reply.status < 500
        assert len(reply.text) < 5_000, f"{len(reply.text)} characters answered a {len(uri)}-character URI"
    data = read.json()["error"]["data"]
    assert data["uri"].startswith(uri[:100]) and "characters" in data["uri"], "what is left out is said"
    assert data == tool.json()["result"]["structuredContent"]
    assert_next_request_served(edge)


@pytest.mark.parametrize("name", ["mcp-name", "mcp-method", "x-anything"])
def test_a_huge_header_is_refused_with_431(edge: Edge, name: str) -> None:
    body = modern("resources/read", {"uri": "config://server"}, 7)
    reply = edge.send(body, revision=REVISION_2026, headers={name: "a" * 100_000})
    assert reply.status == 431, reply.text[:300]
    assert reply.json()["error"]["code"] == -32600
    assert len(reply.text) < 1_000
    assert_next_request_served(edge)


@pytest.mark.parametrize(("revision", "length"), [(REVISION_2025, 1_000_000), (REVISION_2026, 7_000)])
def test_an_unknown_method_or_tool_is_echoed_bounded(edge: Edge, revision: str, length: int) -> None:
    """(On 2026-07-28 the method and the tool name also travel in headers, which are refused past 8 KB.)"""
    name = "x" * length
    build = rpc if revision == REVISION_2025 else modern
    method = edge.send(build(f"tools/{name}", {}, 3), revision=revision)
    tool = edge.send(build("tools/call", {"name": name, "arguments": {}}, 4), revision=revision)
    for reply in (method, tool):
        assert reply.status < 500 and len(reply.text) < 2_000, (reply.status, len(reply.text))
        assert_no_traceback(reply.text)
    error = method.json()["error"]
    assert error["code"] == -32601 and "more characters" in json.dumps(error), "what is left out is said"
    result = tool.json()["result"]
    assert result["isError"] is True
    refusal = result["structuredContent"]
    assert refusal["error"] == "invalid_argument" and "more characters" in refusal["message"]
    assert "get_resource" in " ".join(refusal["details"]), "the tools there are are named"
    assert_next_request_served(edge)
