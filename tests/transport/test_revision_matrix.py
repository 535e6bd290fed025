"""Every transport on every revision: the protocol's edges (docs/protocol.md, "What each transport supports").

The Lambda handler (API Gateway events), local HTTP (a 2025-11-25 client gets a session) and stdio (a process),
each on 2025-11-25 and 2026-07-28: the code of a URI that names nothing, a request id that is not a string or
an integer, an empty template argument, and a long query's progress where the transport can carry it. Through
the SDK's client where one speaks the transport; raw JSON-RPC for what the SDK client never sends.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp import Client, StdioServerParameters
from mcp.client.extension import ClientExtension
from mcp.client.stdio import stdio_client
from mcp.server.apps import APP_MIME_TYPE
from mcp.server.apps import EXTENSION_ID as APPS
from mcp.shared.exceptions import MCPError

from aws_data_mcp.resources.views import QUERY_RESULTS
from aws_data_mcp.server.mcp_server import LIST_TTL_MS
from aws_data_mcp.server.trust_marks import EXTENSION_ID as TRUST
from aws_data_mcp_demo.account.emulated import CONFLICTING_ENVIRONMENT, DemoAccount
from support.events import MODERN_META, REVISION_2025, REVISION_2026, answer_of, body_json, http_api_event, modern, rpc
from support.logs import RecordKeeper
from support.queries import answer
from support.servers import ServerThread
from support.tasks_client import Tasks

pytestmark = pytest.mark.anyio

TRANSPORTS = ("lambda", "http", "stdio")
MATRIX = [pytest.param(transport, revision, id=f"{transport}-{revision}")
          for transport in TRANSPORTS for revision in (REVISION_2025, REVISION_2026)]
MODE = {REVISION_2025: "legacy", REVISION_2026: REVISION_2026}
"""The SDK client's mode for each revision (legacy: the initialize handshake; on local HTTP, a session)."""
NOT_FOUND = {REVISION_2025: -32002, REVISION_2026: -32602}
UNKNOWN = "auth://statu"
EMPTY_ARGUMENT = "workflow://workflows//status"
REFUSED_QUERY = {"sql": "DROP TABLE orders", "database": "sales"}
"""Refused by the SQL guard before any AWS call: a tool result on every transport, with no AWS behind it."""
BAD_IDS = ("1.5", "1e999", "null", "true", "{}", "[]")
LONG_QUERY = "/* demo:running_seconds=2 */ SELECT count(*) AS orders FROM orders WHERE order_date = '2026-01-01'"
HANG_GUARD = 120
"""Seconds before a test that waits on a process gives up (a hang fails; no duration is asserted)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- One way to read an error on each transport ----------------------------------------------------

class LambdaReads:
    """The Lambda handler, fed API Gateway events: the only client a Lambda has is API Gateway."""

    def __init__(self, handler: Callable[[dict[str, Any]], dict[str, Any]], revision: str) -> None:
        self.handler = handler
        self.revision = revision
        self.build = rpc if revision == REVISION_2025 else modern

    async def read_error(self, uri: str) -> tuple[int, dict[str, Any]]:
        body = self.build("resources/read", {"uri": uri}, 5)
        error = body_json(self.handler(http_api_event(body, revision=self.revision)))["error"]
        return error["code"], error["data"]

    async def tool_error(self, uri: str) -> dict[str, Any]:
        body = self.build("tools/call", {"name": "get_resource", "arguments": {"uri": uri}}, 6)
        result = body_json(self.handler(http_api_event(body, revision=self.revision)))["result"]
        assert result["isError"] is True, result
        return result["structuredContent"]  # type: ignore[no-any-return]

    async def list_cache(self) -> tuple[int | None, str | None]:
        result = body_json(self.handler(http_api_event(self.build("tools/list", {}, 7), revision=self.revision)))
        return result["result"].get("ttlMs"), result["result"].get("cacheScope")

    async def refused_query_meta(self) -> dict[str, Any]:
        """A refused athena_query's `_meta`, from a client that declares trust annotations: in 2026-07-28's
        request, or (2025-11-25) in an `initialize` that a stateless container does not keep."""
        declared = {"extensions": {TRUST: {}}}
        if self.revision == REVISION_2025:
            opened = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": declared,
                                        "clientInfo": {"name": "pytest", "version": "1"}}, 0)
            assert body_json(self.handler(http_api_event(opened)))["result"]["protocolVersion"] == REVISION_2025
            body = rpc("tools/call", {"name": "athena_query", "arguments": REFUSED_QUERY}, 8)
        else:
            body = modern("tools/call", {"name": "athena_query", "arguments": REFUSED_QUERY}, 8)
            body["params"]["_meta"] = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": declared}
        result = body_json(self.handler(http_api_event(body, revision=self.revision)))["result"]
        assert result["isError"] is True, result
        return result.get("_meta") or {}


class SdkReads:
    """The SDK's own client, over local HTTP or stdio."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def read_error(self, uri: str) -> tuple[int, dict[str, Any]]:
        with pytest.raises(MCPError) as raised:
            await self.client.read_resource(uri)
        return raised.value.error.code, raised.value.error.data

    async def tool_error(self, uri: str) -> dict[str, Any]:
        result = await self.client.call_tool("get_resource", {"uri": uri})
        assert result.is_error, result
        return result.structured_content  # type: ignore[return-value]

    async def list_cache(self) -> tuple[int | None, str | None]:
        listed = await self.client.list_tools()
        sent = listed.model_fields_set  # the model's defaults (0, private) stand in for fields never sent
        return (listed.ttl_ms if "ttl_ms" in sent else None), (listed.cache_scope if "cache_scope" in sent else None)

    async def refused_query_meta(self) -> dict[str, Any]:
        result = await self.client.call_tool("athena_query", REFUSED_QUERY)
        assert result.is_error, result
        return result.meta or {}


def stdio_parameters(module: str, workflow_db: Path) -> StdioServerParameters:
    """`module stdio` in a process of its own; AWS is a closed loopback port unless the demo emulates it."""
    environment = {k: v for k, v in os.environ.items() if k not in CONFLICTING_ENVIRONMENT}
    if module == "aws_data_mcp":
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9"
    environment["AWS_DATA_MCP_WORKFLOW_DB"] = str(workflow_db)
    return StdioServerParameters(command=sys.executable, args=["-m", module, "stdio"], env=environment)


class TrustAnnotations(ClientExtension):
    identifier = TRUST


@asynccontextmanager
async def stdio_client_of(module: str, revision: str, tmp_path: Path,
                          extension: ClientExtension | None = None) -> AsyncIterator[tuple[Client, Path]]:
    """The SDK client on a stdio server process, and the file its stderr (the operator's log) goes to."""
    log = tmp_path / "stderr.log"
    with log.open("w") as errlog, anyio.fail_after(HANG_GUARD):
        async with Client(stdio_client(stdio_parameters(module, tmp_path / "workflows.sqlite3"), errlog=errlog),
                          mode=MODE[revision], extensions=[extension or TrustAnnotations()]) as client:
            yield client, log


@asynccontextmanager
async def reads_on(transport: str, revision: str, request: pytest.FixtureRequest,
                   tmp_path: Path) -> AsyncIterator[tuple[LambdaReads | SdkReads, Path | None]]:
    """Reads on `transport` at `revision` by a client that declares trust annotations, and the file of the
    server's log when it runs in a process of its own (in-process servers log to the test's `log_records`)."""
    if transport == "lambda":
        yield LambdaReads(request.getfixturevalue("lambda_handler"), revision), None
    elif transport == "http":
        async with Client(request.getfixturevalue("http_server").url, mode=MODE[revision],
                          extensions=[TrustAnnotations()]) as client:
            yield SdkReads(client), None
    else:
        async with stdio_client_of("aws_data_mcp", revision, tmp_path) as (client, log):
            yield SdkReads(client), log


def error_lines(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if " ERROR " in line or "Traceback" in line]


# --- A URI that names nothing: the code its revision asks ----------------------------------------

@pytest.mark.parametrize(("transport", "revision"), MATRIX)
async def test_a_uri_naming_nothing_gets_the_not_found_code_of_its_revision(
        transport: str, revision: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    async with reads_on(transport, revision, request, tmp_path) as (reads, _):
        code, data = await reads.read_error(UNKNOWN)
        tool = await reads.tool_error(UNKNOWN)
    assert code == NOT_FOUND[revision], (transport, revision, code)
    assert data["error"] == "not_found" and data["uri"] == UNKNOWN
    assert data["valid_uris"][0] == "auth://status", "the nearest valid URI first"
    assert tool == data, "get_resource carries the same payload"


# --- Lists' TTL and trust annotations: where the revision has them ----------------------------------

@pytest.mark.parametrize(("transport", "revision"), MATRIX)
async def test_lists_carry_a_ttl_on_2026_only(transport: str, revision: str, request: pytest.FixtureRequest,
                                              tmp_path: Path) -> None:
    async with reads_on(transport, revision, request, tmp_path) as (reads, _):
        cache = await reads.list_cache()
    assert cache == ((LIST_TTL_MS, "public") if revision == REVISION_2026 else (None, None)), cache


@pytest.mark.parametrize(("transport", "revision"), MATRIX)
async def test_a_client_declaring_trust_annotations_gets_tool_results_marked(
        transport: str, revision: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Except on Lambda at 2025-11-25: a container answers each request alone, so the `initialize` that declared
    the extension is not there when the call comes (docs/protocol.md)."""
    async with reads_on(transport, revision, request, tmp_path) as (reads, _):
        meta = await reads.refused_query_meta()
    if transport == "lambda" and revision == REVISION_2025:
        assert TRUST not in meta, meta
    else:
        assert meta.get(TRUST) == {"untrusted": True}, meta


# --- An empty template argument: invalid_argument, and nothing in the operator's log ----------------

@pytest.mark.parametrize(("transport", "revision"), MATRIX)
async def test_an_empty_template_argument_is_invalid_argument_with_no_error_logged(
        transport: str, revision: str, request: pytest.FixtureRequest, tmp_path: Path,
        log_records: RecordKeeper) -> None:
    async with reads_on(transport, revision, request, tmp_path) as (reads, log):
        code, data = await reads.read_error(EMPTY_ARGUMENT)
        tool = await reads.tool_error(EMPTY_ARGUMENT)
    assert code == -32602 and data["error"] == "invalid_argument", (code, data)
    assert "'workflow_id'" in data["message"] and "empty" in data["message"]
    assert tool == data
    assert [r.getMessage() for r in log_records.at_least(logging.ERROR)] == []
    if log is not None:
        assert error_lines(log) == [], "a client's bad input is no error of the server's"


# --- A request id that is neither a string nor an integer: -32600, id null ---------------------------

def bad_id_body(literal: str, revision: str) -> str:
    """tools/list with the id written as `literal` (the SDK client cannot send one)."""
    params = json.dumps({"_meta": MODERN_META}) if revision == REVISION_2026 else "{}"
    return '{"jsonrpc":"2.0","id":' + literal + ',"method":"tools/list","params":' + params + "}"


def assert_invalid_request(message: dict[str, Any]) -> None:
    assert message["id"] is None and message["error"]["code"] == -32600, message
    assert "string or an integer" in message["error"]["message"]


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_on_lambda_an_invalid_id_is_invalid_request(
        lambda_handler: Callable[[dict[str, Any]], dict[str, Any]], revision: str) -> None:
    for literal in BAD_IDS:
        event = http_api_event(bad_id_body(literal, revision), revision=revision, headers={"mcp-method": "tools/list"})
        response = lambda_handler(event)
        assert response["statusCode"] == 400, (literal, response)
        assert_invalid_request(body_json(response))


def http_headers(revision: str, session: str | None = None) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": revision}
    if revision == REVISION_2026:
        headers["mcp-method"] = "tools/list"
    if session:
        headers["mcp-session-id"] = session
    return headers


def open_session(url: str) -> str:
    """A 2025-11-25 session of the local server, opened as a client opens one."""
    initialize = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": {},
                                    "clientInfo": {"name": "pytest", "version": "1"}})
    opened = httpx2.post(url, json=initialize, headers=http_headers(REVISION_2025), timeout=30)
    session = opened.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx2.post(url, json=initialized, headers=http_headers(REVISION_2025, session), timeout=30)
    return session


@pytest.mark.parametrize(("revision", "in_session"), [(REVISION_2025, False), (REVISION_2025, True),
                                                      (REVISION_2026, False)],
                         ids=["2025-11-25", "2025-11-25-session", "2026-07-28"])
def test_on_local_http_an_invalid_id_is_invalid_request(http_server: ServerThread, revision: str,
                                                        in_session: bool) -> None:
    session = open_session(http_server.url) if in_session else None
    for literal in BAD_IDS:
        reply = httpx2.post(http_server.url, content=bad_id_body(literal, revision),
                            headers=http_headers(revision, session), timeout=30)
        assert reply.status_code == 400, (literal, reply.text)
        assert_invalid_request(reply.json())
    served = httpx2.post(http_server.url, content=bad_id_body("7", revision), headers=http_headers(revision, session),
                         timeout=30)
    assert answer_of(served.headers["content-type"], served.text)["result"]["tools"], "the same with an integer id"


class StdioLines:
    """A stdio server process spoken to line by line, as a client that writes its own JSON-RPC would."""

    def __init__(self, process: Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self.stdin = process.stdin
        self.lines = TextReceiveStream(process.stdout)
        self.pending = ""

    async def send(self, line: str) -> None:
        await self.stdin.send((line + "\n").encode())

    async def receive(self) -> dict[str, Any]:
        while "\n" not in self.pending:
            self.pending += await self.lines.receive()
        line, self.pending = self.pending.split("\n", 1)
        return json.loads(line)  # type: ignore[no-any-return]


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
async def test_on_stdio_an_invalid_id_is_invalid_request(revision: str, tmp_path: Path) -> None:
    params = stdio_parameters("aws_data_mcp", tmp_path / "workflows.sqlite3")
    with (tmp_path / "stderr.log").open("w") as errlog, anyio.fail_after(HANG_GUARD):
        async with await anyio.open_process([params.command, *params.args], env=params.env,
                                            stderr=errlog) as process:
            stdio = StdioLines(process)
            if revision == REVISION_2025:  # the handshake opens a 2025-11-25 connection
                await stdio.send(json.dumps(rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": {},
                                                               "clientInfo": {"name": "pytest", "version": "1"}}, 0)))
                assert (await stdio.receive())["result"]["protocolVersion"] == REVISION_2025
                await stdio.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
            for literal in BAD_IDS:
                await stdio.send(bad_id_body(literal, revision))
                assert_invalid_request(await stdio.receive())
            await stdio.send(bad_id_body("7", revision))  # the same with an integer id, on the same connection
            served = await stdio.receive()
            refused = {}
            for line in ("{not json", "42", '{"id": 3}', "[]"):  # what the SDK's reader dropped, answering nothing
                await stdio.send(line)
                refused[line] = await stdio.receive()
            await process.stdin.aclose()  # type: ignore[union-attr]
    assert served["id"] == 7 and served["result"]["tools"], served
    assert {line: (answer["id"], answer["error"]["code"]) for line, answer in refused.items()} == {
        "{not json": (None, -32700), "42": (None, -32600), '{"id": 3}': (None, -32600), "[]": (None, -32600)}


# --- Progress: where the transport can carry it ---------------------------------------------------

@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_on_lambda_a_call_asking_for_progress_is_one_json_answer(
        lambda_handler: Callable[[dict[str, Any]], dict[str, Any]], revision: str) -> None:
    """Mangum buffers the whole response and API Gateway does not stream it: progress could only come with the
    result, so none is sent (docs/protocol.md)."""
    build = rpc if revision == REVISION_2025 else modern
    body = build("tools/call", {"name": "get_resource", "arguments": {"uri": "config://server"}}, 9)
    body["params"]["_meta"] = {**body["params"].get("_meta", {}), "progressToken": "p1"}
    response = lambda_handler(http_api_event(body, revision=revision))
    assert response["statusCode"] == 200
    assert response["headers"]["content-type"].startswith("application/json"), response["headers"]
    message = body_json(response)
    assert message["id"] == 9 and message["result"]["content"], "one message: the answer, no notification"


async def call_with_progress(client: Client) -> list[tuple[float, str | None]]:
    seen: list[tuple[float, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, message))

    result = await client.call_tool("athena_query", {"sql": LONG_QUERY, "database": "sales"},
                                    progress_callback=progress)
    assert answer(result)["state"] == "SUCCEEDED"
    return seen


def assert_progress(seen: list[tuple[float, str | None]]) -> None:
    assert seen, "no progress reached the client"
    assert all("bytes scanned so far" in (message or "") for _, message in seen), seen
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


@pytest.mark.usefixtures("quick_queries")
async def test_on_local_http_a_waiting_querys_progress_reaches_the_client(
        demo_query_http: ServerThread, demo_caller: DemoAccount) -> None:
    """2026-07-28: a call of no session that asks for progress is streamed once one is sent."""
    async with Client(demo_query_http.url, mode=MODE[REVISION_2026]) as client:
        assert_progress(await call_with_progress(client))


@pytest.mark.usefixtures("quick_queries")
async def test_in_a_local_2025_session_a_call_is_answered_in_json_without_progress(
        demo_query_http: ServerThread, demo_caller: DemoAccount) -> None:
    """A 2025-11-25 session's answers are JSON (docs/protocol.md says why): the call answers, no progress comes."""
    async with Client(demo_query_http.url, mode=MODE[REVISION_2025]) as client:
        assert await call_with_progress(client) == []


@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
async def test_on_stdio_a_waiting_querys_progress_reaches_the_client(revision: str, tmp_path: Path) -> None:
    async with stdio_client_of("aws_data_mcp_demo", revision, tmp_path) as (client, _):
        assert_progress(await call_with_progress(client))


# --- Tasks: 2026-07-28 only (2025-11-25's initialize carries no extensions) --------------------------

async def test_on_stdio_a_long_query_is_a_task_polled_to_the_tools_answer(tmp_path: Path) -> None:
    """Lambda and local HTTP: tests/query/test_tasks.py."""
    tasks = Tasks()
    async with stdio_client_of("aws_data_mcp_demo", REVISION_2026, tmp_path, tasks) as (client, _):
        resolved = await client.call_tool("athena_query", {"sql": LONG_QUERY, "database": "sales", "wait_seconds": 0})
    assert tasks.polls >= 1, "answered as a task, and polled"
    assert answer(resolved)["state"] == "SUCCEEDED"


# --- MCP Apps views on Lambda: declared per request, or not at all -------------------------------

@pytest.mark.parametrize("revision", [REVISION_2025, REVISION_2026])
def test_on_lambda_the_views_reach_a_host_that_declares_them_in_the_request(
        lambda_handler: Callable[[dict[str, Any]], dict[str, Any]], revision: str) -> None:
    """A 2026-07-28 host declares MCP Apps in each request's `_meta` and gets the bound tools stamped. A 2025-11-25
    host declares it in `initialize`, which a container answering each request alone does not keep, so it gets the
    plain tools there (docs/views.md): the local server's sessions and stdio keep it."""
    declared = {"extensions": {APPS: {"mimeTypes": [APP_MIME_TYPE]}}}
    if revision == REVISION_2025:
        opened = rpc("initialize", {"protocolVersion": REVISION_2025, "capabilities": declared,
                                    "clientInfo": {"name": "pytest", "version": "1"}}, 0)
        assert body_json(lambda_handler(http_api_event(opened)))["result"]["protocolVersion"] == REVISION_2025
        body = rpc("tools/list", {}, 5)
    else:
        body = modern("tools/list", {}, 5)
        body["params"]["_meta"] = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": declared}
    tools = {tool["name"]: tool for tool in body_json(lambda_handler(http_api_event(body, revision=revision)))[
        "result"]["tools"]}
    stamped = (tools["athena_query"].get("_meta") or {}).get("ui")
    assert stamped == (None if revision == REVISION_2025 else {"resourceUri": QUERY_RESULTS}), stamped
