"""permissions://recommendations in the demo's emulated account, read through MCP as the plain demo's caller
(demo-analyst): every table the caller may not query is listed with the link that refuses it and its explainer
(the refusals `support.demo_access` records as real Athena gives them: KMS, a bucket policy's Deny, an identity
policy's Deny, Lake Formation), and every query workgroup it cannot use, with why."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.uris import table_uri
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.demo_access import LAKE_FORMATION, REFUSED, RESULTS_REFUSED
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio]  # the demo account installs its own Lake Formation extensions
CALLER = "demo-analyst"


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    """The cache off, so each test's read makes its calls; a read's whole deadline is generous, as the tests judge
    what the advice says, not how fast (benchmarks/fanout.py times it)."""
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, cache_ttl_seconds=0,
                        response_char_budget=1_000_000, request_timeout_seconds=300)
    with ServerThread(settings) as running:
        yield running


READ: dict[str, dict[str, Any]] = {}
"""The one read of the module (its tests judge the same answer)."""


async def _advice(url: str) -> dict[str, Any]:
    if url not in READ:
        async with Client(url, mode="2026-07-28") as client:
            READ[url] = json.loads((await client.read_resource("permissions://recommendations")).contents[0].text)
    return READ[url]


async def test_every_refused_table_is_listed_with_its_reason_and_explainer(
        server: ServerThread, demo_caller: DemoAccount, aws_calls: Counter[str]) -> None:
    READ.pop(server.url, None)  # read here, where the calls are counted
    advice = await _advice(server.url)
    refused = {ref["table"]: (r, ref["explain"]) for r in advice["recommendations"] if r["severity"] == "high"
               for ref in r.get("tables", [])}
    assert {name for name in refused if name in lake_files()} == set(REFUSED[CALLER]), sorted(refused)
    for name, action in REFUSED[CALLER].items():
        found, explain = refused[name]
        assert explain == table_uri(*name.split("."))
        assert found["missing_action"] == ("lakeformation:SELECT" if action == LAKE_FORMATION else action), found
    campaigns, raw_orders = refused["marketing.campaigns"][0], refused["sales.raw_orders"][0]
    assert campaigns["resource_arn"].startswith("arn:aws:kms:")  # the key whole, by its alias too
    assert campaigns["finding"].startswith("SELECT on marketing.campaigns is refused: denied: kms:Decrypt on "
                                           f"alias/acme-campaign-budgets ({campaigns['resource_arn']}) (key policy)")
    assert raw_orders["finding"].startswith("SELECT on sales.raw_orders is refused: denied: s3:GetObject on ")
    assert "(bucket policy)" in raw_orders["finding"]
    assert raw_orders["resource_arn"] == "arn:aws:s3:::acme-datalake-raw/sales/orders/*"
    logs = refused["marketing.shop_access_logs"][0]  # discover's bucket verdict settles it: not explained again
    assert logs["resource_arn"] == "arn:aws:s3:::acme-logs-archive/*" and "cannot read" in logs["finding"]
    assert advice["explained"]["tables"] > 0  # every table outside the fixtures is within the bound
    assert not [r for r in advice["recommendations"]
                if "were not explained" in r["finding"] and r["about"] != "fixture"]
    readable = {name for name in lake_files() if name not in REFUSED[CALLER]}
    assert not readable & {ref["table"] for r in advice["recommendations"] for ref in r.get("tables", [])
                           if r["severity"] == "high"}
    explainers = aws_calls["glue:GetTable"]  # one per table explained, each through the reader once
    assert explainers == advice["explained"]["tables"]


async def test_the_callers_own_obstacles_come_first_the_fixtures_apart_and_marked(
        server: ServerThread, demo_caller: DemoAccount) -> None:
    """The README's analyst: 4 of customer_features' 9 columns hidden by Lake Formation is among its own obstacles,
    and the enterprise database's cases (a fixture database) come after every other finding, each marked."""
    advice = await _advice(server.url)
    found = advice["recommendations"]
    hidden = next(r for r in found if r["finding"].startswith("SELECT on ml_features.customer_features runs on"))
    assert hidden["about"] == "your_queries" and "5 of 9 columns" in hidden["finding"]
    assert hidden["missing_action"] == "lakeformation:SELECT"
    abouts = [r["about"] for r in found]
    assert abouts == sorted(abouts, key=["your_queries", "setup", "fixture"].index)
    enterprise = [r for r in found if any(ref["table"].startswith("enterprise.") for ref in r.get("tables", []))
                  or "enterprise." in r["finding"]]
    assert enterprise and all(r["about"] == "fixture" for r in enterprise)
    assert all("\n" not in r["finding"] for r in found)  # one line each
    # a table's fix is the table's own (its explainer's, narrowed for a Deny), never a grant on a whole bucket
    assert not [r["fix"] for r in found if re.search(r"Allow s3:(GetObject|ListBucket) on arn:aws:s3:::", r["fix"])]


async def test_every_unusable_query_workgroup_is_listed_with_why(server: ServerThread,
                                                                 demo_caller: DemoAccount) -> None:
    advice = await _advice(server.url)
    workgroups = {r["workgroup"]: r for r in advice["recommendations"] if r.get("workgroup")}
    partners = workgroups[RESULTS_REFUSED[CALLER]]
    assert partners["severity"] == "high" and partners["missing_action"] == "s3:PutObject"
    assert partners["resource_arn"].startswith("arn:aws:s3:::acme-athena-results/partners/")
    assert "is denied" in partners["finding"] and partners["explain"] == "athena://workgroups"
    assert "analytics" not in workgroups  # usable: nothing to recommend
    assert set(workgroups) <= set(QUERY_WORKGROUPS)

