"""What the audit tests share: the audit lines a test's log capture holds, a query workgroup moto's Athena runs
queries in, and a resolver that fails as a bug would."""

from __future__ import annotations

import dataclasses
from typing import Any

import boto3
import pytest

from aws_data_mcp import audit
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources import registry
from support.logs import RecordKeeper

CUTOFF = 10 << 30


def audit_lines(records: RecordKeeper) -> list[dict[str, Any]]:
    """Every audit line written, as its `audit` fields, in order."""
    return [dict(record.audit) for record in records.records if record.getMessage() == audit.MESSAGE]


def query_workgroup(name: str) -> None:
    """A workgroup whose cutoff Athena enforces, so athena_query runs in it (moto's Athena answers the queries), and
    the guard's grammar loaded: a process's first guarded query imports it, which on a busy machine can take longer
    than the guard's own bound."""
    from aws_data_mcp.guard.read_only import read_only_statement

    read_only_statement("SELECT 1")
    athena = boto3.client("athena", region_name="us-east-1")
    if name not in [w["Name"] for w in athena.list_work_groups()["WorkGroups"]]:
        athena.create_work_group(Name=name, Configuration={
            "BytesScannedCutoffPerQuery": CUTOFF, "EnforceWorkGroupConfiguration": True,
            "ResultConfiguration": {"OutputLocation": f"s3://{name}-results/"}})


def explode(monkeypatch: pytest.MonkeyPatch, uri: str) -> None:
    """The resolver of `uri` fails as an unexpected bug would, for the rest of the test."""
    spec = registry.get(uri)
    assert spec is not None

    def exploded(request: ResourceRequest) -> dict[str, Any]:
        raise RuntimeError("resolver exploded")

    monkeypatch.setitem(registry._resources, uri, dataclasses.replace(spec, resolver=exploded))
