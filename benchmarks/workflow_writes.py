"""Workflow updates from outside, against a slow shared DynamoDB: applied once each, whatever the network does.

    .venv/bin/python benchmarks/workflow_writes.py [--runs 3] [--calls 250] [--source DIR] [--step-ids] [--json]

Not a test (minutes per run) and not a ratio: a check from outside, as a user would make it. Two
`serve` processes share one table of an emulated DynamoDB: moto's server behind a small proxy on loopback that
makes every write slow (`WRITE_SECONDS`) and atomic (applied under one lock, as DynamoDB applies a conditional
write; one that cannot get its turn within `HOT_KEY_SECONDS` is throttled), and that now and then stalls one
(`STALL_SHARE`) past the servers' AWS call timeout before applying it: its answer comes too late, botocore sends
it again. Each process takes `--calls` concurrent `workflow_update_step` / `workflow_add_step` calls on one
workflow; the client retries only what a server answers as retryable. At the end (every write the proxy holds
applied), the workflow's version must be 1 + the successful calls, with no added step missing or twice there.

`--source DIR` serves another checkout's code (e.g. a `git worktree` of the commit before the fix) against the same
emulator; `--step-ids` has the client name its added steps (then even a blind retry cannot add one twice).
Everything is bounded: `RUN_SECONDS` per run, `MAX_TRIES` per call, the processes killed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WRITE_SECONDS = 0.1
"""Every PutItem/DeleteItem waits this long before the table applies it (reads: `READ_SECONDS`)."""
READ_SECONDS = 0.02
WRITES = frozenset({"PutItem", "DeleteItem", "UpdateItem"})
HOT_KEY_SECONDS = 1.0
"""A write that waited this long for its turn is throttled (`ThrottlingException`, not applied), as DynamoDB
refuses writes beyond what one item takes instead of queueing them; reads never wait for writes."""
STALL_SHARE = 0.04
STALL_SECONDS = (5.05, 6.0)
"""A stalled write is applied after a random time in this range: past the servers' 5 s AWS call timeout."""
RUN_SECONDS = 900
MAX_TRIES = 60
CLIENT_CONNECTIONS = 90
"""Per server: below `serve`'s 100 connections, so the calls queue in the client instead of being refused."""
OWNER_TABLE = "aws-data-mcp-workflows-outside"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited ({process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not start")


# --------------------------------------------------------------------------- the slow, atomic table


class SlowTable:
    """A proxy to moto's server: writes slow and applied one at a time; `in_flight` counts requests it holds."""

    def __init__(self, target_port: int, seed: int) -> None:
        self.target_port = target_port
        self.random = random.Random(seed)
        self.apply_lock = threading.Lock()
        self.count_lock = threading.Lock()
        self.in_flight = 0
        self.counts: Counter[str] = Counter()
        self.server = _QuietServer(("127.0.0.1", 0), _Relay)
        self.server.daemon_threads = True
        self.server.table = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def delay(self, operation: str) -> float:
        if operation not in WRITES:
            return READ_SECONDS
        with self.count_lock:
            stalled = self.random.random() < STALL_SHARE
            seconds = self.random.uniform(*STALL_SECONDS) if stalled else WRITE_SECONDS
            self.counts["stalled" if stalled else "written"] += 1
        return seconds

    def relay(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        upstream = http.client.HTTPConnection("127.0.0.1", self.target_port, timeout=60)
        try:
            upstream.request("POST", path, body=body, headers=headers)
            answer = upstream.getresponse()
            return answer.status, answer.getheaders(), answer.read()
        finally:
            upstream.close()

    def quiet(self, within: float = 30.0) -> bool:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self.count_lock:
                if self.in_flight == 0:
                    return True
            time.sleep(0.1)
        return False

    def close(self) -> None:
        self.server.shutdown()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A caller that closed its connection (botocore after a read timeout) is no error of the table's."""


class _Relay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # DynamoDB's protocol is POST only
        table: SlowTable = self.server.table  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        operation = str(self.headers.get("X-Amz-Target") or "").rsplit(".", 1)[-1]
        with table.count_lock:
            table.in_flight += 1
        try:
            time.sleep(table.delay(operation))
            if operation in WRITES:  # atomic: one write at a time reaches the table, whole
                if table.apply_lock.acquire(timeout=HOT_KEY_SECONDS):
                    try:
                        status, headers, content = table.relay(self.path, body, dict(self.headers))
                    finally:
                        table.apply_lock.release()
                else:  # as DynamoDB does with a hot item: refused, not applied (a 400, retried by botocore)
                    table.counts["throttled"] += 1
                    status, headers, content = 400, [("x-amzn-errortype", "ThrottlingException"),
                                                     ("content-type", "application/x-amz-json-1.0")], json.dumps(
                        {"__type": "ThrottlingException", "message": "hot item"}).encode()
            else:
                status, headers, content = table.relay(self.path, body, dict(self.headers))
            try:
                self.send_response(status)
                for name, value in headers:
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
            except OSError:
                pass  # the caller gave up waiting (its read timed out): the write is applied all the same
        finally:
            with table.count_lock:
                table.in_flight -= 1

    def log_message(self, *_: Any) -> None:
        pass


# --------------------------------------------------------------------------- the two servers


def server_environment(moto: str, table: SlowTable, table_name: str, source: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AWS_DATA_MCP_"))}
    env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_REGION="us-east-1",
               AWS_DEFAULT_REGION="us-east-1", AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
               AWS_ENDPOINT_URL=moto, AWS_ENDPOINT_URL_DYNAMODB=table.url, AWS_DATA_MCP_WORKFLOW_STORE="dynamodb",
               AWS_DATA_MCP_WORKFLOW_TABLE=table_name, POWERTOOLS_LOG_LEVEL="ERROR")
    if source is not None:
        env["PYTHONPATH"] = str(source / "functions")
    return env


def start_servers(env: dict[str, str], count: int, logs: Path) -> list[tuple[subprocess.Popen[bytes], int]]:
    servers = []
    for index in range(count):
        port = free_port()
        log = (logs / f"serve-{index}.log").open("wb")
        process = subprocess.Popen([sys.executable, "-m", "aws_data_mcp", "serve", "--no-token", "--port", str(port)],
                                   env=env, cwd=logs, stdout=log, stderr=subprocess.STDOUT)
        servers.append((process, port))
    for process, port in servers:
        wait_for_port(port, process, "serve")
    return servers


# --------------------------------------------------------------------------- the client


@dataclass
class Tally:
    succeeded: int = 0
    unknown: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    retries: int = 0
    retried_codes: Counter[str] = field(default_factory=Counter)
    added: list[str] = field(default_factory=list)
    """Titles (or step ids) of the steps whose addition answered success."""


async def call(client: Any, url: str, name: str, arguments: dict[str, Any], tally: Tally) -> dict[str, Any] | None:
    """One tool call, retried while (and only while) the server answers it as retryable."""
    import httpx2

    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    for attempt in range(MAX_TRIES):
        if attempt:
            tally.retries += 1
            await asyncio.sleep(random.uniform(0.2, 1.0))
        try:
            answer = await client.post(url, json=body, headers=headers, timeout=120)
        except httpx2.TransportError as exc:  # the server may have taken it: not retried, counted apart
            tally.failed.append({"tool": name, "arguments": arguments, "answer": f"transport: {exc!r}"})
            return None
        if answer.status_code == 503:  # uvicorn's connection cap: the request was not taken
            tally.retried_codes["http-503"] += 1
            continue
        result = answer.json()["result"]
        content = result["structuredContent"]
        if not result.get("isError"):
            return content
        if content.get("retryable"):
            tally.retried_codes[content["error"]] += 1
            continue
        if content.get("outcome") == "unknown":
            tally.unknown.append({"tool": name, "arguments": arguments, "answer": content})
        else:
            tally.failed.append({"tool": name, "arguments": arguments, "answer": content})
        return None
    tally.failed.append({"tool": name, "arguments": arguments, "answer": "gave up retrying"})
    return None


async def one_process(url: str, process: int, calls: int, workflow_id: str, step_ids: bool, tally: Tally) -> None:
    import httpx2

    # A connection per call: a kept-alive one that the server closes as idle just as a call goes out would fail
    # that call at the transport, where the client cannot tell whether the server took it.
    limits = httpx2.Limits(max_connections=CLIENT_CONNECTIONS, max_keepalive_connections=0)
    async with httpx2.AsyncClient(limits=limits) as client:
        async def one(index: int) -> None:
            if index % 6 == 5:
                title = f"p{process} step {index}"
                arguments: dict[str, Any] = {"workflow_id": workflow_id, "title": title}
                if step_ids:
                    arguments["step_id"] = f"p{process}-{index}"
                if await call(client, url, "workflow_add_step", arguments, tally) is not None:
                    tally.succeeded += 1
                    tally.added.append(title)
            else:
                arguments = {"workflow_id": workflow_id, "step_id": f"s{process + 1}", "status": "in_progress",
                             "note": f"{process}:{index}"}
                if await call(client, url, "workflow_update_step", arguments, tally) is not None:
                    tally.succeeded += 1

        await asyncio.gather(*(one(index) for index in range(calls)))


async def create_workflow(url: str) -> str:
    import httpx2

    async with httpx2.AsyncClient() as client:
        tally = Tally()
        created = await call(client, url, "workflow_create", {"name": "Contended", "steps": ["one", "two"]}, tally)
    if created is None:
        raise RuntimeError(f"workflow_create failed: {tally.failed or tally.unknown}")
    return str(created["workflow"]["id"])


def stored_workflow(moto: str, table_name: str, workflow_id: str) -> dict[str, Any]:
    """The item as the table holds it, read from moto directly (not through either server)."""
    import boto3

    dynamodb = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=moto, aws_access_key_id="testing",
                            aws_secret_access_key="testing")
    items = [item for page in dynamodb.get_paginator("scan").paginate(TableName=table_name)
             for item in page["Items"] if item["sk"]["S"] == workflow_id]
    if len(items) != 1:
        raise RuntimeError(f"{len(items)} items for the workflow")
    return dict(json.loads(items[0]["body"]["S"]))


def create_table(moto: str, name: str) -> None:
    import boto3

    boto3.client("dynamodb", region_name="us-east-1", endpoint_url=moto, aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])


@dataclass
class Outcome:
    run: int
    seconds: float
    calls: int
    succeeded: int
    version: int
    expected_version: int
    steps: int
    expected_steps: int
    missing: list[str]
    duplicated: list[str]
    retries: int
    retried_codes: dict[str, int]
    unknown: int
    unknown_landed_adds: int
    failed: int
    writes: dict[str, int]
    updates_per_second: float

    @property
    def exact(self) -> bool:
        """Every write applied once: the version is 1 + the successful calls (so no call answered "unknown" landed
        either), and no added step is missing or there twice."""
        return (self.version == self.expected_version and not self.missing and not self.duplicated
                and not self.failed)


def run_once(run: int, calls: int, source: Path | None, step_ids: bool, logs: Path) -> Outcome:
    moto_port = free_port()
    moto_process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    servers: list[tuple[subprocess.Popen[bytes], int]] = []
    table = None
    try:
        wait_for_port(moto_port, moto_process, "moto")
        moto = f"http://127.0.0.1:{moto_port}"
        table_name = f"{OWNER_TABLE}-{run}"
        create_table(moto, table_name)
        table = SlowTable(moto_port, seed=run)
        servers = start_servers(server_environment(moto, table, table_name, source), 2, logs)
        urls = [f"http://127.0.0.1:{port}/mcp" for _, port in servers]
        workflow_id = asyncio.run(create_workflow(urls[0]))
        tallies = [Tally(), Tally()]
        started = time.monotonic()

        async def both() -> None:
            processes = (one_process(url, index, calls, workflow_id, step_ids, tally)
                         for index, (url, tally) in enumerate(zip(urls, tallies, strict=True)))
            await asyncio.wait_for(asyncio.gather(*processes), RUN_SECONDS)

        asyncio.run(both())
        seconds = time.monotonic() - started
        if not table.quiet():
            raise RuntimeError("the slow table still holds requests 30 s after the last answer")
        final = stored_workflow(moto, table_name, workflow_id)
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        moto_process.terminate()
        try:
            moto_process.wait(10)
        except subprocess.TimeoutExpired:
            moto_process.kill()
        if table is not None:
            table.close()
    titles = Counter(step["title"] for step in final["steps"])
    added = {title for tally in tallies for title in tally.added}
    unknown_adds = {u["arguments"]["title"] for tally in tallies for u in tally.unknown if "title" in u["arguments"]}
    succeeded = sum(tally.succeeded for tally in tallies)
    return Outcome(
        run=run, seconds=round(seconds, 1), calls=2 * calls, succeeded=succeeded, version=final["version"],
        expected_version=1 + succeeded, steps=len(final["steps"]), expected_steps=2 + len(added),
        missing=sorted(added - set(titles)), duplicated=sorted(t for t, n in titles.items() if n > 1),
        retries=sum(t.retries for t in tallies),
        retried_codes=dict(sum((t.retried_codes for t in tallies), Counter())),
        unknown=sum(len(t.unknown) for t in tallies), unknown_landed_adds=len(unknown_adds & set(titles)),
        failed=sum(len(t.failed) for t in tallies), writes=dict(table.counts),
        updates_per_second=round((final["version"] - 1) / seconds, 2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=250, help="concurrent calls per serve process")
    parser.add_argument("--source", type=Path, default=None, help="serve this checkout's functions/ instead")
    parser.add_argument("--step-ids", action="store_true", help="the client names the steps it adds")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/aws-data-mcp-workflow-writes"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.source is not None and not (args.source / "functions" / "aws_data_mcp").is_dir():
        parser.error(f"--source {args.source}: no functions/aws_data_mcp there")
    args.logs.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for run in range(1, args.runs + 1):
        outcome = run_once(run, args.calls, args.source, args.step_ids, args.logs)
        outcomes.append(outcome)
        print(f"run {run}: {'EXACT' if outcome.exact else 'WRONG'} version {outcome.version} (expected "
              f"{outcome.expected_version} = 1 + {outcome.succeeded} successful of {outcome.calls}); steps "
              f"{outcome.steps} (expected {outcome.expected_steps}), {len(outcome.missing)} missing, "
              f"{len(outcome.duplicated)} duplicated; {outcome.retries} retries {outcome.retried_codes}; "
              f"{outcome.unknown} outcome unknown ({outcome.unknown_landed_adds} of them adds that landed); "
              f"{outcome.failed} failed; {outcome.seconds} s, {outcome.updates_per_second} updates/s; "
              f"table writes {outcome.writes}", flush=True)
    if args.json:
        print(json.dumps([{**asdict(o), "exact": o.exact} for o in outcomes], indent=2))
    return 0 if all(o.exact for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
