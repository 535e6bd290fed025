"""Shared fixtures: an isolated AWS environment (moto), the server over HTTP, and the real Lambda handler."""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.retries.standard import ExponentialBackoff

# Nothing in the suite may reach real AWS or read the developer's own profile.
for _name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL"):
    os.environ.pop(_name, None)
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_REGION="us-east-1",
    AWS_CONFIG_FILE="/dev/null",
    AWS_SHARED_CREDENTIALS_FILE="/dev/null",
    POWERTOOLS_SERVICE_NAME="aws-data-mcp",
)
os.environ.pop("AWS_DATA_MCP_MODE", None)

from moto import mock_aws  # noqa: E402

from aws_data_mcp.config import Settings  # noqa: E402
from aws_data_mcp.identity.resolve import local_chain  # noqa: E402
from aws_data_mcp_demo.emulator.endpoint import MotoEndpoint  # noqa: E402
from aws_data_mcp_demo.emulator.extensions import install_moto_extensions  # noqa: E402
from support.events import load_event  # noqa: E402
from support.faults import AwsFaults  # noqa: E402
from support.logs import RecordKeeper  # noqa: E402
from support.scheduling import ModuleScheduling  # noqa: E402
from support.servers import ServerThread, free_port, in_container, lambda_container  # noqa: E402

# The emulated account's fixtures (`demo`, `demo_caller`, `small_pages`, `slow_endpoint`), for every folder.
pytest_plugins = ["support.account_fixtures"]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """A run without what the views' browser tests need says so in one line (they skip)."""
    from support.browser import missing

    reason = missing()
    if reason:
        terminalreporter.write_line(reason)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> ModuleScheduling:
    """Whole modules (and groups of modules) to each worker: see `support.scheduling`."""
    return ModuleScheduling(config, log)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` is a worker more than the cores: much of the suite waits (demo processes starting, queries in
    their states, tokens expiring), and the extra worker runs another module meanwhile. xdist's own rule decides
    when PYTEST_XDIST_AUTO_NUM_WORKERS is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return (os.cpu_count() or 1) + 1


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, as the servers under test do."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def moto_endpoint() -> Iterator[str]:
    """Every boto3 call of the session goes to moto's server on loopback, never to AWS.

    The servers under test run in threads of this process and resolve the local
    credential chain, so `auth://status` through them is answered by moto's STS. werkzeug's line per request
    (INFO, through every handler of the root logger) is left out, as the demo leaves it out: a tenth of the
    CPU of a test that makes thousands of calls.
    """
    install_moto_extensions()  # what moto lacks of Athena (BatchGetQueryExecution, paging), as the demo has it
    werkzeug = logging.getLogger("werkzeug")
    werkzeug_level = werkzeug.level
    werkzeug.setLevel(logging.WARNING)
    server = MotoEndpoint(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{server._port}"
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    yield endpoint
    os.environ.pop("AWS_ENDPOINT_URL", None)
    server.stop()
    werkzeug.setLevel(werkzeug_level)


RETRY_BACKOFF_SCALE = 0.1
"""botocore's standard-mode backoff in the suite, as a share of the real one."""


@pytest.fixture(scope="session", autouse=True)
def _short_retry_backoff() -> Iterator[None]:
    """Throttled calls are retried after a tenth of botocore's backoff: still random and growing per attempt (the
    throttled buckets of one fan-out spread out in time as they do against AWS), without the suite sleeping."""
    real_delay = ExponentialBackoff.delay_amount
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExponentialBackoff, "delay_amount",
                      lambda self, context: real_delay(self, context) * RETRY_BACKOFF_SCALE)
        yield


@pytest.fixture(autouse=True)
def _fresh_local_chain() -> Iterator[None]:
    """Each test resolves the local credential chain from its own environment."""
    local_chain.reset()
    yield
    local_chain.reset()


@pytest.fixture
def aws() -> Iterator[None]:
    """moto's in-process AWS for one test."""
    with mock_aws():
        yield


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)


# The servers and the Lambda container are per module: each caches a caller's reads for 30 s, and every module
# reads as the same caller, so a module's answers must not come from what another module read before it.

@pytest.fixture(scope="module")
def http_server() -> Iterator[ServerThread]:
    """One local-mode server for the module (the default credential chain: the test's env)."""
    with ServerThread(Settings(mode="local", port=free_port())) as server:
        yield server


@pytest.fixture(scope="module")
def paged_http_server() -> Iterator[ServerThread]:
    """A server with a tiny page size, so cursors are exercised."""
    with ServerThread(Settings(mode="local", port=free_port(), list_page_size=3)) as server:
        yield server


@pytest.fixture(scope="module")
def budget_http_server() -> Iterator[ServerThread]:
    """A server with a small character budget, so large lists are cut into pages."""
    with ServerThread(Settings(mode="local", port=free_port(), response_char_budget=12_000)) as server:
        yield server


# --- The Lambda handler, driven with API Gateway events ---------------------------------------

@pytest.fixture(scope="session")
def lambda_handler() -> Callable[[Any], dict[str, Any]]:
    """The real Lambda entry (`aws_data_mcp.handler.lambda_handler`), one warm container for the session."""
    from aws_data_mcp.handler import lambda_handler as handler

    return in_container(handler)


@pytest.fixture(scope="module")
def local_lambda_handler() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The event -> Mangum -> app path with the local credential chain, for resources that read AWS, one warm
    container per module.

    Hosted mode refuses every AWS read until a caller is resolved from API Gateway's context.
    """
    event_host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    return lambda_container(Settings(mode="local", allowed_hosts=(event_host,)))


# --- Faults and call counting, injected into the caller's own boto3 session --------------------

@pytest.fixture
def aws_faults() -> Iterator[AwsFaults]:
    """Faults and call counts for the local credential chain's session (the one every local read uses); the calls
    it holds are let go at the end of the test."""
    faults = AwsFaults(local_chain.session())
    yield faults
    faults.release()


@pytest.fixture
def aws_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every AWS API call made in the process from now on, by operation: data calls and STS alike."""
    import botocore.client

    seen: Counter[str] = Counter()
    original = botocore.client.BaseClient._make_api_call

    def counted(self: Any, operation: str, params: Any) -> Any:
        seen[f"{self.meta.service_model.service_name}:{operation}"] += 1
        return original(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counted)
    return seen


# --- Log records of the whole process ---------------------------------------------------------

@pytest.fixture
def log_records() -> Iterator[RecordKeeper]:
    """Every log record of the server's own logger, of the libraries it routes through it (which no longer reach
    the root logger) and of every other library (root), while the test runs."""
    from aws_data_mcp.observability import LIBRARY_LOGGERS, logger

    keeper = RecordKeeper()
    targets = [logger._logger, logging.getLogger(), *(logging.getLogger(name) for name in LIBRARY_LOGGERS)]
    for target in targets:
        target.addHandler(keeper)
    try:
        yield keeper
    finally:
        for target in targets:
            target.removeHandler(keeper)
