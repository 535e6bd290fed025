"""IAM's request budget (issue 45 item 2): permissions://recommendations against the bench's account (benchmarks/
fanout.py's seeding: 100 buckets, 40 workgroups, 202 tables, read as an IAM user) asks AWS no question twice within a
read and makes at most half of the 960 requests it made when every table explainer asked everything again; the
caller's policy documents are kept across reads; a throttled simulation, retried as botocore's standard mode does,
is `unknown` with `retryable: true`, never a failed read nor a verdict. Counted below botocore's retries (a
`before-send` hook: every attempt that would reach AWS), read through MCP over HTTP."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp.reading.call_memo import ACROSS_READS, KEPT
from aws_data_mcp_demo.emulator.extensions import BUCKET_REGIONS
from support.faults import AwsFaults
from support.reading import reset_moto
from support.servers import ServerThread, free_port
from test_performance_page import benchmark_module

pytestmark = [pytest.mark.anyio]
BEFORE = 960
"""Requests of one read against this account before each question was asked once per read (2026-12-02)."""


class RequestLog:
    """Every request's first attempt (operation, method, URL, body, JSON target), as the emulator receives it: a
    retry of the same call (botocore's `amz-sdk-request: attempt=2`, after a throttle or a 500) is not a question
    asked again."""

    def __init__(self, session: Any) -> None:
        self.seen: Counter[tuple[str, str, str, bytes, str]] = Counter()
        session.events.register("before-send", self._record)

    def _record(self, event_name: str, request: Any, **_: Any) -> None:
        attempt = request.headers.get("amz-sdk-request", b"attempt=1;")
        if not (attempt.decode() if isinstance(attempt, bytes) else attempt).startswith("attempt=1;"):
            return
        body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
        self.seen[(event_name.split(".", 1)[1], request.method, request.url, body,
                   str(request.headers.get("X-Amz-Target", "")))] += 1

    def repeated(self) -> list[tuple[str, int]]:
        return [(key[0] + " " + key[2], count) for key, count in self.seen.items() if count > 1]


@pytest.fixture(scope="module")
def bench_account(moto_endpoint: str) -> Iterator[str]:
    reset_moto()
    fanout = benchmark_module("fanout")
    with pytest.MonkeyPatch.context() as patch:
        # the bench's caller (an IAM user with a policy), in the account the 960 requests were counted on
        for name, value in fanout._seed(moto_endpoint, many_partitions=False).items():
            patch.setenv(name, value)
        for extension in BUCKET_REGIONS:  # as the bench's emulator: S3 names each bucket's region in its listing
            patch.setattr(extension.owner, extension.name, extension.replacement)
        local_chain.reset()
        yield fanout.EXPLAINED_WORKGROUP
    local_chain.reset()
    reset_moto()


@pytest.fixture(scope="module")
def server(bench_account: str) -> Iterator[ServerThread]:
    settings = Settings(mode="local", port=free_port(), cache_ttl_seconds=0, query_workgroups=(bench_account,),
                        request_timeout_seconds=120, response_char_budget=1_000_000)
    with ServerThread(settings) as running:
        yield running


async def _read(url: str, uri: str) -> dict[str, Any]:
    async with Client(url, mode="2026-07-28") as client:
        return json.loads((await client.read_resource(uri)).contents[0].text)


async def test_no_question_twice_within_a_read_and_at_most_half_the_requests(server: ServerThread) -> None:
    KEPT.clear()  # a cold container: the caller's policies are read too
    log = RequestLog(local_chain.session())
    advice = await _read(server.url, "permissions://recommendations")
    assert advice["explained"]["tables"] > 0
    assert log.repeated() == [], [(key[0], key[3][:400], count) for key, count in log.seen.items() if count > 1]
    made = sum(log.seen.values())
    assert made <= BEFORE // 2, Counter(key[0] for key in log.seen)
    kept = {f"iam.{operation}" for operation in ACROSS_READS}
    assert [key for key in log.seen if key[0] in kept]  # the explainers read the caller's policies, once each

    log.seen.clear()  # a warm container, the next read: the caller's policy documents are kept
    await _read(server.url, "permissions://recommendations")
    assert [key for key in log.seen if key[0] in kept] == []  # the caller's policy reads: none asked again
    assert log.repeated() == []


async def test_a_throttled_simulation_is_unknown_and_retryable(server: ServerThread) -> None:
    faults = AwsFaults(local_chain.session())
    faults.throttle("iam.SimulatePrincipalPolicy")  # every attempt: botocore's retries cannot get past it
    try:
        answer = await _read(server.url, "permissions://tables/sales/orders")  # answered: not a failed read
        advice = await _read(server.url, "permissions://recommendations")
    finally:
        faults._rules.clear()
    retryable = [r for r in advice["recommendations"] if r.get("retryable")]
    assert retryable and all("is unverified" in r["finding"] and r["severity"] == "info" for r in retryable)
    simulated = [entry for links in answer["workgroups"].values() for entry in links
                 if entry["check"] == "athena:StartQueryExecution"]
    assert simulated and all(entry["verdict"] == "unknown" and entry["retryable"] is True for entry in simulated)
    assert answer["query"] == "unknown"  # neither allowed nor denied
    assert faults.calls["iam.SimulatePrincipalPolicy"] >= Settings().max_attempts  # retried before giving up
