"""The one read path: every failure, wherever it starts, ends in the shared error vocabulary."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import anyio
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.identity.resolve import Caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.registry import Registry, ResourceRequest

SETTINGS = Settings(mode="local")


def reader_for(resolver: Any, **spec: Any) -> ResourceReader:
    registry = Registry()
    registry.resource("test://thing", name="thing", title="Thing", description="a thing", **spec)(resolver)
    return ResourceReader(registry, SETTINGS)


def anonymous() -> Caller:
    return Caller("local", None, "us-east-1", "no credentials in this test")


def read(reader: ResourceReader, uri: str = "test://thing", caller: Any = anonymous) -> Any:
    return anyio.run(reader.read, uri, caller)


def test_aws_types_render_as_json() -> None:
    reading = read(reader_for(lambda r: {"count": Decimal("3"), "ratio": Decimal("0.5"), "blob": b"\x00\x01"}))
    assert json.loads(reading.text) == {"count": 3, "ratio": 0.5, "blob": "AAE="}


@pytest.mark.parametrize(
    "resolver",
    [lambda r: {"thing": object()}, lambda r: 1 / 0],
    ids=["unserialisable-output", "resolver-bug"],
)
def test_a_bug_is_a_structured_internal_error_without_its_details(resolver: Any) -> None:
    with pytest.raises(ResourceFailure) as failure:
        read(reader_for(resolver))
    assert failure.value.code is ErrorCode.INTERNAL
    assert "object" not in failure.value.message and "division" not in failure.value.message


def test_a_failing_credential_chain_is_a_structured_error() -> None:
    def broken_chain() -> Caller:
        raise RuntimeError("credential_process exploded")

    with pytest.raises(ResourceFailure) as failure:
        read(reader_for(lambda r: {}, requires="auth"), caller=broken_chain)
    assert failure.value.code is ErrorCode.INTERNAL


def test_a_resource_needing_auth_refuses_an_anonymous_caller_before_its_resolver_runs() -> None:
    called: list[ResourceRequest] = []
    with pytest.raises(ResourceFailure) as failure:
        read(reader_for(lambda r: called.append(r) or {}, requires="auth"))
    assert failure.value.code is ErrorCode.AUTHENTICATION_REQUIRED
    assert called == []


def test_the_forgiven_uri_is_answered_in_its_canonical_form() -> None:
    reading = read(reader_for(lambda r: {}), "  TEST/thing ")
    assert reading.uri == "test://thing"
