"""One event, one log line: no second copy through a root handler, and no client input that can forge a line.

Each test builds the process's logging as a cold start does (`app.create_server`: our `configure`, then the MCP
SDK's `logging.basicConfig`) and reads what really reaches stdout and stderr (capfd), plus every record that
reaches the root logger, where any handler someone else installed would print it again.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest
from aws_lambda_powertools.logging.filters import SuppressFilter

from aws_data_mcp import observability
from aws_data_mcp.app import create_server
from aws_data_mcp.config import Settings
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources import registry
from support.events import http_api_event, rpc

Invoke = Callable[[dict[str, Any]], dict[str, Any]]

SECRET_HEADERS = {"authorization": "Bearer SECRET-TOKEN-LOG", "x-amz-security-token": "SESSION-TOKEN-LOG"}
FORGED = "\n2026-01-01 ERROR forged"
ANSI_RED = "\x1b[31m"
RECORD_START = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")  # the timestamp every local line starts with


class RootRecords(logging.Handler):
    """Every record that reaches the root logger, where the Lambda runtime's handler (or basicConfig's) prints."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def mentioning(self, text: str) -> list[logging.LogRecord]:
        return [r for r in self.records if text in r.getMessage() or (r.exc_info and text in str(r.exc_info[1]))]


@pytest.fixture
def cold_start(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> Callable[..., RootRecords]:
    """`cold_start(hosted, runtime_handler=False)` sets the process's logging up as a fresh process does.

    Called from the test itself, once pytest has put its own capture handlers on the root logger for the test:
    the root logger restarts empty, as under `invoke`, `serve` and `stdio`, or holding only a handler like the
    one the Lambda runtime installs before importing the function (with the filter Powertools adds to it when
    our Logger is created). Our handler writes to the stderr capfd captures (it holds the stream it was created
    with), and the log style, the root logger and the library loggers are restored afterwards (xdist workers
    run many tests in one process).
    """
    root = logging.getLogger()
    formatter = observability.logger.registered_formatter
    libraries = [logging.getLogger(name) for name in observability.LIBRARY_LOGGERS]

    def start(hosted: bool, runtime_handler: bool = False) -> RootRecords:
        monkeypatch.setattr(observability.logger.registered_handler, "stream", sys.stderr)
        monkeypatch.setattr(root, "handlers", [])
        monkeypatch.setattr(root, "level", root.level)
        monkeypatch.setattr(observability, "_root_handler", None, raising=False)
        monkeypatch.setattr(formatter, "json_serializer", formatter.json_serializer)
        for library in libraries:
            for attribute in ("handlers", "propagate", "level"):
                monkeypatch.setattr(library, attribute, getattr(library, attribute))
        if runtime_handler:
            runtime = logging.StreamHandler(sys.stderr)
            runtime.setFormatter(logging.Formatter("[%(levelname)s]\t%(asctime)s\t%(message)s"))
            runtime.addFilter(SuppressFilter(observability.SERVICE))
            root.addHandler(runtime)
        create_server(Settings(mode="lambda" if hosted else "local"))  # configure(), then the SDK's basicConfig
        records = RootRecords()
        root.addHandler(records)
        capfd.readouterr()
        return records

    return start


@pytest.fixture
def exploding(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """`exploding(uri)`: the resolver of the resource or template `uri` raises, quoting its arguments."""

    def install(uri: str) -> None:
        spec = registry.get(uri)
        assert spec is not None

        def explode(request: ResourceRequest) -> dict[str, Any]:
            raise RuntimeError(f"resolver exploded on {', '.join(request.args.values()) or 'no arguments'}")

        monkeypatch.setitem(registry._resources, uri, dataclasses.replace(spec, resolver=explode))

    return install


def output_lines(capfd: pytest.CaptureFixture[str]) -> list[str]:
    out, err = capfd.readouterr()
    return (out + err).splitlines()


@pytest.mark.parametrize("runtime_handler", [False, True], ids=["no-root-handler", "lambda-runtime-root-handler"])
def test_a_resolver_error_is_one_json_line_with_its_correlation_id(
    lambda_handler: Invoke, cold_start: Callable[..., RootRecords], exploding: Callable[[str], None],
    capfd: pytest.CaptureFixture[str], runtime_handler: bool,
) -> None:
    root = cold_start(hosted=True, runtime_handler=runtime_handler)
    exploding("config://security")
    response = lambda_handler(http_api_event(rpc("resources/read", {"uri": "config://security"}),
                                             headers=SECRET_HEADERS, request_id="rid-log-once"))
    lines = output_lines(capfd)

    assert "resolver exploded" not in json.dumps(response) and "Traceback" not in json.dumps(response)
    mentions = [line for line in lines if "resolver exploded" in line or "resolver failed" in line]
    assert len(mentions) == 1, "\n".join(lines)
    record = json.loads(mentions[0])
    assert record["message"] == "resolver failed" and record["level"] == "ERROR"
    assert record["correlation_id"] == "rid-log-once"
    assert "Traceback" in record["exception"] and "resolver exploded" in record["exception"]
    # Only our own record reaches the root logger, and every root handler's Powertools filter drops it there.
    assert [r.name for r in root.mentioning("resolver exploded")] == [observability.SERVICE]
    for secret in ("SECRET-TOKEN-LOG", "SESSION-TOKEN-LOG"):
        assert not [line for line in lines if secret in line]


def test_local_lines_cannot_be_forged_by_a_uri(
    local_lambda_handler: Invoke, cold_start: Callable[..., RootRecords], exploding: Callable[[str], None],
    capfd: pytest.CaptureFixture[str],
) -> None:
    cold_start(hosted=False)
    exploding("metadata://templates/{template}")
    uri = f"metadata://templates/x{FORGED}{ANSI_RED}\r\u2028tail"
    local_lambda_handler(http_api_event(rpc("resources/read", {"uri": uri})))
    lines = output_lines(capfd)

    assert lines, "the failure was not logged"
    assert not [line for line in lines if line.startswith("2026-01-01")], "\n".join(lines)
    assert not [line for line in lines if "\x1b" in line or "\r" in line or "\u2028" in line]
    # A record is one line starting with its timestamp; only its traceback follows, indented.
    assert all(RECORD_START.match(line) or line.startswith(" ") for line in lines), "\n".join(lines)
    records = [line for line in lines if RECORD_START.match(line)]
    assert len(records) == 2, "\n".join(lines)  # the failure, then the call's audit line
    assert " ERROR resolver failed " in records[0]
    assert " INFO mcp call " in records[1] and " outcome=failed " in records[1]
    assert " uri=metadata://templates/x\\n2026-01-01 ERROR forged\\x1b[31m\\r\\u2028tail " in records[1]
    assert "mcp_uri=metadata://templates/x\\n2026-01-01 ERROR forged\\x1b[31m\\r\\u2028tail" in records[0]
    traceback = lines[lines.index(records[0]) + 1:]
    assert traceback[0].strip() == "Traceback (most recent call last):"
    # The exception text is kept: its newline starts an indented line, its other control characters are escaped.
    assert "    RuntimeError: resolver exploded on x" in traceback
    assert "    2026-01-01 ERROR forged\\x1b[31m\\r\\u2028tail" in traceback


def test_lambda_json_lines_escape_a_forged_uri(
    lambda_handler: Invoke, cold_start: Callable[..., RootRecords], exploding: Callable[[str], None],
    capfd: pytest.CaptureFixture[str],
) -> None:
    cold_start(hosted=True)
    exploding("metadata://templates/{template}")
    uri = f"metadata://templates/x{FORGED}{ANSI_RED}"
    lambda_handler(http_api_event(rpc("resources/read", {"uri": uri}), request_id="rid-forged"))
    lines = [line for line in output_lines(capfd) if '"_aws"' not in line]  # EMF is metrics, not a log line

    assert len(lines) == 2, "\n".join(lines)  # the failure, then the call's audit line
    record, audited = map(json.loads, lines)
    assert record["mcp_uri"] == uri and record["correlation_id"] == "rid-forged"
    assert audited["audit"]["uri"] == uri and audited["correlation_id"] == "rid-forged"
    assert not [line for line in lines if "\x1b" in line]


@pytest.mark.parametrize(("hosted", "runtime_handler"), [(False, False), (True, False), (True, True)],
                         ids=["human", "json", "json-lambda-runtime-root-handler"])
def test_the_sdk_s_own_warning_is_one_line_in_our_format(
    local_lambda_handler: Invoke, cold_start: Callable[..., RootRecords], capfd: pytest.CaptureFixture[str],
    hosted: bool, runtime_handler: bool,
) -> None:
    root = cold_start(hosted=hosted, runtime_handler=runtime_handler)
    host = "evil.example" + FORGED
    with observability.LambdaInvocation("rid-sdk-warning", "aws-rid"):  # a correlation id to carry
        response = local_lambda_handler(http_api_event(rpc("resources/read", {"uri": "config://server"}),
                                                       headers={"host": host}))
    lines = output_lines(capfd)

    assert response["statusCode"] in (400, 421), "the SDK refused the host"
    mentions = [line for line in lines if "Invalid Host header" in line]
    assert len(mentions) == 1, "\n".join(lines)
    if hosted:
        record = json.loads(mentions[0])
        assert record["level"] == "WARNING" and record["name"] == "mcp.server.transport_security"
        assert record["message"] == f"Invalid Host header: {host}"
        assert record["correlation_id"] == "rid-sdk-warning"
    else:
        assert RECORD_START.match(mentions[0])
        assert " WARNING Invalid Host header: evil.example\\n2026-01-01 ERROR forged [" in mentions[0]
        assert "name=mcp.server.transport_security" in mentions[0]
        assert "correlation_id=rid-sdk-warning" in mentions[0]
        assert not [line for line in lines if line.startswith("2026-01-01")]
    assert not [r for r in root.records if r.name.startswith("mcp")], "SDK records never reach a root handler"


def test_configure_is_idempotent(cold_start: Callable[..., RootRecords]) -> None:
    cold_start(hosted=True)
    for hosted in (False, True, True):
        observability.configure(hosted=hosted)
    create_server(Settings(mode="lambda"))
    ours = observability.logger.registered_handler
    root_handlers = [h for h in logging.getLogger().handlers if not isinstance(h, RootRecords)]
    assert root_handlers == [observability._root_handler], "one root handler: ours, and basicConfig added none"
    assert observability.logger.handlers == [ours]
    for name in observability.LIBRARY_LOGGERS:
        library = logging.getLogger(name)
        # Ours exactly once; a handler someone else attached (a test's capture) is left in place.
        assert library.handlers.count(ours) == 1 and not library.propagate and library.level == logging.WARNING
    assert observability.logger.registered_formatter.json_serializer is observability._json_line

