"""Every fix permissions://tables prints works: for the plain demo's caller (demo-analyst), each demo table the
explainer says it may not query has its denied links' fixes applied in the demo account by an administrator, as
printed; the explainer then says each of those links and the query are allowed, and athena_query runs the table's
count in the explainer's workgroup. A workgroup whose results bucket the lake account owns is never `allowed` where
the demo's Athena refuses the query, and the fixes that reach it (the caller's identity; the owner's bucket policy,
which the caller cannot read) let it run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from mcp import Client
from moto.iam.models import iam_backends
from moto.s3.models import s3_backends

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.workgroup_checks import COST_GUARD
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.enterprise import LAKE_ACCOUNT
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import DEMO_CALLER_USER, QUERY_WORKGROUPS
from support.demo_access import REFUSED, count_query
from support.fixes import apply_fix
from support.servers import ServerThread, free_port

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
ADMINISTRATOR = "fixes-administrator"


@pytest.fixture(scope="module")
def server(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20,
                        cache_ttl_seconds=0)
    with ServerThread(settings) as running:
        yield running


@pytest.fixture(scope="module")
def administrator(demo: DemoAccount) -> Callable[[str], Any]:
    """An administrator's clients in the demo account, its key issued by moto's IAM backend (no secret in any
    response)."""
    iam = iam_backends[demo.account_id]["aws"]
    iam.create_user(demo.region, ADMINISTRATOR)
    iam.put_user_policy(ADMINISTRATOR, "administrator", json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(ADMINISTRATOR)
    session = boto3.Session(aws_access_key_id=key.access_key_id, aws_secret_access_key=key.secret_access_key,
                            region_name=demo.region)
    return lambda service: session.client(service, endpoint_url=demo.endpoint_url)


def _deciding(explained: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The links the query verdict rests on: the table's, and those of the workgroup it names."""
    links = {entry["check"]: entry for entry in explained["links"]}
    workgroup = explained["workgroup"]
    return links | {f"{workgroup}/{entry['check']}": entry for entry in explained["workgroups"][workgroup]}


async def _explain(client: Client, name: str) -> dict[str, Any]:
    database, table = name.split(".")
    return json.loads((await client.read_resource(f"permissions://tables/{database}/{table}")).contents[0].text)


async def test_each_denied_links_fix_applied_by_an_administrator_lets_the_query_run(
        server: ServerThread, demo_caller: DemoAccount, administrator: Callable[[str], Any]) -> None:
    async with Client(server.url, mode="2026-07-28") as client:
        before = {name: await _explain(client, name) for name in lake_files()}
        refused = {name for name, explained in before.items() if explained["query"] == "denied"}
        assert refused == set(REFUSED["demo-analyst"]), refused
        for name in sorted(refused):
            denied = {check: entry for check, entry in _deciding(before[name]).items()
                      if entry["verdict"] == "denied"}
            assert denied and all(entry.get("fix") for entry in denied.values()), (name, denied)
            for entry in denied.values():
                for fix in entry["fix"]:
                    apply_fix(fix, administrator)
            after = await _explain(client, name)
            still = {check: _deciding(after)[check] for check in denied
                     if _deciding(after)[check]["verdict"] != "allowed"}
            assert not still, (name, json.dumps(still, indent=1))
            assert after["query"] == "allowed", (name, json.dumps(after, indent=1))
            sql, rows = count_query(name)
            result = await client.call_tool("athena_query", {"sql": sql, "database": name.split(".")[0],
                                                             "workgroup": after["workgroup"]})
            answer = json.loads(result.content[0].text)
            assert not result.is_error and answer["results"]["rows"] == [[rows]], (name, answer)


async def test_each_denied_workgroup_links_fix_lets_the_query_run_there(
        server: ServerThread, demo_caller: DemoAccount, administrator: Callable[[str], Any]) -> None:
    """sales.orders in each workgroup the explainer refuses demo-analyst: data-science's fix (this server's cost
    guard: Athena's UpdateWorkGroup, which the demo fills in for moto) guards it; encrypted-results' fix lets the
    caller decrypt the results it may write. Once
    finance-restricted can be described, its results key shows: one that does not exist, whose fix (the same
    UpdateWorkGroup) is the one left, and the query is refused as the explainer says."""
    name = "sales.orders"
    sql, rows = count_query(name)
    async with Client(server.url, mode="2026-07-28") as client:
        before = await _explain(client, name)
        refused = {workgroup: [entry for entry in links if entry["verdict"] == "denied"]
                   for workgroup, links in before["workgroups"].items()}
        refused = {workgroup: denied for workgroup, denied in refused.items() if denied}
        assert set(refused) == {"data-science", "encrypted-results", "finance-restricted", "partners"}, refused
        for workgroup, denied in refused.items():
            for entry in denied:
                for fix in entry["fix"]:
                    apply_fix(fix, administrator)
            after = {entry["check"]: entry for entry in (await _explain(client, name))["workgroups"][workgroup]}
            # each fixed link now holds (the cost guard's own link is there only while the server refuses)
            still = {e["check"]: after[e["check"]]["verdict"] for e in denied
                     if e["check"] in after and after[e["check"]]["verdict"] != "allowed"}
            assert not still and (workgroup != "data-science" or COST_GUARD not in after), after
            left = {check: entry for check, entry in after.items() if entry["verdict"] != "allowed"}
            result = await client.call_tool("athena_query", {"sql": sql, "database": "sales", "workgroup": workgroup})
            answer = json.loads(result.content[0].text)
            if workgroup in ("data-science", "encrypted-results", "partners"):
                assert not left and not result.is_error and answer["results"]["rows"] == [[rows]], (left, answer)
                continue
            kinds = [(check, entry["verdict"], [fix["kind"] for fix in entry.get("fix", [])])
                     for check, entry in left.items()]
            unusable = [(action, "denied", ["workgroup"]) for action in ("kms:GenerateDataKey", "kms:Decrypt")]
            assert kinds == unusable, json.dumps(left, indent=1)  # results written with the key, then read back
            assert result.is_error and answer["error"]["action"] == "kms:GenerateDataKey", answer


async def test_a_results_bucket_the_lake_account_owns(server: ServerThread, demo_caller: DemoAccount,
                                                      administrator: Callable[[str], Any]) -> None:
    """analytics' results moved to a bucket of the lake account (ExpectedBucketOwner naming it): the caller's IAM
    does not allow writing there (`denied`, refused); once it does, the bucket's policy (only its owner may read it)
    leaves the path `unknown` and the query is still refused; once the owner's policy allows the caller too, the
    query runs, and the explainer still says `unknown`, never `allowed` on what it cannot see."""
    bucket, name = "acme-partner-results", "sales.orders"
    sql, rows = count_query(name)
    athena, iam = administrator("athena"), iam_backends[demo_caller.account_id]["aws"]
    original = athena.get_work_group(WorkGroup="analytics")["WorkGroup"]["Configuration"]["ResultConfiguration"]
    policies = set(iam.list_user_policies(DEMO_CALLER_USER))
    s3_backends[LAKE_ACCOUNT]["aws"].create_bucket(bucket, demo_caller.region)
    athena.update_work_group(WorkGroup="analytics", ConfigurationUpdates={"ResultConfigurationUpdates": {
        "OutputLocation": f"s3://{bucket}/athena/", "ExpectedBucketOwner": LAKE_ACCOUNT}})
    try:
        async with Client(server.url, mode="2026-07-28") as client:
            async def both() -> tuple[dict[str, dict[str, Any]], dict[str, Any], bool]:
                explained = await _explain(client, name)
                result = await client.call_tool("athena_query", {"sql": sql, "database": "sales",
                                                                 "workgroup": "analytics"})
                answer = json.loads(result.content[0].text)
                links = {e["check"]: e for e in explained["workgroups"]["analytics"] if e["check"].startswith("s3:")}
                return links, answer, not result.is_error

            links, answer, ran = await both()
            assert {c: e["verdict"] for c, e in links.items()} == {"s3:PutObject": "denied", "s3:GetObject": "unknown"}
            assert not ran and answer["error"]["action"] == "s3:PutObject", answer
            owner = links["s3:PutObject"]["evidence"]["bucket_owner"]
            assert (owner["account"], owner["callers_account"]) == (LAKE_ACCOUNT, False), owner
            for fix in links["s3:PutObject"]["fix"]:
                apply_fix(fix, administrator)
            links, answer, ran = await both()
            assert {e["verdict"] for e in links.values()} == {"unknown"} and not ran, (links, answer)
            assert all(e["settle"].startswith(f"Only the bucket's owner ({LAKE_ACCOUNT})") for e in links.values())
            caller = f"arn:aws:iam::{demo_caller.account_id}:user/{DEMO_CALLER_USER}"
            grant = {"Effect": "Allow", "Principal": {"AWS": caller}, "Action": ["s3:PutObject", "s3:GetObject"],
                     "Resource": f"arn:aws:s3:::{bucket}/athena/*"}  # the owner's, in the lake account
            s3_backends[LAKE_ACCOUNT]["aws"].put_bucket_policy(bucket, json.dumps({
                "Version": "2012-10-17", "Statement": [grant]}).encode())
            links, answer, ran = await both()
            assert ran and answer["results"]["rows"] == [[rows]], answer
            assert {e["verdict"] for e in links.values()} == {"unknown"}, links
    finally:
        athena.update_work_group(WorkGroup="analytics", ConfigurationUpdates={"ResultConfigurationUpdates": {
            "OutputLocation": original["OutputLocation"], "RemoveExpectedBucketOwner": True}})
        for added in set(iam.list_user_policies(DEMO_CALLER_USER)) - policies:
            iam.delete_user_policy(DEMO_CALLER_USER, added)
