"""The hosted demo's callers query each table of the `enterprise` database through athena_query, over MCP, and get
what AWS's rules give them (support/enterprise_access.py): the columns and rows Lake Formation lets them read
(hybrid opt-ins, a data cells filter, an LF-tag grant), or Athena's refusal naming the action that failed (a second
KMS key, a partition in a bucket that denies them, a VPC-endpoint-only bucket, a TLS-only bucket's Deny, another
account's bucket, a NotPrincipal Deny, lakeformation:GetDataAccess); and in the encrypted-results workgroup, alice
writes results she may not read."""

from __future__ import annotations

import pytest

from support.enterprise_access import ENCRYPTED_RESULTS, EXPECTED, LAKE_FORMATION, WORKGROUP, Reads, Refused
from support.queries import query_as

pytestmark = pytest.mark.anyio


def _check(caller: str, name: str, expected: Reads | Refused, failed: bool, got: dict) -> None:
    if isinstance(expected, Reads):
        assert not failed, (caller, name, got)
        assert [c["name"] for c in got["results"]["columns"]] == list(expected.columns), (caller, name, got)
        assert len(got["results"]["rows"]) == expected.rows, (caller, name, got)
        return
    error = got["error"] if isinstance(got["error"], dict) else got  # refused before the query, or by Athena
    assert failed and error["error"] == "access_denied", (caller, name, got)
    if expected.action == LAKE_FORMATION:
        assert error.get("action") is None and "Insufficient Lake Formation permission(s)" in error["message"], got
    else:
        assert error.get("action") == expected.action or expected.action in error["message"], (caller, name, got)


@pytest.mark.parametrize("caller", ["alice", "bob", "carol"])
async def test_each_enterprise_table_as_aws_would_answer_each_caller(
        oidc_demo: tuple[str, dict[str, str]], caller: str) -> None:
    url, tokens = oidc_demo
    for name, expected in EXPECTED[caller].items():
        failed, got = await query_as(url, tokens[caller], {"sql": f"SELECT * FROM enterprise.{name}",
                                                            "database": "enterprise", "workgroup": WORKGROUP[caller]})
        _check(caller, name, expected, failed, got)


async def test_the_data_cells_filter_keeps_its_rows_and_hides_its_column(
        oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens["alice"], {"sql": "SELECT DISTINCT country FROM filtered_payments",
                                                        "database": "enterprise", "workgroup": "analytics"})
    assert not failed and got["results"]["rows"] == [["DE"]], got
    failed, got = await query_as(url, tokens["alice"], {"sql": "SELECT iban FROM filtered_payments",
                                                        "database": "enterprise", "workgroup": "analytics"})
    assert failed and got["error"]["athena"]["name"] == "COLUMN_NOT_FOUND", got


async def test_the_first_month_alone_reads_under_the_key_alice_may_use(
        oidc_demo: tuple[str, dict[str, str]]) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens["alice"], {
        "sql": "SELECT count(*) FROM mixed_key_events WHERE month = '2026-01'", "database": "enterprise",
        "workgroup": "analytics"})
    assert not failed and got["results"]["rows"] == [[4]], got


@pytest.mark.parametrize("caller", ["alice", "bob", "carol"])
async def test_the_encrypted_results_workgroup(oidc_demo: tuple[str, dict[str, str]], caller: str) -> None:
    url, tokens = oidc_demo
    failed, got = await query_as(url, tokens[caller], {"sql": "SELECT 1", "database": "enterprise",
                                                        "workgroup": "encrypted-results"})
    _check(caller, "encrypted-results", ENCRYPTED_RESULTS[caller], failed, got)
