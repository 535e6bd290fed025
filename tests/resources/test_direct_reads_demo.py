"""The table explainer names, for the data owner, the direct S3 read past Lake Formation: the demo's analyst is
granted 5 of ml_features.customer_features' 9 columns, yet its own credentials read the table's Parquet files
whole (its IAM and the bucket policy allow s3:GetObject there), as on AWS. Read through MCP as demo-analyst."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import CUSTOMER_FEATURE_COLUMNS, QUERY_WORKGROUPS
from support.iam_judge import Request, judge, skip_without_judge
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio]


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, cache_ttl_seconds=0,
                        response_char_budget=1_000_000, request_timeout_seconds=300)
    with ServerThread(settings) as running:
        yield running


async def _read(url: str, uri: str) -> dict[str, Any]:
    async with Client(url, mode="2026-07-28") as client:
        return json.loads((await client.read_resource(uri)).contents[0].text)


async def test_the_hidden_columns_and_the_direct_read_are_named(server: ServerThread,
                                                                demo_caller: DemoAccount) -> None:
    answer = await _read(server.url, "permissions://tables/ml_features/customer_features")
    assert answer["query"] == "allowed" and answer["decided_by"] == "lake_formation"
    assert set(answer["read_columns"]) == set(CUSTOMER_FEATURE_COLUMNS)
    assert len(answer["hidden_columns"]) == 4 and not set(answer["hidden_columns"]) & set(CUSTOMER_FEATURE_COLUMNS)
    (finding,) = answer["owner_findings"]
    assert finding["check"] == "s3:GetObject" and "4 hidden columns" in finding["finding"]
    assert finding["resource"] == "arn:aws:s3:::acme-ml-features/features/customer_features/*"
    deny = finding["fix"][0]
    assert deny["kind"] == "bucket_policy" and deny["statement"]["Effect"] == "Deny"
    assert deny["statement"]["Principal"] == {"AWS": answer["simulated_as"]}  # the one principal, no one else
    assert deny["statement"]["Resource"] == finding["resource"]  # the table's files, not the bucket
    assert deny["statement"] in deny["policy"]["Statement"]


@skip_without_judge()
async def test_the_deny_applied_closes_that_read_only_as_the_independent_judge_decides(
        server: ServerThread, demo_caller: DemoAccount) -> None:
    """The fix's whole bucket policy, judged by iam-simulate with an identity policy that allows every S3 read (the
    finding's premise): the caller's read of the table's files becomes denied; the same caller's read of another
    prefix of the bucket, and another principal's read of the table's files, are decided as before."""
    answer = await _read(server.url, "permissions://tables/ml_features/customer_features")
    (finding,) = answer["owner_findings"]
    deny = finding["fix"][0]
    reads = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    caller, other = answer["simulated_as"], "arn:aws:sts::123456789012:assumed-role/acme-data-admin/someone"
    table_file = finding["resource"].removesuffix("*") + "part-00000.parquet"
    beside = "arn:aws:s3:::acme-ml-features/features/elsewhere/part-00000.parquet"
    cases = [(caller, table_file), (caller, beside), (other, table_file)]

    def verdicts(policy: dict[str, Any] | None) -> list[str]:
        return judge([Request(who, "s3:GetObject", what, identity=[reads], resource_policy=policy)
                      for who, what in cases])

    kept = [entry for entry in deny["policy"]["Statement"] if entry != deny["statement"]]
    before = verdicts({**deny["policy"], "Statement": kept} if kept else None)  # the bucket's policy as it is
    assert before[0] == "Allowed"  # the hole the finding names
    assert verdicts(deny["policy"]) == ["ExplicitlyDenied", *before[1:]]


async def test_a_table_without_restriction_has_no_owner_finding(server: ServerThread,
                                                                demo_caller: DemoAccount) -> None:
    answer = await _read(server.url, "permissions://tables/sales/orders")
    assert answer["query"] == "allowed" and answer["hidden_columns"] == [] and answer["owner_findings"] == []
