"""The exchanged-credentials cache: reused until a minute before the credentials (or the token) expire, bounded,
one exchange per claim at a time, never shared between callers, and nothing left behind by a failed exchange."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import hosted
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp.identity.hosted import exchange
from support.faults import AwsFaults

from .hosted_support import (
    IAM,
    OIDC,
    iam_event,
    oidc_event,
)


def resolve(event: dict, settings: Settings = IAM) -> Caller:
    return hosted.resolve({"aws.event": event}, settings)


def at(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The seam's clock reads `seconds` from now on."""
    monkeypatch.setattr(exchange, "_now", lambda: seconds)


@pytest.mark.usefixtures("roles")
def test_credentials_are_reused_until_a_minute_before_they_expire(sts: AwsFaults,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    event = iam_event("DataAnalyst", "alice")
    first = resolve(event)
    assert first.credential_expiry is not None
    expiry = first.credential_expiry.timestamp()
    at(monkeypatch, expiry - exchange.REFRESH_MARGIN_SECONDS - 1)
    assert resolve(event) is first
    assert sts.calls["sts.AssumeRole"] == 1
    at(monkeypatch, expiry - exchange.REFRESH_MARGIN_SECONDS + 1)
    renewed = resolve(event)
    assert renewed is not first and renewed.principal_arn == first.principal_arn
    assert sts.calls["sts.AssumeRole"] == 2


@pytest.mark.usefixtures("roles")
def test_the_token_expiry_bounds_its_cached_credentials(sts: AwsFaults, monkeypatch: pytest.MonkeyPatch) -> None:
    token_expiry = int(time.time()) + 600  # long before the hour the credentials last
    event = oidc_event("dana", ["analysts"], exp=token_expiry)
    first = resolve(event, OIDC)
    assert first.credential_expiry is not None and first.credential_expiry.timestamp() > token_expiry + 3000
    at(monkeypatch, token_expiry - exchange.REFRESH_MARGIN_SECONDS - 1)
    assert resolve(event, OIDC) is first
    at(monkeypatch, token_expiry - exchange.REFRESH_MARGIN_SECONDS + 1)
    assert resolve(event, OIDC) is not first
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 2


@pytest.mark.usefixtures("roles")
def test_a_token_in_its_last_minute_is_exchanged_for_each_request_and_never_stored(
    sts: AwsFaults, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its credentials are past reuse the moment they arrive: stored, they would only evict callers that are not."""
    monkeypatch.setattr(exchange, "MAX_CACHED_CALLERS", 2)
    others = [iam_event("DataAnalyst", name) for name in ("alice", "bob")]
    kept = [resolve(event) for event in others]
    event = oidc_event("dana", ["analysts"], exp=int(time.time()) + 30)
    for _ in range(3):
        assert resolve(event, OIDC).authenticated
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 3 and len(exchange.exchanges) == 2
    assert [resolve(other) for other in others] == kept and sts.calls["sts.AssumeRole"] == 2


@pytest.mark.usefixtures("roles")
def test_cached_callers_share_botocores_models_not_their_credentials() -> None:
    """Each caller's session loads service models through one shared loader (else ~8 MB per cached caller); the
    loader holds models only, so each session still signs with its own credentials."""
    alice, bob = resolve(iam_event("DataAnalyst", "alice")), resolve(iam_event("DataAdmin", "bob"))
    assert alice.session is not None and bob.session is not None
    loaders = [caller.session._session.get_component("data_loader") for caller in (alice, bob)]
    assert loaders[0] is loaders[1]
    paths = list(loaders[0].search_paths)
    resolve(iam_event("Contractor", "carol"))
    assert loaders[0].search_paths == paths, "a caller's session adds no search path to the shared loader"
    keys = {caller.session.get_credentials().get_frozen_credentials().access_key for caller in (alice, bob)}
    assert len(keys) == 2


def test_cached_until_takes_the_earlier_expiry() -> None:
    from datetime import UTC, datetime

    credentials = datetime(2030, 1, 1, tzinfo=UTC)
    assert exchange.cached_until(credentials, None) == credentials.timestamp() - 60
    assert exchange.cached_until(credentials, credentials.timestamp() - 600) == credentials.timestamp() - 660


@pytest.mark.usefixtures("roles")
def test_the_cache_is_bounded_and_keeps_the_callers_used_last(sts: AwsFaults, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "MAX_CACHED_CALLERS", 3)
    events = [iam_event("DataAnalyst", f"user{index}") for index in range(5)]
    for event in events[:3]:
        resolve(event)
    resolve(events[0])  # used again: now the most recent
    for event in events[3:]:
        resolve(event)
    assert len(exchange.exchanges) == 3 and sts.calls["sts.AssumeRole"] == 5
    for kept in (events[0], events[3], events[4]):
        resolve(kept)
    assert sts.calls["sts.AssumeRole"] == 5, "the three used last were kept"
    resolve(events[1])
    assert sts.calls["sts.AssumeRole"] == 6, "an evicted caller is exchanged again"
    assert len(exchange.exchanges) == 3


@pytest.mark.usefixtures("roles")
def test_a_failed_exchange_leaves_no_lock_behind(sts: AwsFaults) -> None:
    """A refused token is tried again on every request: its per-claim lock must not outlive the request."""
    sts.fail("sts.AssumeRoleWithWebIdentity", "InvalidIdentityToken", status=400)
    for index in range(50):
        assert not resolve(oidc_event(f"user{index}", ["analysts"]), OIDC).authenticated
    assert len(exchange.exchanges._flights) == 0
    assert len(exchange.exchanges) == 0


def _together(count: int, work: Callable[[], Caller]) -> list[Caller]:
    """`work` on `count` threads released at once."""
    start, results = threading.Barrier(count), []
    lock = threading.Lock()

    def run() -> None:
        start.wait()
        caller = work()
        with lock:
            results.append(caller)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


@pytest.mark.usefixtures("roles")
def test_concurrent_first_requests_of_one_caller_share_one_exchange(sts: AwsFaults) -> None:
    sts.delay("sts.AssumeRole", 0.3)
    event = iam_event("DataAnalyst", "alice")
    callers = _together(20, lambda: resolve(event))
    assert len({id(caller) for caller in callers}) == 1 and callers[0].authenticated
    assert sts.calls["sts.AssumeRole"] == 1
    assert exchange.exchanges.flights == 0


@pytest.mark.usefixtures("roles")
def test_concurrent_failing_exchanges_all_refuse_and_leave_nothing(sts: AwsFaults) -> None:
    sts.fail("sts.AssumeRole", "AccessDenied", status=403)
    event = iam_event("DataAnalyst", "alice")
    callers = _together(10, lambda: resolve(event))
    assert all(not caller.authenticated for caller in callers)
    assert exchange.exchanges.flights == 0 and len(exchange.exchanges) == 0


@pytest.mark.usefixtures("roles")
def test_an_entry_is_never_used_for_another_caller(sts: AwsFaults) -> None:
    alice, bob = resolve(iam_event("DataAnalyst", "alice")), resolve(iam_event("DataAnalyst", "bob"))
    assert alice.principal_arn != bob.principal_arn and alice.identity_digest != bob.identity_digest
    # One subject, two tokens (a new sign-in): each token's own exchange, never the other's credentials.
    first = resolve(oidc_event("dana", ["analysts"]), OIDC)
    second = resolve(oidc_event("dana", ["analysts"], iat=1795341700), OIDC)
    assert first is not second and first.identity_digest == second.identity_digest  # the same person
    assert sts.calls["sts.AssumeRoleWithWebIdentity"] == 2
    # Same subject at another issuer: another person.
    other = resolve(oidc_event("dana", ["analysts"], iss="https://other.example.com"), OIDC)
    assert other.identity_digest != first.identity_digest
