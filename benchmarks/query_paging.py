"""An Athena result paged as a user's client pages it: run by `worker.py query` in a fresh process.

Three processes: the emulated account (`DemoAccount`, whose Athena really runs the SQL over its lake's ORDER_ROWS
orders) and a workgroup with a cutoff above any query here, `aws-data-mcp serve` acting in it as the demo caller, and
this one, which times the SDK client over one kept-alive HTTP connection against a bare boto3 loop on the same
endpoint, as the same caller:

- first row: `athena_query` vs StartQueryExecution, GetQueryExecution on the tool's own poll schedule, then the
  first GetQueryResults page;
- paging: every row of one PAGED-row execution, through `athena://queries/{id}` and its `next_uri`s, vs
  GetQueryResults pages of 1000 (MaxResults) of the same execution, in alternating rounds;
- memory: the server's RSS (VmRSS) after every answer while ORDERS rows (each order COPIES times) are paged,
  against its RSS after the first answer.

The emulator's pacing (how long a query shows QUEUED, then RUNNING) is cut to PACING_SECONDS, so the figures
time the engine, the paging and our layers rather than a state delay.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack
from typing import Any

import harness
import local_http
from aws_data_mcp_demo.account.lake_data import ORDER_ROWS
from harness import REVISION_2025

COPIES = 4
ORDERS = ORDER_ROWS * COPIES
PAGED = 100_000
PACING_SECONDS = 0.01
WORKGROUP = "bench-paging"
CUTOFF_BYTES = 10**12
"""Above a full scan of ORDERS orders: the query guard passes, and no query here is cut."""
DATABASE = "sales"
COLUMNS = "order_id, items_count, total_amount"
"""A string, an integer and a decimal: typed in every answer, and 1000 rows fit the response budget."""
PAGED_SQL = f"SELECT {COLUMNS} FROM orders ORDER BY order_id LIMIT {PAGED}"
ALL_SQL = f"SELECT {COLUMNS} FROM orders CROSS JOIN UNNEST(sequence(1, {COPIES})) AS copies(n)"
"""ORDERS rows: the lake holds a quarter of a million orders, each answered COPIES times."""
ATHENA_PAGE = 1000


# --- the emulated account, in a process of its own ---------------------------------------------

def emulate() -> None:
    """Run the demo account with WORKGROUP; print the caller's environment once ready, and serve until stdin closes
    (so the account cleans up its files)."""
    import boto3
    from moto import settings

    from aws_data_mcp_demo.account.emulated import DemoAccount
    from aws_data_mcp_demo.account.seed_data import BUCKET_RESULTS
    from aws_data_mcp_demo.engine import athena as athena_engine

    athena_engine.PACING = athena_engine.Pacing(queued_seconds=PACING_SECONDS, running_seconds=PACING_SECONDS)
    with DemoAccount() as account:
        enforced = settings.INITIAL_NO_AUTH_ACTION_COUNT
        settings.INITIAL_NO_AUTH_ACTION_COUNT = float("inf")  # IAM off while the benchmark adds data as an admin
        try:
            admin = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=account.region)
            admin.client("athena", endpoint_url=account.endpoint_url).create_work_group(Name=WORKGROUP, Configuration={
                "ResultConfiguration": {"OutputLocation": f"s3://{BUCKET_RESULTS}/{WORKGROUP}/"},
                "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": CUTOFF_BYTES})
        finally:
            settings.INITIAL_NO_AUTH_ACTION_COUNT = enforced
        print(json.dumps(account.caller_environment()), flush=True)
        sys.stdin.read()


def _start_emulator(stack: ExitStack) -> dict[str, str]:
    """The emulated account's caller environment (endpoint, key, region), once it holds every order."""
    emulator = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=harness.child_environment(), cwd=harness.ROOT, text=True)

    def stop() -> None:
        assert emulator.stdin is not None
        emulator.stdin.close()
        try:
            emulator.wait(timeout=60)
        except subprocess.TimeoutExpired:
            emulator.kill()

    stack.callback(stop)
    assert emulator.stdout is not None
    ready = emulator.stdout.readline()
    if not ready:
        raise RuntimeError(f"the emulated account did not start (exit status {emulator.wait()})")
    caller: dict[str, str] = json.loads(ready)
    return caller


# --- ours: the SDK client and `serve` ----------------------------------------------------------

async def _athena_query(client: Any, sql: str) -> dict[str, Any]:
    result = await client.call_tool("athena_query", {"sql": sql, "database": DATABASE, "workgroup": WORKGROUP,
                                                     "wait_seconds": 20})
    answer: dict[str, Any] = json.loads(result.content[0].text)
    if result.is_error or answer.get("state") != "SUCCEEDED" or not answer["results"]["rows"]:
        raise AssertionError(f"athena_query did not answer rows: {result.content[0].text[:400]}")
    return answer


async def _answers(client: Any, execution_id: str) -> AsyncIterator[dict[str, Any]]:
    """The `results` of every answer of one execution, from its first page to its last."""
    uri: str | None = f"athena://queries/{execution_id}"
    while uri is not None:
        results: dict[str, Any] = json.loads((await client.read_resource(uri)).contents[0].text)["results"]
        yield results
        uri = results["next_uri"]


async def _ours_first_row(client: Any) -> tuple[float, str]:
    started = time.perf_counter()
    answer = await _athena_query(client, PAGED_SQL)
    return time.perf_counter() - started, answer["execution_id"]


async def _ours_pages(client: Any, execution_id: str) -> tuple[float, list[str], int]:
    """Seconds to read every row, the rows' order ids, and the answers it took."""
    order_ids: list[str] = []
    answers = 0
    started = time.perf_counter()
    async for results in _answers(client, execution_id):
        order_ids += [row[0] for row in results["rows"]]
        answers += 1
    return time.perf_counter() - started, order_ids, answers


# --- the baseline: boto3 on the same endpoint, as the same caller ------------------------------

def _bare_first_row(athena: Any) -> float:
    """StartQueryExecution, GetQueryExecution until it ends (athena_query's poll schedule), the first page."""
    from aws_data_mcp.query.tool import FINISHED, POLL_FIRST_SECONDS, POLL_MAX_SECONDS

    started = time.perf_counter()
    query_id = athena.start_query_execution(QueryString=PAGED_SQL, WorkGroup=WORKGROUP, QueryExecutionContext={
        "Database": DATABASE, "Catalog": "AwsDataCatalog"})["QueryExecutionId"]
    pause = POLL_FIRST_SECONDS
    while (state := athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"]["Status"]["State"]) \
            not in FINISHED:
        time.sleep(pause)
        pause = min(pause * 1.5, POLL_MAX_SECONDS)
    rows = athena.get_query_results(QueryExecutionId=query_id, MaxResults=ATHENA_PAGE)["ResultSet"]["Rows"]
    elapsed = time.perf_counter() - started
    if state != "SUCCEEDED" or len(rows) < 2:
        raise AssertionError(f"the bare loop's query ended {state} with {len(rows)} rows")
    return elapsed


def _athena_pages(athena: Any, execution_id: str) -> Iterator[list[dict[str, Any]]]:
    token: str | None = None
    while True:
        page = athena.get_query_results(QueryExecutionId=execution_id, MaxResults=ATHENA_PAGE,
                                        **({"NextToken": token} if token else {}))
        yield page["ResultSet"]["Rows"]
        token = page.get("NextToken")
        if not token:
            return


def _bare_pages(athena: Any, execution_id: str, with_state: bool = False) -> tuple[float, list[str], int]:
    """Seconds to read every row, the rows' order ids (the header row left out), and the pages it took.

    `with_state` adds a GetQueryExecution before each page, as every answer of the resource makes one: what
    is left between it and ours is our own layers and the transport."""
    order_ids: list[str] = []
    calls = 0
    started = time.perf_counter()
    for rows in _athena_pages(athena, execution_id):
        if with_state:
            athena.get_query_execution(QueryExecutionId=execution_id)
        order_ids += [row["Data"][0].get("VarCharValue") for row in rows]
        calls += 1
    return time.perf_counter() - started, order_ids[1:], calls


# --- the measurement ---------------------------------------------------------------------------

async def _memory(client: Any, server_pid: int) -> dict[str, Any]:
    """The server's RSS after the first answer of an ORDERS-row result and after every answer since."""
    execution_id = (await _athena_query(client, ALL_SQL))["execution_id"]
    rss: list[int] = []
    rows = 0
    async for results in _answers(client, execution_id):
        rows += results["returned"]
        rss.append(harness.current_rss_bytes(server_pid))
    if rows != ORDERS:
        raise AssertionError(f"paged {rows} rows of {ORDERS}")
    return {"rows": rows, "answers": len(rss), "start": rss[0], "peak": max(rss), "end": rss[-1]}


async def _measure(url: str, athena: Any, server_pid: int, rounds: int) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        client = await local_http.sdk_client(stack, url, REVISION_2025, local_http.TOKEN)
        await _ours_first_row(client)  # warm: the caller's credentials, the emulator's copies of the files
        await asyncio.to_thread(_bare_first_row, athena)
        first_row: dict[str, list[float]] = {"ours": [], "bare": []}
        execution_id = ""
        for round_index in range(rounds):
            for variant in ("ours", "bare") if round_index % 2 == 0 else ("bare", "ours"):
                if variant == "ours":
                    seconds, execution_id = await _ours_first_row(client)
                else:
                    seconds = await asyncio.to_thread(_bare_first_row, athena)
                first_row[variant].append(seconds)
        paging: dict[str, list[float]] = {"ours": [], "bare": [], "bare_with_state": []}
        requests: dict[str, int] = {}
        for round_index in range(rounds):
            for variant in list(paging) if round_index % 2 == 0 else reversed(list(paging)):
                if variant == "ours":
                    seconds, order_ids, requests[variant] = await _ours_pages(client, execution_id)
                else:
                    seconds, order_ids, requests[variant] = await asyncio.to_thread(
                        _bare_pages, athena, execution_id, variant == "bare_with_state")
                if len(order_ids) != PAGED or order_ids != sorted(order_ids):
                    raise AssertionError(f"{variant} paged {len(order_ids)} rows of {PAGED}, or out of order")
                paging[variant].append(seconds)
        memory = await _memory(client, server_pid)
    return {"first_row_s": first_row, "paging_s": paging, "requests": requests, "memory_bytes": memory}


def measure(rounds: int) -> dict[str, Any]:
    import boto3

    with ExitStack() as stack:
        caller = _start_emulator(stack)
        state = stack.enter_context(tempfile.TemporaryDirectory())
        server, port = local_http.start_serve(state, caller | {"AWS_DATA_MCP_QUERY_WORKGROUPS": WORKGROUP})
        stack.callback(server.kill)
        athena = boto3.Session(aws_access_key_id=caller["AWS_ACCESS_KEY_ID"],
                               aws_secret_access_key=caller["AWS_SECRET_ACCESS_KEY"],
                               region_name=caller["AWS_REGION"]).client("athena",
                                                                        endpoint_url=caller["AWS_ENDPOINT_URL"])
        result = asyncio.run(_measure(local_http.url_of(port), athena, server.pid, rounds))
    return result | {"orders": ORDERS, "paged_rows": PAGED, "pacing_s": PACING_SECONDS, "rounds": rounds}


if __name__ == "__main__":
    emulate()
