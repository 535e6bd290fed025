"""The Lambda pitfalls, each proven through the real handler (`aws_data_mcp.handler.lambda_handler`).

One warm container serves every test here (the session `lambda_handler` fixture), as Lambda reuses one.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import json
import logging
import re
import signal
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import boto3
import httpx2
import pytest
from botocore.client import BaseClient
from mangum import Mangum

from aws_data_mcp import observability
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.identity.resolve import resolve_caller
from aws_data_mcp.reading import reader
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.registry import Registry, ResourceRequest, ResourceSpec
from aws_data_mcp.resources import registry
from aws_data_mcp.server.mcp_server import DataMCPServer
from aws_data_mcp.transport.http import McpHttpApp
from aws_data_mcp.transport.lambda_context import LocalLambdaContext
from support.events import REVISION_2025, REVISION_2026, body_json, http_api_event, load_event, modern, rpc

Invoke = Callable[[dict[str, Any]], dict[str, Any]]

SECRET_BEARER = "SECRET-TOKEN-123"
SECRET_SESSION = "SESSIONTOKEN-XYZ"
SECRET_HEADERS = {"authorization": f"Bearer {SECRET_BEARER}", "x-amz-security-token": SECRET_SESSION}
API_GATEWAY_HOST = "abc123.execute-api.us-east-1.amazonaws.com"


# --- helpers ------------------------------------------------------------------------------------

def rest_event(
    body: dict[str, Any] | str | None,
    *,
    revision: str = REVISION_2025,
    method: str = "POST",
    stage: str = "prod",
    path: str = "/mcp",
    headers: dict[str, str] | None = None,
    request_id: str = "rest-req-0001",
) -> dict[str, Any]:
    """A REST API (payload 1.0) event, shaped like the files in events/rest-v1/ (path without the stage)."""
    event = load_event("rest-v1/resources-read-static.json")
    merged = {k: v for k, v in event["headers"].items() if k not in ("mcp-method", "mcp-name")}
    merged["mcp-protocol-version"] = revision
    if revision == REVISION_2026 and isinstance(body, dict):
        merged["mcp-method"] = body["method"]
        params = body.get("params") or {}
        if params.get("uri") or params.get("name"):
            merged["mcp-name"] = params.get("uri") or params["name"]
    merged |= headers or {}
    event["headers"] = merged
    event["multiValueHeaders"] = {name: [value] for name, value in merged.items()}
    event["httpMethod"] = method
    event["path"] = path
    event["requestContext"].update(httpMethod=method, path=f"/{stage}{path}", stage=stage, requestId=request_id)
    event["body"] = body if isinstance(body, str) or body is None else json.dumps(body)
    event["isBase64Encoded"] = False
    return event


def build_event(kind: str, body: dict[str, Any] | str | None, **kwargs: Any) -> dict[str, Any]:
    return rest_event(body, **kwargs) if kind == "rest-v1" else http_api_event(body, **kwargs)


def header(response: dict[str, Any], name: str) -> str | None:
    """A header of a Lambda proxy response, from `headers` or `multiValueHeaders`, any case."""
    for key, value in (response.get("headers") or {}).items():
        if key.lower() == name:
            return str(value)
    for key, values in (response.get("multiValueHeaders") or {}).items():
        if key.lower() == name and values:
            return str(values[0])
    return None


@contextlib.contextmanager
def hang_guard(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the suite) if the block runs longer than `seconds`."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"the handler did not answer within {seconds} s (it hangs)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def answered(lambda_handler: Invoke, event: dict[str, Any], limit: float = 120.0) -> dict[str, Any]:
    """The handler's response; a handler that never answers (a stream held open) fails the test at `limit`, a
    guard against a hang, not a budget: the time an answer takes is make bench's."""
    with hang_guard(limit):
        return lambda_handler(event)


def read_text(lambda_handler: Invoke, uri: str) -> str:
    response = lambda_handler(http_api_event(rpc("resources/read", {"uri": uri})))
    assert response["statusCode"] == 200
    return str(body_json(response)["result"]["contents"][0]["text"])


@dataclasses.dataclass
class AwsCallCounter:
    api_calls: list[str] = dataclasses.field(default_factory=list)
    sessions: int = 0


@pytest.fixture
def aws_calls(monkeypatch: pytest.MonkeyPatch, aws: None) -> AwsCallCounter:
    """Counts every botocore API call and every boto3 Session created (moto catches anything that slips out)."""
    counter = AwsCallCounter()
    make_api_call = BaseClient._make_api_call
    session_init = boto3.session.Session.__init__

    def counting_call(client: BaseClient, operation_name: str, api_params: dict[str, Any]) -> Any:
        counter.api_calls.append(f"{client.meta.service_model.service_name}:{operation_name}")
        return make_api_call(client, operation_name, api_params)

    def counting_init(session: boto3.session.Session, *args: Any, **kwargs: Any) -> None:
        counter.sessions += 1
        session_init(session, *args, **kwargs)

    monkeypatch.setattr(BaseClient, "_make_api_call", counting_call)
    monkeypatch.setattr(boto3.session.Session, "__init__", counting_init)
    return counter


# --- Warm container: many invocations, both revisions, every kind of request ---------------------

WARM_KINDS = ("read-static", "read-template", "list", "get_resource", "handshake")


def warm_request(i: int) -> tuple[str, str, dict[str, Any]]:
    """Invocation `i`: alternating revisions and event shapes, cycling through the request kinds."""
    revision = REVISION_2025 if i % 2 == 0 else REVISION_2026
    kind = WARM_KINDS[i % len(WARM_KINDS)]
    request_id = 1000 + i
    build = rpc if revision == REVISION_2025 else modern
    if kind == "read-static":
        body = build("resources/read", {"uri": "config://server"}, request_id)
    elif kind == "read-template":
        body = build("resources/read", {"uri": "metadata://templates/dataset"}, request_id)
    elif kind == "list":
        body = build("resources/list", {}, request_id)
    elif kind == "get_resource":
        body = build("tools/call", {"name": "get_resource", "arguments": {"uri": "config://server"}}, request_id)
    elif revision == REVISION_2025:
        body = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": {},
                                  "clientInfo": {"name": "pytest", "version": "1.0"}}, request_id)
    else:
        body = modern("server/discover", {}, request_id)
    return revision, kind, body


def test_one_warm_container_serves_many_invocations_of_both_revisions(lambda_handler: Invoke) -> None:
    config_text = read_text(lambda_handler, "config://server")
    served: list[tuple[str, str]] = []
    for i in range(60):
        revision, kind, body = warm_request(i)
        shape = "rest-v1" if i % 3 == 2 else "http-api-v2"
        event = build_event(shape, body, revision=revision, request_id=f"warm-{i}")
        response = answered(lambda_handler, event)
        where = f"invocation {i} ({shape}, {revision}, {kind})"
        assert response["statusCode"] == 200, f"{where}: {response}"
        assert (header(response, "content-type") or "").startswith("application/json"), where
        assert header(response, "mcp-session-id") is None, f"{where}: stateless, no session id"
        message = body_json(response)
        assert message["id"] == 1000 + i, where
        assert "error" not in message, f"{where}: {message}"
        result = message["result"]
        if kind == "read-static":
            assert result["contents"][0]["uri"] == "config://server"
            assert result["contents"][0]["text"] == config_text, f"{where}: same bytes every time"
            assert json.loads(config_text)["deployment_mode"] == "lambda"
        elif kind == "read-template":
            content = result["contents"][0]
            assert content["uri"] == "metadata://templates/dataset"
            assert content["mimeType"] == "application/json"
            template = json.loads(content["text"])
            assert template["name"] == "dataset" and template["schema"]["title"] == "Dataset"
        elif kind == "list":
            uris = [r["uri"] for r in result["resources"]]
            assert "config://server" in uris and uris == sorted(uris), where
        elif kind == "get_resource":
            assert result["isError"] is False, where
            assert result["content"][0]["text"] == config_text, f"{where}: get_resource == resources/read"
        elif revision == REVISION_2025:
            assert result["protocolVersion"] == REVISION_2025
            assert result["serverInfo"]["name"] == "aws-data-mcp"
        else:
            assert REVISION_2026 in result["supportedVersions"]
            assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "aws-data-mcp"
        served.append((revision, kind))
    assert len(served) == 60
    assert set(served) == {(revision, kind) for revision in (REVISION_2025, REVISION_2026) for kind in WARM_KINDS}


# --- Both API Gateway payload formats; responses never base64, always typed ----------------------

@pytest.mark.parametrize("shape", ["http-api-v2", "rest-v1"])
@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_http_api_v2_and_rest_v1_events_are_served_as_json(lambda_handler: Invoke, shape: str, revision: str) -> None:
    build = rpc if revision == REVISION_2025 else modern
    response = lambda_handler(build_event(shape, build("resources/read", {"uri": "config://security"}, 77),
                                          revision=revision))
    assert response["statusCode"] == 200
    assert response["isBase64Encoded"] is False
    assert (header(response, "content-type") or "").startswith("application/json")
    message = json.loads(response["body"])
    assert message["id"] == 77
    content = message["result"]["contents"][0]
    assert content["uri"] == "config://security"
    assert json.loads(content["text"])["fail_closed"] is True


BODYLESS_AND_SDK_RESPONSES = {
    # name: (body, revision, extra headers, method, expected status)
    "notification-2025": ({"jsonrpc": "2.0", "method": "notifications/initialized"}, REVISION_2025, {}, "POST", 202),
    "notification-2026": ({"jsonrpc": "2.0", "method": "notifications/initialized",
                           "params": {"_meta": modern("x")["params"]["_meta"]}}, REVISION_2026, {}, "POST", 202),
    "listen-without-sse-accept": (modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}}),
                                  REVISION_2026, {"accept": "application/json"}, "POST", 406),
    "wrong-content-type": (json.dumps(rpc("tools/list")), REVISION_2025, {"content-type": "text/plain"}, "POST", 400),
    "body-too-large": ("x" * 2_000_000, REVISION_2025, {}, "POST", 413),
    "unknown-path": (rpc("tools/list"), REVISION_2025, {}, "POST", 404),
}


@pytest.mark.parametrize("shape", ["http-api-v2", "rest-v1"])
@pytest.mark.parametrize("case", sorted(BODYLESS_AND_SDK_RESPONSES))
def test_every_response_has_a_content_type_and_is_not_base64(lambda_handler: Invoke, shape: str, case: str) -> None:
    """Through REST v1 a response without content-type comes back base64: bodyless and SDK-made ones included."""
    body, revision, headers, method, status = BODYLESS_AND_SDK_RESPONSES[case]
    path = "/elsewhere" if case == "unknown-path" else "/mcp"
    response = lambda_handler(build_event(shape, body, revision=revision, headers=headers, method=method, path=path))
    assert response["statusCode"] == status, response
    assert response["isBase64Encoded"] is False, response
    assert header(response, "content-type"), f"no content-type: {response}"
    if status == 202:
        assert response["body"] == ""


# --- Named stage and trailing slash: served, never redirected ------------------------------------

@pytest.mark.parametrize(
    ("shape", "stage", "path"),
    [
        ("http-api-v2", "prod", "/mcp"),
        ("http-api-v2", "prod", "/mcp/"),
        ("http-api-v2", "$default", "/mcp/"),
        ("http-api-v2", "v1-beta", "/mcp"),
        ("rest-v1", "prod", "/mcp"),
        ("rest-v1", "prod", "/mcp/"),
        # A stage named like the route: only an HTTP API rawPath carries the stage, so only it is stripped.
        ("http-api-v2", "mcp", "/mcp"),
        ("rest-v1", "mcp", "/mcp"),
    ],
)
def test_named_stage_and_trailing_slash_are_served_not_redirected(
    lambda_handler: Invoke, shape: str, stage: str, path: str
) -> None:
    event = build_event(shape, rpc("resources/read", {"uri": "config://server"}, 5), stage=stage, path=path)
    if shape == "http-api-v2" and stage != "$default":
        assert event["rawPath"] == f"/{stage}{path}"  # HTTP API puts the stage in front of the path
    response = lambda_handler(event)
    assert response["statusCode"] not in (301, 302, 307, 308), f"redirected: {response}"
    assert header(response, "location") is None
    assert response["statusCode"] == 200, response
    message = body_json(response)
    assert message["id"] == 5
    assert message["result"]["contents"][0]["uri"] == "config://server"


# --- What would hang under Mangum's buffering answers at once ------------------------------------

@pytest.mark.parametrize(
    ("shape", "stage", "path"),
    [("http-api-v2", "$default", "/mcp"), ("http-api-v2", "prod", "/mcp"), ("http-api-v2", "$default", "/mcp/"),
     ("rest-v1", "prod", "/mcp")],
)
def test_get_stream_answers_405_at_once(lambda_handler: Invoke, shape: str, stage: str, path: str) -> None:
    event = build_event(shape, None, method="GET", stage=stage, path=path,
                        headers={"accept": "text/event-stream", "content-type": ""})
    response = answered(lambda_handler, event)
    assert response["statusCode"] == 405
    assert "POST" in (header(response, "allow") or "")
    assert response["isBase64Encoded"] is False
    message = json.loads(response["body"])
    assert message["error"]["code"] < 0 and message["error"]["message"]


@pytest.mark.parametrize("shape", ["http-api-v2", "rest-v1"])
def test_subscriptions_listen_answers_method_not_found_at_once(lambda_handler: Invoke, shape: str) -> None:
    body = modern("subscriptions/listen", {"notifications": {"toolsListChanged": True, "resourcesListChanged": True}},
                  42)
    response = answered(lambda_handler, build_event(shape, body, revision=REVISION_2026))
    assert response["statusCode"] < 500
    message = body_json(response)
    assert message["id"] == 42
    assert message["error"]["code"] == -32601  # method not found: streaming is not served on Lambda


def test_resources_subscribe_is_not_offered_on_lambda(lambda_handler: Invoke) -> None:
    response = answered(lambda_handler, http_api_event(rpc("resources/subscribe", {"uri": "config://server"})))
    assert body_json(response)["error"]["code"] == -32601
    initialize = lambda_handler(load_event("http-api-v2/initialize.json"))
    assert body_json(initialize)["result"]["capabilities"]["resources"].get("subscribe") in (None, False)


# --- DNS-rebinding protection where it protects something ----------------------------------------

@pytest.mark.parametrize("host", [API_GATEWAY_HOST, "mcp.data.example.com"])
def test_api_gateway_host_header_is_not_rejected(lambda_handler: Invoke, host: str) -> None:
    event = http_api_event(rpc("resources/read", {"uri": "config://server"}, 3), headers={"host": host})
    event["requestContext"]["domainName"] = host
    response = lambda_handler(event)
    assert response["statusCode"] == 200, response  # not 421 (Host); an unlisted Origin is 403: test_origins.py
    assert body_json(response)["id"] == 3


def test_local_http_still_rejects_foreign_host(http_server: Any) -> None:
    body = rpc("resources/read", {"uri": "config://server"})
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=10) as client:
        foreign = client.post(http_server.url, json=body, headers={**headers, "host": "attacker.example.com"})
        local = client.post(http_server.url, json=body, headers=headers)
    assert foreign.status_code == 421
    assert local.status_code == 200


# --- Fail closed: hosted, every AWS-reading request is refused without a single AWS call -----------

def aws_reading_uris() -> list[str]:
    """Every resource that calls AWS or needs a caller, templates filled with their own example (a value their
    argument checks take, so the refusal is the caller's), else a harmless value."""
    uris = []
    for spec in registry:
        if spec.aws_calls or spec.requires != "none":
            uri = spec.example or spec.uri
            for name in spec.template.variable_names if spec.template else ():
                uri = uri.replace("{" + name + "}", "example")
            uris.append(re.sub(r"\{\?([^,}]+)[^}]*\}", r"?\1=example", uri))  # a query expression: its first value
    return uris


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_hosted_requests_make_no_aws_call(lambda_handler: Invoke, aws_calls: AwsCallCounter, revision: str) -> None:
    uris = aws_reading_uris()
    assert "auth://status" in uris
    build = rpc if revision == REVISION_2025 else modern
    # Client-set credentials and identity headers must not be taken as the caller (identity: requestContext only).
    forged = {**SECRET_HEADERS, "x-amzn-oidc-identity": "admin", "x-amz-date": "20260101T000000Z"}
    for uri in uris:
        match = registry.match(uri)
        assert match is not None
        read = body_json(lambda_handler(http_api_event(build("resources/read", {"uri": uri}), revision=revision,
                                                       headers=forged)))
        tool = body_json(lambda_handler(http_api_event(
            build("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}), revision=revision,
            headers=forged)))["result"]
        if match.spec.requires == "none":
            status = json.loads(read["result"]["contents"][0]["text"])
            assert status["authenticated"] is False, uri
            assert status["reason"], f"{uri}: says why it is unauthenticated"
            assert status.get("principal_arn") is None and status.get("account") is None
            assert tool["isError"] is False and tool["content"][0]["text"] == read["result"]["contents"][0]["text"]
        else:
            assert read["error"]["code"] == -32001, uri
            assert read["error"]["data"]["error"] == "authentication_required"
            assert tool["isError"] is True and tool["structuredContent"]["error"] == "authentication_required"
    assert aws_calls.api_calls == []
    assert aws_calls.sessions == 0, "no boto3 session may be created for a hosted caller that did not resolve"


def _throwaway_registry(calls: list[ResourceRequest], requires: str, aws: tuple[str, ...]) -> Registry:
    def resolver(request: ResourceRequest) -> dict[str, Any]:
        calls.append(request)
        return {"leaked": True}

    probe = Registry()
    probe.add(ResourceSpec("probe://secret", "probe-secret", "Probe", "A throwaway resource that needs a caller.",
                           requires, resolver, aws))  # type: ignore[arg-type]
    probe.add(ResourceSpec("probe://items/{name}", "probe-item", "Probe item", "A throwaway template.",
                           requires, resolver, aws, example="probe://items/one"))  # type: ignore[arg-type]
    return probe


@pytest.mark.parametrize("auth_mode", ["iam", "oidc"])
@pytest.mark.parametrize("requires", ["auth", "admin"])
@pytest.mark.parametrize("actions", [(), ("s3:ListBuckets",)], ids=["no-aws-calls", "aws-calls"])
def test_auth_seam_refuses_before_the_resolver_runs(
    aws_calls: AwsCallCounter, auth_mode: str, requires: str, actions: tuple[str, ...]
) -> None:
    calls: list[ResourceRequest] = []
    settings = Settings(mode="lambda", auth_mode=auth_mode)  # type: ignore[arg-type]
    probe_reader = ResourceReader(_throwaway_registry(calls, requires, actions), settings)
    event = http_api_event(rpc("resources/read", {"uri": "probe://secret"}), headers=SECRET_HEADERS)
    scope = {"type": "http", "headers": [(b"authorization", f"Bearer {SECRET_BEARER}".encode())], "aws.event": event}

    for uri in ("probe://secret", "probe://items/anything"):
        with pytest.raises(ResourceFailure) as failure:
            anyio.run(probe_reader.read, uri, lambda: resolve_caller(scope, settings))
        assert failure.value.code is ErrorCode.AUTHENTICATION_REQUIRED
        payload = failure.value.payload()
        assert payload["error"] == "authentication_required" and payload["details"] and not payload["retryable"]
        assert failure.value.jsonrpc_code == -32001
        assert SECRET_BEARER not in json.dumps(payload)
    assert calls == [], "the resolver must never run for an unauthenticated hosted caller"
    assert aws_calls.api_calls == [] and aws_calls.sessions == 0


def test_auth_seam_through_json_rpc_on_a_hosted_server(aws_calls: AwsCallCounter) -> None:
    """The same seam end to end: a hosted server answers -32001 / authentication_required over JSON-RPC."""
    calls: list[ResourceRequest] = []
    settings = Settings(mode="lambda", auth_mode="iam")
    app = McpHttpApp(DataMCPServer(_throwaway_registry(calls, "auth", ("s3:ListBuckets",)), settings), settings)
    handler = Mangum(app, lifespan="off")
    try:
        for revision, build in ((REVISION_2025, rpc), (REVISION_2026, modern)):
            response = handler(http_api_event(build("resources/read", {"uri": "probe://secret"}, 9),
                                              revision=revision, headers=SECRET_HEADERS), LocalLambdaContext())
            message = body_json(response)
            assert message["id"] == 9
            assert message["error"]["code"] == -32001
            assert message["error"]["data"]["error"] == "authentication_required"
            assert SECRET_BEARER not in response["body"]
    finally:
        asyncio.get_event_loop().run_until_complete(app.aclose())
    assert calls == []
    assert aws_calls.api_calls == [] and aws_calls.sessions == 0


# --- Logs and metrics: correlation id on every line, no secret anywhere, EMF per URI --------------

class Capture(logging.Handler):
    def __init__(self, formatter: logging.Formatter) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(formatter)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def captured_logs(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Capture, Capture]]:
    """(lines of the server's Powertools logger as it writes them, lines of every other logger)."""
    server_logger = observability.logger._logger  # the stdlib logger inside the Powertools Logger
    assert isinstance(server_logger, logging.Logger)
    ours = Capture(observability.logger.registered_formatter)
    everything = Capture(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    previous_level = server_logger.level
    server_logger.addHandler(ours)
    root.addHandler(everything)
    server_logger.setLevel(logging.DEBUG)
    # A probe line from inside the request path on every read, through the server's own logger.
    record_read = reader.record_read

    def record_and_log(uri_key: str, seconds: float, error_code: str | None) -> None:
        observability.logger.info("probe: read finished", extra={"probe_uri": uri_key})
        record_read(uri_key, seconds, error_code)

    monkeypatch.setattr(reader, "record_read", record_and_log)
    try:
        yield ours, everything
    finally:
        server_logger.removeHandler(ours)
        root.removeHandler(everything)
        server_logger.setLevel(previous_level)


def test_logs_carry_the_request_id_and_never_a_secret(
    lambda_handler: Invoke, captured_logs: tuple[Capture, Capture], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ours, everything = captured_logs
    spec = registry.get("config://security")
    assert spec is not None

    def explode(request: ResourceRequest) -> dict[str, Any]:
        raise RuntimeError("resolver exploded")

    monkeypatch.setitem(registry._resources, "config://security", dataclasses.replace(spec, resolver=explode))
    invocations = [
        ("rid-static-0001", http_api_event(rpc("resources/read", {"uri": "config://server"}),
                                           headers=SECRET_HEADERS, request_id="rid-static-0001")),
        ("rid-failing-0002", http_api_event(rpc("resources/read", {"uri": "config://security"}),
                                            headers=SECRET_HEADERS, request_id="rid-failing-0002")),
        ("rid-modern-0003", http_api_event(modern("tools/call", {"name": "get_resource",
                                                                 "arguments": {"uri": "metadata://templates/dataset"}}),
                                           revision=REVISION_2026, headers=SECRET_HEADERS,
                                           request_id="rid-modern-0003")),
        ("rest-rid-0004", rest_event(rpc("resources/read", {"uri": "auth://status"}), headers=SECRET_HEADERS,
                                     request_id="rest-rid-0004")),
    ]
    responses = []
    for request_id, event in invocations:
        before = len(ours.lines)
        responses.append(json.dumps(lambda_handler(event)))
        lines = ours.lines[before:]
        assert lines, f"{request_id}: the server logged nothing during the invocation"
        for line in lines:
            assert request_id in line, f"line without its correlation id {request_id}: {line}"
            with contextlib.suppress(json.JSONDecodeError):
                assert json.loads(line)["correlation_id"] == request_id
            others = [other for other, _ in invocations if other != request_id]
            assert not any(other in line for other in others), f"another invocation's id leaked: {line}"

    failing = json.loads(json.loads(responses[1])["body"])
    assert failing["error"]["data"]["error"] == "internal"
    assert "resolver exploded" not in responses[1] and "Traceback" not in responses[1]
    assert any("resolver failed" in line and "rid-failing-0002" in line for line in ours.lines)
    assert any("resolver exploded" in line for line in ours.lines), "the logs keep the details the response hides"

    out, err = capsys.readouterr()
    for secret in (SECRET_BEARER, SECRET_SESSION):
        for where, text in (("server log", "\n".join(ours.lines)), ("other loggers", "\n".join(everything.lines)),
                            ("responses", "\n".join(responses)), ("stdout", out), ("stderr", err)):
            assert secret not in text, f"{secret} appeared in {where}"

    emf = [json.loads(line) for line in out.splitlines() if line.startswith("{") and '"_aws"' in line]
    by_uri = {record.get("uri"): record for record in emf}
    static = by_uri["config://server"]
    directive = static["_aws"]["CloudWatchMetrics"][0]
    assert any("uri" in dimensions for dimensions in directive["Dimensions"])
    # Requests per URI are Latency's SampleCount: one Latency sample per read.
    assert {"Latency"} <= {metric["Name"] for metric in directive["Metrics"]}
    assert len(static["Latency"]) == 1 and static["Latency"][0] >= 0
    # Latency per URI template, never per concrete value (bounded metric cardinality).
    assert "metadata://templates/{template}" in by_uri and "metadata://templates/dataset" not in by_uri
    assert by_uri["config://security"]["Errors_internal"] == [1.0]


def test_sdk_per_request_info_noise_is_quiet(lambda_handler: Invoke) -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(keep)
    try:
        for i in range(5):
            lambda_handler(http_api_event(rpc("resources/read", {"uri": "config://server"}, i)))
            lambda_handler(http_api_event(modern("resources/list", {}, i), revision=REVISION_2026))
    finally:
        root.removeHandler(keep)
    noisy = [r.getMessage() for r in records if r.levelno <= logging.INFO and r.name.startswith(("mcp", "mangum"))]
    assert not [m for m in noisy if "Terminating session" in m]
    assert noisy == []


def test_request_budget_stays_under_api_gateway_timeout(lambda_handler: Invoke) -> None:
    config = json.loads(read_text(lambda_handler, "config://server"))
    assert 0 < config["timeouts"]["request_seconds"] < 30
    assert config["timeouts"]["aws_call_seconds"] <= config["timeouts"]["request_seconds"]


def test_event_is_not_mutated_by_the_handler(lambda_handler: Invoke) -> None:
    event = http_api_event(rpc("resources/read", {"uri": "config://server"}), stage="prod")
    original = copy.deepcopy(event)
    lambda_handler(event)
    assert event == original


# --- Events API Gateway never sends: a structured 400, and the container keeps serving ------------

def _broken_events() -> dict[str, Any]:
    good = http_api_event(rpc("tools/list"))
    no_source_ip = copy.deepcopy(good)
    del no_source_ip["requestContext"]["http"]["sourceIp"]
    bad_base64 = dict(copy.deepcopy(good), body="!!not base64!!", isBase64Encoded=True)
    header_not_text = copy.deepcopy(good)
    header_not_text["headers"]["x-count"] = 5
    return {
        "empty": {},
        "request-context-null": {"version": "2.0", "requestContext": None, "rawPath": "/mcp"},
        "request-context-text": dict(copy.deepcopy(good), requestContext="prod"),
        "list": [good],
        "string": "POST /mcp",
        "null": None,
        "bad-base64": bad_base64,
        "no-source-ip": no_source_ip,
        "header-not-text": header_not_text,
        "rest-without-path": {"resource": "/mcp", "requestContext": {}, "httpMethod": "POST"},
    }


@pytest.mark.parametrize("name", sorted(_broken_events()))
def test_an_event_api_gateway_never_sends_gets_a_structured_400(lambda_handler: Invoke, name: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    response = lambda_handler(_broken_events()[name])
    assert response["statusCode"] == 400, response
    assert header(response, "content-type") == "application/json"
    error = body_json(response)["error"]
    assert error["code"] == -32600 and "API Gateway" in error["message"]
    assert "Traceback" not in json.dumps(response)
    assert "Errors" not in capsys.readouterr().out, "no metric for an event that never was a request"
    assert body_json(lambda_handler(http_api_event(rpc("tools/list", {}, 2))))["id"] == 2
