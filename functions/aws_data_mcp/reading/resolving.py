"""What every namespace's resolvers share to build an answer from parts.

That is the error kept beside one part, and named parts fanned out side by side. It is also
timestamps as text and ids in batches. Parts fail on their own (a denied workgroup, an unreadable
bucket policy). `attempt` runs one part's call and keeps its failure beside it, as `fan_out` does
per item. So the other parts still answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NotRequired, TypedDict, TypeVar

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.errors import ResourceFailure, as_failure
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.registry import ResourceRequest

T = TypeVar("T")


class ItemError(TypedDict):
    """`ResourceFailure.brief()`: the error kept beside one item of a partial result."""

    error: str
    message: str
    retryable: bool
    action: NotRequired[str]


def attempt(action: str, call: Callable[[], T]) -> Outcome[str, T]:
    """`call()` as one part of an answer: its value, or its failure of `action` (an AWS error, or one of ours), in
    the shape of a fan-out item's outcome (the item is `action`)."""
    try:
        return Outcome(action, value=call())
    except (ClientError, BotoCoreError, ResourceFailure) as exc:
        return Outcome(action, error=as_failure(exc, action))


def value_or_error(outcome: Outcome[Any, T]) -> T | ItemError:
    """A part as the answer shows it: its value, or its error in its place."""
    if outcome.error is not None:
        return outcome.error.brief()  # type: ignore[return-value]
    return outcome.value  # type: ignore[return-value]


def side_by_side(request: ResourceRequest, **calls: Sequence[Call[Any]]) -> dict[str, list[Outcome[Call[Any], Any]]]:
    """Named lists of calls in one fan-out, so they run side by side (the lists in the order named, each in its own
    order); each list's outcomes come back under its name, in its order."""
    named = [(name, call) for name, listed in calls.items() for call in listed]
    outcomes = request.fan_out(Call.run, [call for _, call in named], action=Call.action_of)
    grouped: dict[str, list[Outcome[Call[Any], Any]]] = {name: [] for name in calls}
    for (name, _), outcome in zip(named, outcomes, strict=True):
        grouped[name].append(outcome)
    return grouped


def iso(value: Any) -> str | None:
    """Timestamps as ISO 8601 text, so the typed shapes hold what JSON holds."""
    return value.isoformat() if value is not None and hasattr(value, "isoformat") else value


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    """`items` in order, at most `size` a list: for an API that takes that many ids a call."""
    return [list(items[start:start + size]) for start in range(0, len(items), size)]
