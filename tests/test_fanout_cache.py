"""The shared machinery every AWS resource stands on: fan-out, the request deadline, the per-caller cache,
accepted query parameters, and the fault-injection fixture itself."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import boto3
import pytest
from botocore.exceptions import ClientError

from aws_data_mcp.aws import client, deadline_scope
from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.identity.resolve import Caller, local_chain, resolve_caller
from aws_data_mcp.reading.fanout import Call, Outcome, fan_out
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.registry import Registry, ResourceRequest

SETTINGS = Settings(mode="local")


def test_fan_out_runs_in_parallel_keeps_order_and_per_item_errors() -> None:
    active, peak, lock = [0], [0], threading.Lock()
    wave = threading.Barrier(4, timeout=30)  # passed only by 4 items at once: parallel, not one after another

    def work(item: int) -> int:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        wave.wait()
        with lock:
            active[0] -= 1
        if item == 3:
            raise ResourceFailure(ErrorCode.ACCESS_DENIED, "no", action="s3:ListBucket")
        return item * 10

    outcomes = fan_out(work, range(8), action="s3:ListBucket", width=4)
    assert [o.item for o in outcomes] == list(range(8))
    assert [o.value for o in outcomes if o.ok] == [0, 10, 20, 40, 50, 60, 70]
    assert outcomes[3].error is not None and outcomes[3].error.brief()["action"] == "s3:ListBucket"
    assert peak[0] == 4  # bounded by the width


def test_fan_out_reports_items_still_running_at_the_deadline_as_timeout() -> None:
    release, finished = threading.Event(), threading.Event()

    def work(item: str) -> str:
        if item == "slow":
            release.wait(60)  # runs until the test lets it go
            finished.set()
        return item

    with deadline_scope(time.monotonic() + 2.0):  # room for the fast item on a busy machine
        outcomes = fan_out(work, ["fast", "slow"], action="athena:GetWorkGroup", width=4)
    still_running = not finished.is_set()
    release.set()
    assert still_running, "answered at the deadline, not when the slow item ended"
    assert outcomes[0].value == "fast"
    assert outcomes[1].error is not None and outcomes[1].error.code is ErrorCode.TIMEOUT


def test_nothing_starts_once_the_deadline_has_passed() -> None:
    started: list[int] = []
    with deadline_scope(time.monotonic() - 0.01):
        outcomes = fan_out(started.append, [1, 2, 3], action="iam:GetRole", width=4)
    assert started == [] and {o.error.code for o in outcomes if o.error} == {ErrorCode.TIMEOUT}


def test_a_nested_fan_out_answers_its_partial_result_in_time_to_be_heard() -> None:
    """A worker's own deadline comes a little before the wait for it ends: the section that fans out again
    (OIDC providers inside admin://config/sso) answers with its own timeouts instead of being one."""
    def section(_: str) -> list[Outcome[float, float]]:
        return fan_out(lambda delay: time.sleep(delay) or delay, [0.01, 20.0], action="iam:GetOpenIDConnectProvider",
                       width=2)

    with deadline_scope(time.monotonic() + 2.0):  # room for the fast item on a busy machine
        (outer,) = fan_out(section, ["oidc"], action="iam:ListOpenIDConnectProviders", width=2)
    assert outer.ok and outer.value is not None
    fast, slow = outer.value
    assert fast.value == 0.01 and slow.error is not None and slow.error.code is ErrorCode.TIMEOUT


def test_calls_of_different_operations_each_name_their_own_action() -> None:
    def denied() -> None:
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "SimulatePrincipalPolicy")

    outcomes = fan_out(Call.run, [Call("s3:GetBucketLocation", lambda: "us-east-1"),
                                  Call("iam:SimulatePrincipalPolicy", denied)], action=Call.action_of, width=2)
    assert outcomes[0].value == "us-east-1"
    assert outcomes[1].error is not None and outcomes[1].error.action == "iam:SimulatePrincipalPolicy"


def test_an_unexpected_error_in_one_item_is_internal_for_that_item_only() -> None:
    outcomes = fan_out(lambda item: 1 // item, [1, 0], action="glue:GetTables", width=2)
    assert outcomes[0].ok and outcomes[1].error is not None and outcomes[1].error.code is ErrorCode.INTERNAL


def test_no_aws_attempt_starts_after_the_deadline(aws_faults: Any) -> None:
    session = local_chain.session()
    sts = client(session, "sts", SETTINGS)
    with deadline_scope(time.monotonic() - 1), pytest.raises(Exception) as raised:
        sts.get_caller_identity()
    assert type(raised.value).__name__ == "DeadlineExceeded"
    assert aws_faults.total("sts.") == 1  # counted by before-send, refused before the wire


def test_throttling_is_retried_by_botocore_then_succeeds(aws_faults: Any) -> None:
    aws_faults.throttle("sts.GetCallerIdentity", times=2)
    assert resolve_caller(None, SETTINGS).authenticated
    assert aws_faults.calls["sts.GetCallerIdentity"] == 3


def counting_reader(**settings: Any) -> tuple[ResourceReader, list[str]]:
    calls: list[str] = []
    registry = Registry()

    @registry.resource("test://mine", name="mine", title="Mine", description="caller data", requires="auth",
                       list_field="items", query_params=["limit"])
    def mine(request: ResourceRequest) -> dict[str, Any]:
        calls.append(request.caller.principal_arn or "")
        return {"who": request.caller.principal_arn, "items": list(range(int(request.query.get("limit", 3))))}

    return ResourceReader(registry, Settings(mode="local", **settings)), calls


def caller(name: str) -> Caller:
    return Caller("local", boto3.Session(), "us-east-1", principal_arn=f"arn:aws:iam::123456789012:user/{name}")


def test_cache_hit_within_ttl_never_shared_between_callers() -> None:
    reader, calls = counting_reader()
    alice, bob = caller("alice"), caller("bob")
    first = anyio.run(reader.read, "test://mine", lambda: alice)
    again = anyio.run(reader.read, "test://mine?cursor=", lambda: alice)
    other = anyio.run(reader.read, "test://mine", lambda: bob)
    assert calls == [alice.principal_arn, bob.principal_arn]
    assert "alice" in first.text and "alice" in again.text and "bob" in other.text and "alice" not in other.text
    anyio.run(reader.read, "test://mine?limit=5", lambda: alice)  # another query is another entry
    assert len(calls) == 3


def test_cache_expires_after_its_ttl_and_zero_turns_it_off() -> None:
    reader, calls = counting_reader(cache_ttl_seconds=0.05)
    alice = caller("alice")
    anyio.run(reader.read, "test://mine", lambda: alice)
    time.sleep(0.1)
    anyio.run(reader.read, "test://mine", lambda: alice)
    assert len(calls) == 2
    off, off_calls = counting_reader(cache_ttl_seconds=0)
    anyio.run(off.read, "test://mine", lambda: alice)
    anyio.run(off.read, "test://mine", lambda: alice)
    assert len(off_calls) == 2


def test_unknown_query_parameters_are_invalid_argument_naming_the_accepted_ones() -> None:
    reader, calls = counting_reader()
    with pytest.raises(ResourceFailure) as raised:
        anyio.run(reader.read, "test://mine?limt=5", lambda: caller("alice"))
    assert raised.value.code is ErrorCode.INVALID_ARGUMENT
    assert "limit, cursor" in raised.value.details[0]
    assert calls == []


def test_a_result_with_a_retryable_item_error_is_not_cached() -> None:
    calls: list[int] = []
    registry = Registry()

    @registry.resource("test://flaky", name="flaky", title="Flaky", description="d", requires="auth")
    def flaky(request: ResourceRequest) -> dict[str, Any]:
        calls.append(1)

        def item(n: int) -> int:
            if len(calls) == 1 and n == 1:
                raise ResourceFailure(ErrorCode.THROTTLED, "slow down")
            return n

        return {"items": [o.value for o in request.fan_out(item, [0, 1], action="x:Y")]}

    reader = ResourceReader(registry, SETTINGS)
    alice = caller("alice")
    first = anyio.run(reader.read, "test://flaky", lambda: alice)
    second = anyio.run(reader.read, "test://flaky", lambda: alice)
    third = anyio.run(reader.read, "test://flaky", lambda: alice)
    assert first.text == '{"items":[0,null]}' and second.text == third.text == '{"items":[0,1]}'
    assert len(calls) == 2  # the partial answer was not kept; the complete one was
