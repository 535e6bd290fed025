"""Fan-out under an injected AWS latency (SPEC §8): run by `worker.py fanout` in a fresh process.

moto's server runs in this process, seeded like a busy account (100 buckets, 40 workgroups,
200 query executions). Every AWS attempt the server makes then waits `DELAY` seconds in a
botocore `before-send` hook before reaching moto, as a far-away endpoint would. Each
resource is read through the server's real read path with the result cache off, and its
wall time is set beside two baselines from the same run:

- sequential: the AWS calls the read made (counted by the same hook) x DELAY, what a
  one-call-at-a-time implementation costs;
- floor: the dependent waves of calls (each needs the one before) x DELAY, what an
  unbounded fan-out would cost.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

DELAY = 0.05
BUCKETS = 100
WORKGROUPS = 40
EXECUTIONS = 200
REGION = "us-east-1"


@dataclass(frozen=True)
class Scenario:
    uri: str
    waves: int
    """Dependent call waves on the critical path, e.g. ListWorkGroups -> GetWorkGroup is 2."""
    budget_s: float
    size: str


SCENARIOS = (
    Scenario("permissions://discover", 4, 1.0, f"{BUCKETS} buckets"),
    Scenario("athena://workgroups", 2, 0.4, f"{WORKGROUPS} workgroups"),
    Scenario("athena://query/history?limit=200", 3, 0.5, f"{EXECUTIONS} executions"),
)


def _seed(endpoint: str) -> None:
    import boto3

    session = boto3.Session(aws_access_key_id="bench", aws_secret_access_key="bench", region_name=REGION)
    s3 = session.client("s3", endpoint_url=endpoint)
    for index in range(BUCKETS):
        bucket = f"bench-bucket-{index:03d}"
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="data/part-0000.csv", Body=b"id,value\n1,2\n")
    athena = session.client("athena", endpoint_url=endpoint)
    for index in range(WORKGROUPS - 1):  # plus "primary"
        athena.create_work_group(Name=f"bench-wg-{index:02d}", Configuration={
            "ResultConfiguration": {"OutputLocation": f"s3://bench-bucket-000/wg-{index:02d}/"}})
    for index in range(EXECUTIONS):
        athena.start_query_execution(QueryString=f"SELECT {index}", WorkGroup=f"bench-wg-{index % 8:02d}",
                                     ResultConfiguration={"OutputLocation": "s3://bench-bucket-000/q/"})


def measure(repeats: int) -> dict[str, Any]:
    import anyio
    from moto.server import ThreadedMotoServer

    from aws_data_mcp.app import create_server
    from aws_data_mcp.config import Settings
    from aws_data_mcp.demo.account import install_moto_extensions
    from aws_data_mcp.identity import local_chain

    install_moto_extensions()  # BatchGetQueryExecution, Athena's paging: what moto lacks
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        os.environ.update(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                          AWS_DEFAULT_REGION=REGION, AWS_REGION=REGION)
        _seed(endpoint)
        settings = Settings(mode="local", cache_ttl_seconds=0, region=REGION)
        mcp = create_server(settings)
        calls: Counter[str] = Counter()
        lock = threading.Lock()

        def far_away(event_name: str, **_: Any) -> None:
            with lock:
                calls[event_name.split(".", 1)[1]] += 1
            time.sleep(DELAY)

        local_chain.reset()
        local_chain.session().events.register("before-send", far_away)
        anyio.run(mcp.read, "auth://status", None)  # the caller's principal, resolved once per credentials
        results: dict[str, Any] = {}
        for scenario in SCENARIOS:
            walls: list[float] = []
            for _ in range(repeats):
                calls.clear()
                started = time.perf_counter()
                reading = anyio.run(mcp.read, scenario.uri, None)
                walls.append(time.perf_counter() - started)
            if '"error"' in reading.text[:200]:
                raise AssertionError(f"{scenario.uri} answered an error: {reading.text[:300]}")
            results[scenario.uri] = {"wall_s": sorted(walls), "calls": sum(calls.values()),
                                     "by_operation": dict(calls), "waves": scenario.waves,
                                     "budget_s": scenario.budget_s, "size": scenario.size,
                                     "chars": len(reading.text)}
        return {"delay_s": DELAY, "width": settings.fanout_width, "scenarios": results}
    finally:
        server.stop()
