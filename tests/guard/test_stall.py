"""No statement holds the server: while one caller's largest statement is being guarded, another caller's read is
answered (two callers over HTTP against one local server), and a statement past the guard's reach is refused with
advice before anything parses it.

Readiness, not seconds: the guard is held at its start until the other caller's read has been answered. Were the
guard on the event loop, that read could not be answered while it runs, and the test would fail on its order.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from aws_data_mcp.guard import read_only
from aws_data_mcp.guard.read_only import MAX_TOKENS
from aws_data_mcp_demo.account.emulated import DemoAccount
from support.queries import answer, query
from support.servers import ServerThread, demo_query_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]

HELD_FOR = 60.0
"""How long the gate waits for the other caller before letting the guard go on (a failure, not a pace)."""


def largest_guarded_statement() -> str:
    """An IN list just under the guard's token cap, reading another catalog: read in full, then refused."""
    items = (MAX_TOKENS - 40) // 2
    return ("SELECT order_id FROM othercat.sales.orders WHERE order_id IN ("
            + ", ".join(str(value) for value in range(items)) + ")")


def past_the_guards_reach(shape: str) -> str:
    """The three worst shapes of the issue, near Athena's 256 KB limit."""
    if shape == "in_list":
        return "SELECT * FROM orders WHERE order_id IN (" + ",".join(["1"] * 130_000) + ")"
    if shape == "dotted":
        return "SELECT " + ".".join(["a"] * 130_000) + " FROM orders"
    return "SELECT " + ",".join(["a"] * 130_000) + " FROM orders"


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(10) as running:
        yield running


async def test_another_callers_read_is_answered_while_a_big_statement_is_guarded(
        server: ServerThread, demo_caller: DemoAccount, monkeypatch: pytest.MonkeyPatch,
        aws_calls: Counter[str]) -> None:
    guarding, answered = threading.Event(), threading.Event()
    order: list[str] = []
    real = read_only.read_only_statement

    def gated(sql: object, *args: Any) -> Any:
        guarding.set()
        answered.wait(HELD_FOR)
        try:
            return real(sql, *args)
        finally:
            order.append("guarded")

    monkeypatch.setattr(read_only, "read_only_statement", gated)
    async with anyio.create_task_group() as tasks:
        refused: dict[str, Any] = {}

        async def big() -> None:
            refused.update(answer(await query(server, "2026-07-28", sql=largest_guarded_statement())))

        tasks.start_soon(big)
        await anyio.to_thread.run_sync(guarding.wait, HELD_FOR)
        async with Client(server.url, mode="2026-07-28") as other:
            status = await other.read_resource("auth://status")
        order.append("read")
        answered.set()
    assert status.contents and "authenticated" in status.contents[0].text
    assert order == ["read", "guarded"], "the other caller waited for the guard"
    assert refused["error"] == "invalid_argument" and "othercat" in refused["message"], refused
    assert not [call for call in aws_calls if call.startswith("athena:")], dict(aws_calls)  # auth://status: STS


@pytest.mark.parametrize("shape", ["in_list", "dotted", "columns"])
async def test_the_worst_shapes_are_refused_with_advice_before_parsing(server: ServerThread, demo_caller: DemoAccount,
                                                                      aws_calls: Counter[str], shape: str) -> None:
    sql = past_the_guards_reach(shape)
    assert 200_000 < len(sql.encode()) <= read_only.MAX_SQL_BYTES
    got = answer(await query(server, "2026-07-28", sql=sql))
    assert got["error"] == "invalid_argument" and f"more than {MAX_TOKENS:,}" in got["message"], got
    assert "IN list" in got["details"][0] and "table" in got["details"][0]
    assert not aws_calls, f"refused, yet called {dict(aws_calls)}"
