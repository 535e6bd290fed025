"""Workgroups for every caller, through the oidc demo as its callers sign in with their tokens: a restricted caller
(carol: one usable workgroup, partners; she may not list workgroups) reads athena://workgroups and queries without
naming a workgroup; a refusal lists where she can query; alice queries the lake account's finance data."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from support.queries import query_as

pytestmark = pytest.mark.anyio


async def _read(url: str, token: str, uri: str) -> dict[str, Any]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        return json.loads((await client.read_resource(uri)).contents[0].text)


async def test_carol_reads_the_workgroups_she_may_not_list(oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    found = await _read(url, tokens["carol"], "athena://workgroups")
    assert found["workgroups_error"]["error"] == "access_denied", found  # the list's own error, beside
    assert found["workgroups_error"]["action"] == "athena:ListWorkGroups"
    usable = {entry["name"]: entry["usable"] for entry in found["query_workgroups"]}
    assert usable == {"analytics": False, "data-science": False, "finance-restricted": False, "partners": True,
                      "encrypted-results": False}
    reasons = {entry["name"]: " ".join(entry["why_not"]) for entry in found["query_workgroups"]}
    assert "athena:GetWorkGroup" in reasons["analytics"] and reasons["partners"] == ""
    assert "s3:PutObject" in reasons["finance-restricted"]  # describable, but its results are not hers to write


async def test_carol_queries_without_naming_a_workgroup_and_is_told_where(
        oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens["carol"], {"sql": "SELECT count(*) FROM products", "database": "sales"})
    assert not failed and got["state"] == "SUCCEEDED", got
    assert got["workgroup"] == "partners" and "partners" in got["workgroup_choice"], got
    assert got["results"]["rows"][0][0] > 0


async def test_a_refused_workgroup_lists_the_ones_the_caller_can_use(oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens["carol"], {"sql": "SELECT 1", "database": "sales",
                                                        "workgroup": "analytics"})
    assert failed and got["error"] == "access_denied", got
    assert any("Workgroups you can query in: partners" in detail for detail in got["details"]), got


async def test_alice_queries_finance_in_the_lake_account(oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens["alice"], {
        "sql": "SELECT status, count(*) AS n FROM invoices GROUP BY status ORDER BY status", "database": "finance",
        "account": "lake"})
    assert not failed and got["state"] == "SUCCEEDED", got
    assert got["workgroup"] == "analytics" and got["results"]["rows"] == [["open", 40], ["overdue", 40], ["paid", 40]]
    found = await _read(url, tokens["alice"], "athena://workgroups?account=lake")
    assert {w["name"]: w["usable"] for w in found["query_workgroups"]}["analytics"] is True
    by_name = {w["name"]: w for w in found["workgroups"]}
    assert by_name["analytics"]["result_location"] == "s3://acme-finance-lake-athena-results/analytics/"
