"""The read-only guard's own time, beside the cheapest AWS call there is, measured in the same process.

The guard runs before any AWS call, so its promise is that a refusal costs less than the call it saves. The
baseline is one `athena:GetWorkGroup` (the tool's first AWS call) against moto in this process: no network, no
TLS, so a real call costs far more and the ratio here is the guard's worst case.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

TYPICAL = ("SELECT c.customer_id, c.name, sum(o.total_amount) AS spent /* last quarter */ FROM orders o "
           "JOIN customers c ON o.customer_id = c.customer_id WHERE o.order_date >= DATE '2026-01-01' "
           "GROUP BY 1, 2 ORDER BY spent DESC LIMIT 10 -- top ten")
TRICK = "SHOW TABLES /* /* */ ; DROP TABLE orders -- */"
_CHUNK = "SELECT order_id, 'a -- b /* c */', \"col\" FROM orders WHERE total_amount > 10 UNION ALL\n"


def large_statement(size: int) -> str:
    """A read of about `size` bytes: many small SELECTs joined by UNION ALL, with literals and comments."""
    repeats = max(1, (size - 20) // len(_CHUNK))
    return _CHUNK * repeats + "SELECT 1, '', \"col\" FROM orders"


def _median_seconds(call: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def _guard(sql: str) -> Callable[[], Any]:
    from aws_data_mcp.errors import ResourceFailure
    from aws_data_mcp.guard.read_only import read_only_statement

    def run() -> Any:
        try:
            return read_only_statement(sql)
        except ResourceFailure as refusal:
            return refusal

    return run


def measure(repeats: int) -> dict[str, Any]:
    """Median seconds of the guard on each statement and of one moto GetWorkGroup, alternating in blocks."""
    import boto3
    from moto import mock_aws

    statements = {"typical": TYPICAL, "trick": TRICK, "large_256k": large_statement(255_000),
                  "over_limit_300k": large_statement(300_000)}
    with mock_aws():
        athena = boto3.client("athena", region_name="us-east-1")
        athena.create_work_group(Name="bench")
        aws = _median_seconds(lambda: athena.get_work_group(WorkGroup="bench"), repeats)
        timed = {name: _median_seconds(_guard(sql), repeats if len(sql) < 10_000 else max(3, repeats // 20))
                 for name, sql in statements.items()}
    return {"aws_call_s": aws, "guard_s": timed, "bytes": {name: len(sql.encode()) for name, sql in statements.items()}}


_FIRST_QUERY = """
import time
started = time.perf_counter()
from aws_data_mcp.guard.read_only import read_only_statement
imported = time.perf_counter()
read_only_statement({sql!r})
first = time.perf_counter()
read_only_statement({sql!r})
second = time.perf_counter()
print(imported - started, first - imported, second - first)
"""


def measure_first_query(runs: int = 5) -> dict[str, float]:
    """A fresh process's first guarded query (Trino's generated parser is imported on it) and its second, median
    seconds over `runs` processes: what the first athena_query of a new Lambda container pays for the grammar."""
    import subprocess
    import sys

    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _FIRST_QUERY.format(sql=TYPICAL)], capture_output=True,
                             text=True, check=True).stdout
        samples.append([float(value) for value in out.split()])
    imported, first, second = (statistics.median(column) for column in zip(*samples, strict=True))
    return {"import_s": imported, "first_s": first, "second_s": second}


def worst_shapes() -> dict[str, str]:
    """The issue's three worst shapes near Athena's 256 KB limit, and the largest statement the guard parses (an IN
    list just under its token cap, reading another catalog: parsed in full, then refused)."""
    from aws_data_mcp.guard.read_only import MAX_TOKENS

    largest = ("SELECT order_id FROM othercat.sales.orders WHERE order_id IN ("
               + ", ".join(str(value) for value in range((MAX_TOKENS - 40) // 2)) + ")")
    return {
        "in_list_130k": "SELECT * FROM orders WHERE order_id IN (" + ",".join(["1"] * 130_000) + ")",
        "dotted_130k": "SELECT " + ".".join(["a"] * 130_000) + " FROM orders",
        "columns_130k": "SELECT " + ",".join(["a"] * 130_000) + " FROM orders",
        "largest_parsed": largest,
    }


def measure_shapes(repeats: int = 3) -> dict[str, Any]:
    """Median seconds of the guard on each worst shape, in this process."""
    shapes = worst_shapes()
    return {"guard_s": {name: _median_seconds(_guard(sql), repeats) for name, sql in shapes.items()},
            "bytes": {name: len(sql.encode()) for name, sql in shapes.items()}}


def measure_stall(reads: int) -> dict[str, Any]:
    """Another caller's static read through `serve` over HTTP, idle, then while a second client sends the worst
    shapes to athena_query back to back (each guarded off the loop, then refused): median latency of each."""
    import asyncio
    import tempfile
    import threading
    from contextlib import AsyncExitStack

    import harness
    from local_http import MODES, TOKEN, HeldClients, sdk_client, start_serve, url_of

    revision = next(iter(MODES))
    shapes = list(worst_shapes().values())
    with tempfile.TemporaryDirectory() as state, asyncio.Runner() as runner:
        server, port = start_serve(state)
        try:
            held = HeldClients(runner, {"ours": (url_of(port), TOKEN)})
            read = lambda: held.read(f"ours/{revision}")  # noqa: E731
            for _ in range(20):
                read()
            idle = [_median_seconds(read, 1) for _ in range(reads)]
            stop, sent = threading.Event(), [0]

            async def flood() -> None:
                async with AsyncExitStack() as stack:
                    client = await sdk_client(stack, url_of(port), revision, TOKEN)
                    while not stop.is_set():
                        await client.call_tool("athena_query", {"sql": shapes[sent[0] % len(shapes)],
                                                                "database": "sales"})
                        sent[0] += 1

            flooding = threading.Thread(target=lambda: asyncio.run(flood()), daemon=True)
            flooding.start()
            while sent[0] == 0 and flooding.is_alive():
                read()
            busy = [_median_seconds(read, 1) for _ in range(reads)]
            stop.set()
            flooding.join(60)
            held.close()
        finally:
            server.kill()
    return {"idle_ms": harness.median(idle) * 1e3, "busy_ms": harness.median(busy) * 1e3,
            "statements_guarded": sent[0]}
