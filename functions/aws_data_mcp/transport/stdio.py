"""stdio: the SDK's transport, with the HTTP edge's answer to a line no message can be.

The SDK's reader takes a request whose id is not a string or an integer for a notification,
and drops a line that is not a JSON-RPC message: either way the client waits for an answer
that never comes. Here such a line is answered on stdout (`id: null`) and never reaches the SDK.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

from aws_data_mcp.server.mcp_server import DataMCPServer
from aws_data_mcp.transport.request_ids import INVALID_ID, is_request_with_invalid_id

PARSE_MESSAGE = "Parse error: a line on stdin must be one JSON-RPC message"
NOT_A_MESSAGE = "Invalid Request: a line on stdin must be one JSON-RPC 2.0 message (no batch)"


def refusal(line: str) -> ErrorData | None:
    """What answers `line` in place of the SDK, or None when the SDK should read it."""
    if not line.strip():
        return None  # a blank line is no message: nothing to answer
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return ErrorData(code=PARSE_ERROR, message=PARSE_MESSAGE)
    if is_request_with_invalid_id(message):
        return ErrorData(code=INVALID_REQUEST, message=INVALID_ID)
    try:  # the SDK's own reading of a line, which drops what fails it
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        return ErrorData(code=INVALID_REQUEST, message=NOT_A_MESSAGE)
    return None


class _CheckedLines:
    """The lines of stdin the SDK should read; the others are answered on its write stream."""

    def __init__(self) -> None:
        # A duplicate of fd 0, so closing it never closes the process's own stdin.
        binary = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
        self._lines = anyio.wrap_file(TextIOWrapper(binary, encoding="utf-8", errors="replace"))
        self._answers: Any = None  # the SDK's write stream (its stream types are private)
        self._ready = anyio.Event()

    def answer_on(self, write_stream: Any) -> None:
        self._answers = write_stream
        self._ready.set()

    async def aclose(self) -> None:
        await self._lines.aclose()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            error = refusal(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()  # the SDK's reader starts before its write stream is handed out
            await self._answers.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error)))


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio streams over checked stdin. Given stdin, the SDK leaves fd 0 as it is (nothing here reads
    it); it still moves fd 1 aside, so a stray print cannot reach the wire."""
    lines = _CheckedLines()
    try:
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.answer_on(write_stream)
            yield read_stream, write_stream
    finally:
        await lines.aclose()


async def serve(server: DataMCPServer) -> None:
    """stdio: one client on a pipe that stays open, so live updates are served, and advertised, here."""
    server.live_updates.serve()
    async with stdio_streams() as (read_stream, write_stream):
        await server.run_streams(read_stream, write_stream)
