"""Fixtures of the emulated account, for every test folder: what moto lacks of a real account's behaviour, filled
in per test.

- `small_pages`: IAM ListUsers and S3 ListBuckets page as AWS does (`moto_extensions.LISTING_PAGES`: moto
  answers them in one page whatever is asked), and the caller's session asks for small pages of users, roles and
  buckets, so every paginator really follows Marker / ContinuationToken.
- `slow_endpoint`: a proxy in front of moto that holds chosen operations before answering: an endpoint slower
  than the request's remaining time, at the socket, where botocore's timeouts apply.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp_demo.account.emulated import CONFLICTING_ENVIRONMENT, DemoAccount
from aws_data_mcp_demo.emulator.extensions import LISTING_PAGES
from aws_data_mcp_demo.engine import athena as athena_engine
from support.servers import ServerThread, demo_query_server
from support.slow_endpoint import SlowEndpoint

PAGES = {"iam.ListUsers": ("MaxItems", 20), "iam.ListRoles": ("MaxItems", 25), "s3.ListBuckets": ("MaxBuckets", 50)}
"""The page size the caller's session asks for, per operation: 50 users, 60 roles, 120 buckets take 3 pages."""


# --------------------------------------------------------------------------- pages

def _ask_for(key: str, size: int) -> Any:
    def small(params: dict[str, Any], **_: Any) -> None:
        params[key] = min(int(params.get(key, size)), size)

    return small


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Users, roles and buckets in pages of 20, 25 and 50 for the local caller (whose session every read uses)."""
    for extension in LISTING_PAGES:
        monkeypatch.setattr(extension.owner, extension.name, extension.replacement)
    session = local_chain.session()
    for operation, (key, size) in PAGES.items():
        session.events.register(f"before-parameter-build.{operation}", _ask_for(key, size))


# --------------------------------------------------------------------------- a slow endpoint

@pytest.fixture
def slow_endpoint() -> Iterator[SlowEndpoint]:
    endpoint = SlowEndpoint(os.environ["AWS_ENDPOINT_URL"])
    endpoint.thread.start()
    yield endpoint
    endpoint.release()
    endpoint.server.shutdown()
    endpoint.server.server_close()


# --------------------------------------------------------------------------- the demo account

@pytest.fixture(scope="module")
def demo() -> Iterator[DemoAccount]:
    """The seeded demo account, IAM enforced for its caller: one per process at a time, so one per module."""
    with DemoAccount() as account:
        yield account


@pytest.fixture(scope="module")
def demo_query_http(demo: DemoAccount) -> Iterator[ServerThread]:
    """A demo-mode HTTP server over the module's demo account whose query tool waits up to 10 s for a query."""
    with demo_query_server(query_wait_seconds=10) as running:
        yield running


@pytest.fixture(scope="module")
def demo_query_lambda(demo: DemoAccount) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A warm Lambda container in demo mode over the module's demo account, with the demo's query workgroups (the
    explainer and the query tool pick among the same ones on every path)."""
    from aws_data_mcp.config import Settings
    from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
    from support.events import load_event
    from support.servers import lambda_container

    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    return lambda_container(Settings(mode="demo", allowed_hosts=(host,), query_workgroups=QUERY_WORKGROUPS))


@pytest.fixture
def demo_caller(demo: DemoAccount, monkeypatch: pytest.MonkeyPatch) -> DemoAccount:
    """The local credential chain (reset before each test) acts as the demo caller, as `make demo` sets it up."""
    for name in CONFLICTING_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    for name, value in demo.caller_environment().items():
        monkeypatch.setenv(name, value)
    return demo


@pytest.fixture
def quick_queries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's Athena shows QUEUED and RUNNING for 50 ms each, so tests measure answers, not state delays."""
    monkeypatch.setattr(athena_engine, "PACING", athena_engine.Pacing(queued_seconds=0.05, running_seconds=0.05))
