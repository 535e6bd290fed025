"""The plain demo's caller (demo-analyst, alice's rights) queries each table of the `enterprise` database through
athena_query over MCP and gets what AWS's rules give (support/enterprise_access.py), as the hosted callers do
(tests/demo/front/test_enterprise_access.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aws_data_mcp_demo.account import enterprise as enterprise_lake
from aws_data_mcp_demo.account.emulated import DemoAccount
from support.enterprise_access import ENCRYPTED_RESULTS, EXPECTED, LAKE_FORMATION, Reads
from support.queries import answer, query
from support.servers import ServerThread, demo_query_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]


@pytest.fixture(scope="module")
def query_server(demo: DemoAccount) -> Iterator[ServerThread]:
    with demo_query_server(20) as server:
        yield server


@pytest.mark.parametrize("workgroup", [None, "encrypted-results"])
async def test_each_enterprise_table_and_the_encrypted_results_workgroup(
        query_server: ServerThread, demo_caller: DemoAccount, workgroup: str | None) -> None:
    cases = EXPECTED["demo-analyst"] if workgroup is None else {"SELECT 1": ENCRYPTED_RESULTS["demo-analyst"]}
    for name, expected in cases.items():
        sql = name if workgroup else f"SELECT * FROM enterprise.{name}"
        result = await query(query_server, "2026-07-28", sql=sql, database="enterprise",
                             workgroup=workgroup or "analytics")
        got = answer(result)
        if isinstance(expected, Reads):
            assert not result.is_error and len(got["results"]["rows"]) == expected.rows, (name, got)
            assert [c["name"] for c in got["results"]["columns"]] == list(expected.columns), (name, got)
            continue
        error = got["error"]
        assert result.is_error and got["state"] == "FAILED" and error["error"] == "access_denied", (name, got)
        assert got["statistics"]["data_scanned_bytes"] == 0, got
        if expected.action == LAKE_FORMATION:
            assert error.get("action") is None, got
        else:
            assert error.get("action") == expected.action, (name, got)


def test_direct_requests_meet_the_same_policies_in_their_own_context(demo_caller: DemoAccount) -> None:
    """The caller's own S3 requests come through the demo's VPC endpoint: the VPC-endpoint-only bucket serves them,
    though it refuses Athena's reads (forward access sessions carry no aws:SourceVpce); the other cases refuse them
    as they refuse Athena."""
    s3 = demo_caller.caller_client("s3")

    def read(bucket: str, table: str) -> str:
        try:
            s3.get_object(Bucket=bucket, Key=f"{table}/part-00000.csv")
        except s3.exceptions.ClientError as error:
            return error.response["Error"]["Code"]
        return "read"

    assert read(enterprise_lake.VPCE_ONLY_BUCKET, "vpce_only_logs") == "read"
    assert read(enterprise_lake.VPCE_EXEMPT_BUCKET, "vpce_exempt_logs") == "read"
    for bucket, table in ((enterprise_lake.TLS_BUCKET, "tls_only_sessions"),
                          (enterprise_lake.AUDIT_BUCKET, "notprincipal_audit"),
                          (enterprise_lake.LAKE_BUCKET, "lake_owned_invoices")):
        assert read(bucket, table) == "AccessDenied", bucket
    listed = s3.list_objects_v2(Bucket=enterprise_lake.VPCE_ONLY_BUCKET, Prefix="vpce_only_logs/")
    assert [o["Key"] for o in listed["Contents"]] == ["vpce_only_logs/part-00000.csv"]


def test_lake_formation_answers_what_the_explainers_read(demo_caller: DemoAccount) -> None:
    """Hybrid mode, opt-ins, the data cells filter and the LF-tags, as Lake Formation's API answers the caller (moto
    lacks them: demo/moto_lake_formation.py)."""
    lf = demo_caller.caller_client("lakeformation")
    hybrid = {r["ResourceArn"]: r["HybridAccessEnabled"] for r in lf.list_resources()["ResourceInfoList"]}
    assert hybrid[enterprise_lake.HYBRID_LOCATION] is True and hybrid[enterprise_lake.GOVERNED_LOCATION] is False
    opted = {o["Principal"]["DataLakePrincipalIdentifier"]: o["Resource"]
             for o in lf.list_lake_formation_opt_ins()["LakeFormationOptInsInfoList"]}
    assert set(opted) == set(enterprise_lake.analysts(demo_caller.account_id))
    found = lf.get_data_cells_filter(TableCatalogId=demo_caller.account_id, DatabaseName="enterprise",
                                     TableName="filtered_payments", Name=enterprise_lake.FILTER_NAME)["DataCellsFilter"]
    assert found["RowFilter"] == {"FilterExpression": "country = 'DE'"}
    assert found["ColumnWildcard"] == {"ExcludedColumnNames": ["iban"]}
    tagged = lf.get_resource_lf_tags(Resource={"Table": {"DatabaseName": "enterprise", "Name": "tagged_customers"}})
    assert [(t["TagKey"], t["TagValues"]) for t in tagged["LFTagsOnTable"]] == [("domain", ["customers"])]
    untagged = lf.get_resource_lf_tags(Resource={"Table": {"DatabaseName": "enterprise", "Name": "hybrid_orders"}})
    assert not untagged.get("LFTagsOnTable")
