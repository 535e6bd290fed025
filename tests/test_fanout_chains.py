"""Chains of calls in a fan-out (a bucket's listing, then the head of an object it listed): the width bounds the
calls in flight, not the chains, and every call and chain keeps the fan-out's error vocabulary and deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from aws_data_mcp.aws import deadline_scope
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.reading.fanout import Call, Chain, Outcome, fan_out


def recorded(started: list[str], name: str, value: object = None) -> Call[object]:
    """A call that notes when it starts."""
    return Call(f"s3:{name}", lambda: started.append(name) or value)


def test_a_chain_holds_no_slot_between_its_calls() -> None:
    started: list[str] = []

    def listing_then_head() -> Chain[str]:
        yield recorded(started, "list-a")
        yield recorded(started, "head-a")
        return "a"

    def listing() -> Chain[str]:
        yield recorded(started, "list-b")
        return "b"

    outcomes = fan_out(Call.run, [Call("s3:ListBucket", listing_then_head), Call("s3:ListBucket", listing)],
                       action=Call.action_of, width=1)
    assert [o.value for o in outcomes] == ["a", "b"]
    assert started == ["list-a", "list-b", "head-a"]  # b's listing did not wait for the whole of a's chain


def test_a_chain_fans_out_with_a_width_of_its_own_and_gets_every_outcome_in_order() -> None:
    together = threading.Barrier(4, timeout=30)  # passed only by 4 calls at once: the chain's 3 and the other item

    def policy(index: int) -> str:
        together.wait()
        if index == 1:
            raise ResourceFailure(ErrorCode.ACCESS_DENIED, "no", action="s3:GetBucketPolicy")
        return f"policy-{index}"

    def write_checks() -> Chain[list[str]]:
        found: list[Outcome[Call[str], str]] = yield [Call("s3:GetBucketPolicy", lambda i=i: policy(i))
                                                     for i in range(3)]
        return [o.value if o.ok else o.error.code.value for o in found]  # type: ignore[union-attr]

    outcomes = fan_out(Call.run, [Call("iam:SimulatePrincipalPolicy", write_checks),
                                  Call("s3:ListBucket", lambda: policy(3))], action=Call.action_of, width=2)
    assert outcomes[0].value == ["policy-0", ErrorCode.ACCESS_DENIED.value, "policy-2"]
    assert outcomes[1].value == "policy-3"  # beside the chain's 3: the items' 2 slots, 2 more while it fans out


def test_a_chains_fan_out_is_not_kept_waiting_behind_the_items_slow_calls() -> None:
    """The write checks' policy reads beside bucket listings that hang: their own slot frees for them first."""
    checked = threading.Event()

    def write_checks() -> Chain[int]:
        found = yield [Call("s3:GetBucketPolicy", lambda: "none") for _ in range(2)]
        checked.set()
        return len(found)

    def hanging_listing() -> bool:
        return checked.wait(10)  # an endpoint that answers only once the write checks are done, or after 10 s

    outcomes = fan_out(Call.run, [Call("iam:SimulatePrincipalPolicy", write_checks),
                                  Call("s3:ListBucket", hanging_listing), Call("s3:ListBucket", hanging_listing)],
                       action=Call.action_of, width=1)
    assert [o.value for o in outcomes] == [2, True, True]  # no listing waited its 10 s out


def test_an_error_in_a_chains_own_code_is_that_items_error_only() -> None:
    def broken() -> Chain[int]:
        listing = yield Call("s3:ListBucket", lambda: {"KeyCount": 0})
        return 1 // listing.value["KeyCount"]

    def denied() -> Chain[str]:
        head = yield Call("s3:GetObject", _raise(ResourceFailure(ErrorCode.ACCESS_DENIED, "no")))
        return "denied" if head.error is not None else "read"

    outcomes = fan_out(Call.run, [Call("s3:ListBucket", broken), Call("s3:ListBucket", denied)],
                       action=Call.action_of, width=2)
    assert outcomes[0].error is not None and outcomes[0].error.code is ErrorCode.INTERNAL
    assert "s3:ListBucket" in outcomes[0].error.message  # named by the item that broke
    assert outcomes[1].value == "denied"  # a call's failure is the chain's to weigh, not the item's


def test_a_chain_still_waiting_at_the_deadline_is_a_timeout_and_the_others_answer() -> None:
    release = threading.Event()

    def slow_head() -> Chain[str]:
        yield Call("s3:ListBucket", lambda: "listed")
        yield Call("s3:GetObject", lambda: release.wait(60))  # runs until the test lets it go
        return "read"

    def quick() -> Chain[str]:
        yield Call("s3:ListBucket", lambda: "listed")
        return "listed"

    with deadline_scope(time.monotonic() + 2.0):  # room for the quick chain on a busy machine
        outcomes = fan_out(Call.run, [Call("s3:ListBucket", slow_head), Call("s3:ListBucket", quick)],
                           action=Call.action_of, width=2)
    release.set()
    assert outcomes[0].error is not None and outcomes[0].error.code is ErrorCode.TIMEOUT
    assert outcomes[1].value == "listed"


def _raise(failure: ResourceFailure) -> Callable[[], None]:
    def call() -> None:
        raise failure

    return call
