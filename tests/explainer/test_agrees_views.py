"""The explainer of a view agrees with what Athena does on the view, for every demo caller.

The two demo views over sales.orders: the Athena view `orders_by_channel` (read as the caller) and the Data
Catalog view `returns_summary` (read as its definer; SELECT on it granted to the analysts and the contractors, not
the admins). Each explainer is read through every path (both revisions, get_resource, the Lambda handler for the
plain demo); its `query` verdict is what `SELECT count(*) FROM sales.<view>` does in the workgroup it names.
Every demo caller may read sales.orders, so one more user, who reads no data bucket, shows both semantics apart.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from moto import settings

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.caller import Caller
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import BUCKET_RESULTS, QUERY_WORKGROUPS
from aws_data_mcp_demo.account.table_facts import VIEW_DEFINER_ROLE
from support.events import load_event
from support.reading import direct_read, read_everywhere
from support.servers import ServerThread, free_port, lambda_container, start_demo

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
VIEWS = ("orders_by_channel", "returns_summary")


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The oidc hosted demo: its URL and each caller's token."""
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("agrees-views"))
    names = re.findall(r"^== (\w+):", banner, re.M)
    tokens = dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    yield url, tokens
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def plain(demo: DemoAccount) -> Iterator[ServerThread]:
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20,
                        request_timeout_seconds=300)
    with ServerThread(settings) as server:
        yield server


@pytest.fixture(scope="module")
def handler(demo: DemoAccount) -> Callable[[dict[str, Any]], dict[str, Any]]:
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    return lambda_container(Settings(mode="demo", allowed_hosts=(host,), query_workgroups=QUERY_WORKGROUPS,
                                     request_timeout_seconds=300))


async def _read(client: Client, uri: str) -> dict[str, Any]:
    """The resource read, and read again through get_resource: both must say the same."""
    text = (await client.read_resource(uri)).contents[0].text
    tool = await client.call_tool("get_resource", {"uri": uri})
    assert not tool.is_error and tool.content[0].text == text, tool.content[0].text
    return json.loads(text)  # type: ignore[no-any-return]


async def _agreement(client: Client) -> dict[str, tuple[dict[str, Any], bool, dict[str, Any]]]:
    """View -> (its explainer's answer, whether the count ran, athena_query's answer)."""
    found = {}
    for view in VIEWS:
        explained = await _read(client, f"permissions://tables/sales/{view}")
        result = await client.call_tool("athena_query", {
            "sql": f"SELECT count(*) FROM sales.{view}", "database": "sales", "workgroup": explained["workgroup"]})
        answer = json.loads(result.content[0].text)
        if result.is_error:
            assert answer["error"]["error"] == "access_denied", (view, answer)  # refused for access, nothing else
        found[view] = (explained, not result.is_error, answer)
    return found


def _assert_agrees(caller: str, found: dict[str, tuple[dict[str, Any], bool, dict[str, Any]]]) -> None:
    disagreeing = {view: (explained["query"], explained["summary"], ran, answer.get("error"))
                   for view, (explained, ran, answer) in found.items()
                   if explained["query"] != ("allowed" if ran else "denied")}
    assert not disagreeing, f"{caller}: the view's explainer vs athena_query: {disagreeing}"


def _assert_shape(found: dict[str, tuple[dict[str, Any], bool, dict[str, Any]]], account: str) -> None:
    """What a reader checks in each view's answer: how it runs, its base table and whose links those are."""
    athena, catalog = found["orders_by_channel"][0], found["returns_summary"][0]
    assert athena["view"] == {"kind": "athena_view", "runs_as": "invoker", "definer": None}
    assert [(b["database"], b["table"], b["checked_as"]) for b in athena["base_tables"]] == [
        ("sales", "orders", "invoker")]
    assert catalog["view"] == {"kind": "data_catalog_view", "runs_as": "definer",
                               "definer": f"arn:aws:iam::{account}:role/{VIEW_DEFINER_ROLE}"}
    base = catalog["base_tables"][0]
    assert (base["table"], base["checked_as"], base["links"][0]["evidence"]["checked_as"]) == (
        "orders", "definer", "definer")
    assert [e["check"] for e in catalog["links"]][-1] == "lakeformation:SELECT"
    assert "deep" in athena["followed"] and "base tables" in catalog["followed"]


async def test_the_plain_demo_caller_through_every_path(plain: ServerThread, handler: Callable[[dict[str, Any]],
                                                        dict[str, Any]], demo_caller: DemoAccount) -> None:
    for view in VIEWS:  # both revisions, get_resource and the Lambda handler give the same answer
        read = await read_everywhere(plain.url, handler, f"permissions://tables/sales/{view}")
        assert read["query"] == "allowed", read["summary"]
    async with Client(plain.url, mode="2026-07-28") as client:
        found = await _agreement(client)
    _assert_agrees("demo-analyst", found)
    _assert_shape(found, demo_caller.account_id)
    assert {view: found[view][2]["state"] for view in VIEWS} == dict.fromkeys(VIEWS, "SUCCEEDED")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("caller", ["alice", "bob", "carol"])
async def test_each_hosted_caller(hosted: tuple[str, dict[str, str]], caller: str, mode: str) -> None:
    url, tokens = hosted
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens[caller]}"}, timeout=60) as http, \
            Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        found = await _agreement(client)
    _assert_agrees(caller, found)
    account = found["returns_summary"][0]["principal_arn"].split(":")[4]
    _assert_shape(found, account)
    athena, catalog = found["orders_by_channel"][0], found["returns_summary"][0]
    if caller == "bob":  # no SELECT on the Data Catalog view: refused at the view, whatever he reads beneath
        assert catalog["query"] == "denied" and catalog["refused_at"]["table"] == "sales.returns_summary"
        assert catalog["refused_at"]["check"] == "lakeformation:SELECT" and catalog["decided_by"] == "lake_formation"
        fix = next(e for e in catalog["links"] if e["verdict"] == "denied")["fix"][0]
        assert fix["kind"] == "lake_formation_grant" and fix["target"] == "sales.returns_summary"
    if caller == "carol":  # reads sales.orders herself, and the Data Catalog view through her own grant
        assert athena["query"] == "allowed" and athena["base_tables"][0]["query"] == "allowed", athena["summary"]
        assert catalog["query"] == "allowed" and catalog["read_columns"], catalog["summary"]
    if caller != "bob":  # the definer's grant on sales.orders is not listed to a caller who holds none there
        assert catalog["definer_reads"] == "unknown" and "definer" in catalog["summary"]
        assert "list-permissions" in catalog["base_tables"][0]["links"][0]["settle"]


@pytest.fixture(scope="module")
def outsider(demo: DemoAccount) -> boto3.Session:
    """A user who may query (Glue, Athena, the results bucket) but read no data bucket: granted SELECT on the Data
    Catalog view alone. Created while moto does not enforce IAM, as an administrator would."""
    saved = settings.INITIAL_NO_AUTH_ACTION_COUNT
    settings.INITIAL_NO_AUTH_ACTION_COUNT = float("inf")
    try:
        iam = demo.caller_client("iam")
        iam.create_user(UserName="view-reader")
        iam.put_user_policy(UserName="view-reader", PolicyName="query", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Resource": "*", "Action": [
                    "glue:Get*", "athena:*", "lakeformation:List*", "lakeformation:Get*", "s3:ListAllMyBuckets",
                    "iam:SimulatePrincipalPolicy", "kms:GetKeyPolicy", "kms:ListAliases"]},
                {"Effect": "Allow", "Action": "s3:*", "Resource": [
                    f"arn:aws:s3:::{BUCKET_RESULTS}", f"arn:aws:s3:::{BUCKET_RESULTS}/*"]}]}))
        key = iam.create_access_key(UserName="view-reader")["AccessKey"]
        demo.caller_client("lakeformation").grant_permissions(
            Principal={"DataLakePrincipalIdentifier": f"arn:aws:iam::{demo.account_id}:user/view-reader"},
            Resource={"Table": {"DatabaseName": "sales", "Name": "returns_summary"}}, Permissions=["SELECT"])
    finally:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = saved
    return boto3.Session(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"],
                         region_name=demo.region)


def _athena_runs(session: boto3.Session, endpoint: str, sql: str, workgroup: str) -> tuple[bool, str]:
    """Whether the query succeeds in the demo's Athena as `session`, and why not."""
    athena = session.client("athena", endpoint_url=endpoint)
    started = athena.start_query_execution(QueryString=sql, WorkGroup=workgroup,
                                           QueryExecutionContext={"Database": "sales"})["QueryExecutionId"]
    for _ in range(6000):  # a guard against a query that never ends, not a budget
        status = athena.get_query_execution(QueryExecutionId=started)["QueryExecution"]["Status"]
        if status["State"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            return status["State"] == "SUCCEEDED", status.get("StateChangeReason", "")
        time.sleep(0.05)
    raise AssertionError(f"{sql}: still {status['State']}")


def test_a_caller_who_reads_no_base_table_reads_the_data_catalog_view_as_its_definer(
        demo: DemoAccount, outsider: boto3.Session) -> None:
    """Athena's view is refused at sales.orders; the Data Catalog view runs, read with its definer's grants."""
    arn = f"arn:aws:iam::{demo.account_id}:user/view-reader"
    who = Caller("local", outsider, demo.region, principal_arn=arn, account=demo.account_id)
    settings_ = Settings(mode="demo", query_workgroups=QUERY_WORKGROUPS, request_timeout_seconds=300)
    athena = direct_read("permissions://tables/sales/orders_by_channel", settings_, lambda: who)
    catalog = direct_read("permissions://tables/sales/returns_summary", settings_, lambda: who)
    assert athena["query"] == "denied" and athena["refused_at"]["table"] == "sales.orders", athena["summary"]
    assert catalog["query"] == "allowed", catalog["summary"]
    for view, explained in (("orders_by_channel", athena), ("returns_summary", catalog)):
        ran, why = _athena_runs(outsider, demo.endpoint_url, f"SELECT count(*) FROM sales.{view}",
                                explained["workgroup"])
        assert ran == (explained["query"] == "allowed"), (view, why)
