"""First reads vs warm ones: run by `worker.py first` in a fresh process.

A user's first read of an AWS-backed resource pays for what later reads reuse: the credential chain and who it
belongs to (STS), and each service's client (botocore parses the service's model and endpoint rules). moto's
server, in a process of its own and seeded with a few Athena query executions, answers every call; each sample is
a fresh interpreter (`python first_read.py child ...`) that builds the server (not timed: module init, or
Lambda's init phase), then times, with the result cache off:

- first: the first read of `athena://query/history`;
- warm: the same read again (the baseline, in the same process);
- new caller: the read once more with a new session (hosted, every caller has one), its principal asked again;

once as a cold start runs (`lazy`) and once after the warm-up an init phase no request waits on does (`init`:
SnapStart's, provisioned concurrency's, see handler.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import fanout
import harness

URI = "athena://query/history"
EXECUTIONS = 20


def _seed(endpoint: str) -> None:
    import boto3

    session = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=fanout.REGION)
    session.client("s3", endpoint_url=endpoint).create_bucket(Bucket="bench-results")
    athena = session.client("athena", endpoint_url=endpoint)
    for index in range(EXECUTIONS):
        athena.start_query_execution(QueryString=f"SELECT {index}",
                                     ResultConfiguration={"OutputLocation": "s3://bench-results/q/"})


def child(warm_up: bool) -> dict[str, float]:
    """In a fresh interpreter: build the server, then time the first, a warm and a new caller's read."""
    import anyio

    from aws_data_mcp import aws
    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.identity.resolve import local_chain

    settings = Settings(mode="local", cache_ttl_seconds=0, region=fanout.REGION)
    server = create_server(settings)
    if warm_up:
        server.prepare_tools()
        aws.warm_up(settings)
    timed: dict[str, float] = {}
    for name in ("first", "warm", "new_caller"):
        if name == "new_caller":
            local_chain.reset()
        started = time.perf_counter()
        reading = anyio.run(server.read, URI, None)
        timed[name] = time.perf_counter() - started
        if '"executions"' not in reading.text[:2000] or '"error"' in reading.text[:200]:
            raise AssertionError(f"{URI} answered: {reading.text[:300]}")
    return timed


def measure(samples: int) -> dict[str, Any]:
    server, endpoint = fanout._start_moto()
    try:
        _seed(endpoint)
        env = harness.child_environment() | {"AWS_DATA_MCP_MODE": "local", "AWS_ENDPOINT_URL": endpoint,
                                             "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}
        results: dict[str, list[dict[str, float]]] = {"lazy": [], "init": []}
        for index in range(samples):
            for kind in ("lazy", "init") if index % 2 else ("init", "lazy"):
                done = subprocess.run([sys.executable, __file__, "child", kind], env=env, cwd=harness.ROOT,
                                      capture_output=True, text=True, timeout=300, check=False)
                if done.returncode != 0:
                    raise RuntimeError(f"first-read child failed:\n{done.stderr[-2000:]}")
                results[kind].append(json.loads(done.stdout.strip().splitlines()[-1]))
        return {"uri": URI, "executions": EXECUTIONS, "samples": results}
    finally:
        server.kill()


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    result_fd = harness.swallow_output()
    with os.fdopen(result_fd, "w") as out:
        out.write(json.dumps(child(sys.argv[2] == "init")) + "\n")
