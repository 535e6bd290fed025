"""Isolation: callers of different roles, interleaved through one warm handler and concurrently through one HTTP
app, each see only themselves, and no cache (exchanged credentials, boto3 clients, results) ever crosses.

The concurrent runs drive the real ASGI app (`create_http_app`) the way Mangum does on Lambda, with API Gateway
payload 2.0 events, but many requests at once on one event loop, with the results cache on. Every AWS call is
attributed to the access key that signed it: a caller's data calls are signed with its own exchanged credentials,
never another caller's and never the function's.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mangum import Mangum
from mangum.protocols import HTTPCycle

from aws_data_mcp.app import create_http_app
from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.exchange import exchanges
from aws_data_mcp.transport.lambda_context import LocalLambdaContext
from support.events import body_json
from support.faults import AwsFaults
from support.servers import lambda_container

from .hosted_support import (
    ACCOUNT,
    IAM,
    OIDC,
    iam_event,
    oidc_event,
    read,
    status_of,
)

Event = dict[str, Any]
ASSUMED = f"arn:aws:sts::{ACCOUNT}:assumed-role"
IAM_CALLERS: dict[str, Callable[[str], Event]] = {
    f"{ASSUMED}/DataAnalyst/alice": lambda uri: iam_event("DataAnalyst", "alice", uri=uri),
    f"{ASSUMED}/DataAdmin/bob": lambda uri: iam_event("DataAdmin", "bob", uri=uri),
    f"{ASSUMED}/Contractor/carol": lambda uri: iam_event("Contractor", "carol", uri=uri),
}
OIDC_CALLERS: dict[str, Callable[[str], Event]] = {
    f"{ASSUMED}/DataAnalyst/dana": lambda uri: oidc_event("dana", ["analysts"], uri=uri),
    f"{ASSUMED}/DataAdmin/erin": lambda uri: oidc_event("erin", ["admins"], uri=uri),
    f"{ASSUMED}/Contractor/frank": lambda uri: oidc_event("frank", ["contractors"], uri=uri),
}
MODES: dict[str, tuple[Settings, dict[str, Callable[[str], Event]]]] = {"iam": (IAM, IAM_CALLERS),
                                                                        "oidc": (OIDC, OIDC_CALLERS)}
NAMING = "permissions://discover"
"""Cached per caller and names its caller: a results cache that crossed would hand one caller another's name."""
CACHED = "auth://catalog/info"


@pytest.fixture
def signed_by() -> Iterator[Counter[tuple[str, str]]]:
    """Every AWS API call of the process as (access key that signed it, service:operation)."""
    import botocore.client

    seen: Counter[tuple[str, str]] = Counter()
    original = botocore.client.BaseClient._make_api_call

    def counted(self: Any, operation: str, params: Any) -> Any:
        credentials = self._request_signer._credentials
        key = credentials.get_frozen_credentials().access_key if credentials is not None else "-"
        seen[(key, f"{self.meta.service_model.service_name}:{operation}")] += 1
        return original(self, operation, params)

    botocore.client.BaseClient._make_api_call = counted
    try:
        yield seen
    finally:
        botocore.client.BaseClient._make_api_call = original


def principals_by_key() -> dict[str, str]:
    """Each exchanged caller's access key id -> the principal it acts as."""
    found = {}
    for _until, caller in exchanges._entries.values():
        assert caller.session is not None and caller.principal_arn is not None
        found[caller.session.get_credentials().get_frozen_credentials().access_key] = caller.principal_arn
    return found


async def _invoke(app: Any, adapter: Mangum, event: Event) -> dict[str, Any]:
    """One API Gateway event through the app as Mangum runs it, but awaited, so many share one event loop."""
    handler = adapter.infer(event, LocalLambdaContext())
    cycle = HTTPCycle(handler.scope, handler.body)
    await cycle.run(app)
    return handler({"status": cycle.status, "headers": cycle.headers, "body": cycle.body})  # type: ignore[no-any-return]


def concurrently(settings: Settings, waves: list[list[Event]],
                 between: Callable[[], None] = lambda: None) -> list[list[dict[str, Any]]]:
    """Each wave's events through one app (one results cache) all at once, `between` after each wave; the answers
    in order."""
    app = create_http_app(settings)
    adapter = Mangum(app, lifespan="off")

    async def run() -> list[list[dict[str, Any]]]:
        answers = []
        try:
            for wave in waves:
                answers.append(list(await asyncio.gather(*(_invoke(app, adapter, event) for event in wave))))
                between()
            return answers
        finally:
            await app.aclose()

    return asyncio.run(run())


def document(response: dict[str, Any]) -> dict[str, Any]:
    answer = body_json(response)
    assert "result" in answer, answer
    return json.loads(answer["result"]["contents"][0]["text"])  # type: ignore[no-any-return]


@pytest.mark.parametrize("mode", ["iam", "oidc"])
@pytest.mark.usefixtures("roles")
def test_concurrent_callers_through_the_http_app_never_share_a_cache(mode: str, sts: AwsFaults,
                                                                     signed_by: Counter[tuple[str, str]]) -> None:
    settings, callers = MODES[mode]
    assert settings.cache_ttl_seconds > 0, "the results cache is on"
    plan = [(who, uri) for _round in range(4) for who in callers for uri in ("auth://status", NAMING, CACHED)]
    wave = [callers[who](uri) for who, uri in plan]
    after_cold: list[Counter[tuple[str, str]]] = []
    cold, warm = concurrently(settings, [wave, wave], between=lambda: after_cold.append(Counter(signed_by)))

    for (who, uri), response in zip(plan, cold, strict=True):
        if uri != CACHED:
            assert document(response)["principal_arn"] == who, (uri, who)
    operation = "sts.AssumeRole" if mode == "iam" else "sts.AssumeRoleWithWebIdentity"
    assert sts.calls[operation] == len(callers), "one exchange per caller, however many requests at once"
    keys = principals_by_key()
    assert sorted(keys.values()) == sorted(callers), "each caller its own credentials"
    data_calls = [(key, op) for key, op in signed_by if not op.startswith("sts:")]
    assert {key for key, _op in data_calls} <= set(keys), "every data call is signed by an exchanged caller"
    for who in callers:
        own = {op for key, op in data_calls if keys[key] == who}
        assert {"s3:ListBuckets", "athena:ListDataCatalogs"} <= own, f"{who} read AWS as itself"

    # The same reads again, all at once: each from its caller's own results-cache entry, naming only its caller.
    for (who, uri), first, second in zip(plan, cold, warm, strict=True):
        if uri == NAMING:
            assert document(second)["principal_arn"] == who
        if uri in (NAMING, CACHED):
            assert document(second) == document(first)
    assert [call for call, n in signed_by.items() if n != after_cold[0][call]] == [], \
        "warm reads make no AWS call at all: no exchange, no data call"


@pytest.mark.usefixtures("roles")
def test_three_oidc_callers_interleaved_through_one_warm_handler_each_see_only_themselves(sts: AwsFaults) -> None:
    invoke = lambda_container(OIDC)
    events = {who: make("auth://status") for who, make in OIDC_CALLERS.items()}
    order = list(events)
    for index in range(1000):
        who = order[index % 3]
        status = status_of(read(invoke, events[who]))
        assert status["principal_arn"] == who, (index, who, status["principal_arn"])
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 3
    digests = {status_of(read(invoke, events[who]))["identity_digest"] for who in order}
    assert len(digests) == 3 and None not in digests
