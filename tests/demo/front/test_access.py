"""The hosted demos' callers query every table through athena_query and are refused exactly where Athena would
refuse them; their AWS profiles reach the same account with any SDK."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import boto3
import pytest

from aws_data_mcp_demo.account.lake_tables import lake_files
from support.demo_access import LAKE_FORMATION, REFUSED, RESULTS_REFUSED, WORKGROUP, count_query
from support.queries import query_as


@pytest.mark.anyio
@pytest.mark.parametrize("caller", ["alice", "bob", "carol"])
async def test_each_caller_reads_or_is_refused_as_athena_refuses_them(
        oidc_demo: tuple[str, dict[str, str]], caller: str) -> None:
    url, tokens = oidc_demo
    refused = REFUSED[caller]
    for name in lake_files():
        sql, rows = count_query(name)
        failed, got = await query_as(url, tokens[caller], {"sql": sql, "database": "sales",
                                                            "workgroup": WORKGROUP[caller]})
        if name not in refused:
            assert not failed and got["results"]["rows"] == [[rows]], (caller, name, got)
            continue
        error = got["error"]
        assert failed and got["state"] == "FAILED" and error["error"] == "access_denied", (caller, name, got)
        expected = None if refused[name] == LAKE_FORMATION else refused[name]
        assert error.get("action") == expected, (caller, name, got)
    failed, got = await query_as(url, tokens[caller], {"sql": "SELECT 1", "database": "sales",
                                                       "workgroup": RESULTS_REFUSED[caller]})
    assert failed and "Access denied when writing output to url" in got["error"]["message"], got


def test_the_banner_names_profiles_that_reach_the_same_account(
        oidc_demo_banner: tuple[str, str]) -> None:
    _, banner = oidc_demo_banner
    config, credentials = re.search(r"AWS_CONFIG_FILE=(\S+) AWS_SHARED_CREDENTIALS_FILE=(\S+)", banner).groups()
    seen: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("AWS_")]:  # the suite's own endpoint and keys
            patch.delenv(name)
        patch.setenv("AWS_CONFIG_FILE", config)
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", credentials)
        for name in ("alice", "carol"):
            session = boto3.Session(profile_name=f"demo-{name}")
            seen[name] = session.client("sts").get_caller_identity()["Arn"]  # endpoint_url from the profile
            table = session.client("glue").get_table(DatabaseName="sales", Name="orders")["Table"]
            assert table["StorageDescriptor"]["Location"] == "s3://acme-datalake-curated/sales/orders/"
        with pytest.raises(session.client("s3").exceptions.ClientError):
            session.client("s3").get_object(Bucket="acme-datalake-raw", Key="_landing/README.txt")
    assert seen["alice"].endswith("assumed-role/demo-analyst-role/alice")
    assert seen["carol"].endswith("assumed-role/demo-contractor-role/carol")
    assert {oct(Path(path).stat().st_mode & 0o777) for path in (config, credentials)} == {"0o600"}
