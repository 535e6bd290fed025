"""permissions://tables agrees with what AWS does, in the demo's emulated account: for every demo caller (the plain
demo's, and alice, bob and carol of the hosted demo) and every demo table, the explainer's `query` verdict, read
through MCP, is what athena_query then does in the workgroup it names (runs, or is refused for access); and outside
Lake Formation each S3, Glue and KMS verdict is the outcome of the same call made directly as that caller.

The lakehouse's open-format tables too (`lakehouse.orders_iceberg`, read from its manifests; the projected
`lakehouse.clickstream_projected`), each counted whole: alice's role may not use the key of orders_iceberg's newest
day, so the explainer says `denied` at that day's data file, the count is refused, and a count that filters the day
out runs.

The `enterprise` database's tables (demo/enterprise_lake.py) too, each read whole (`SELECT *`, every partition):
the verdict is what the query does, and where it runs, `read_columns` are the columns it returns and the rows it
returns are the seeded rows `row_filter` lets through (all of them where there is none). Their direct calls are not
compared: Athena's request is not the caller's (aws:CalledVia, no aws:SourceVpce), which is what those cases test.
`unknown` is accepted only where the server cannot decide (`ATHENA_CONTEXT_UNKNOWN`). And for every query workgroup,
athena://workgroups says it is usable exactly where `SELECT 1` runs there. Every demo table in every query workgroup
too: the explainer's verdict there is what the query does, and a read Athena refused for the table's data links that
table's explainer; within one answer, no link's evidence names another action than its own.
"""

from __future__ import annotations

import configparser
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import boto3
import duckdb
import httpx2
import pytest
from botocore.exceptions import ClientError
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from aws_data_mcp.config import Settings
from aws_data_mcp_demo.account import enterprise as enterprise_lake
from aws_data_mcp_demo.account import lakehouse
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.demo_access import count_query
from support.queries import query_as
from support.servers import ServerThread, free_port, start_demo

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
LAKEHOUSE = [f"{lakehouse.DATABASE}.{lakehouse.TABLE}", f"{lakehouse.DATABASE}.{lakehouse.CLICKSTREAM}"]
"""Counted whole: the explainer's verdict is about every file a SELECT of the table reads."""
TABLES = [*lake_files(), *LAKEHOUSE]
ENTERPRISE = list(enterprise_lake.TABLES)
ATHENA_CONTEXT_UNKNOWN: frozenset[str] = frozenset()
"""Tables whose explainer may stay `unknown` for Athena's request context. The demo's two (vpce_only_logs,
vpce_exempt_logs: bucket policies conditioned on aws:SourceVpce and aws:CalledVia, keys Athena's forward access
session carries and the server's probe does not) are decided by IAM's simulator for every caller: an IAM user as
itself, a role through a stand-in user, as both policies decide alike for any principal. None is left."""


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], str]]:
    """The oidc hosted demo: its URL, each caller's token, and its callers' AWS credentials file."""
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("agrees"))
    names = re.findall(r"^== (\w+):", banner, re.M)
    tokens = dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    credentials = re.search(r"AWS_SHARED_CREDENTIALS_FILE=(\S+)", banner)
    assert credentials is not None, banner
    yield url, tokens, credentials.group(1)
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def plain(demo: DemoAccount) -> Iterator[ServerThread]:
    # A read's deadline as a failure guard, not a budget: an explainer on a machine whose cores are busy may take
    # longer than a user's 25 s, and what is asserted is its verdict.
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20,
                        request_timeout_seconds=300)
    with ServerThread(settings) as server:
        yield server


def _count_sql(name: str) -> str:
    """A count within any cutoff: a lake table's first partition, a lakehouse table whole (a few MB)."""
    return f"SELECT count(*) AS n FROM {name}" if name in LAKEHOUSE else count_query(name)[0]


async def _agreement(client: Client) -> dict[str, tuple[str, bool, dict[str, Any]]]:
    """Table -> (the explainer's query verdict, whether athena_query ran there, the explanation)."""
    found: dict[str, tuple[str, bool, dict[str, Any]]] = {}

    async def one(name: str) -> None:
        database, table = name.split(".")
        explained = json.loads((await client.read_resource(f"permissions://tables/{database}/{table}"))
                               .contents[0].text)
        sql = _count_sql(name)
        result = await client.call_tool("athena_query", {"sql": sql, "database": database,
                                                         "workgroup": explained["workgroup"]})
        answer = json.loads(result.content[0].text)
        if result.is_error:
            assert answer["error"]["error"] == "access_denied", (name, answer)  # refused for access, nothing else
        found[name] = (explained["query"], not result.is_error, explained)

    async with anyio.create_task_group() as group:
        for name in TABLES:
            group.start_soon(one, name)
    return found


def _assert_agrees(caller: str, found: dict[str, tuple[str, bool, dict[str, Any]]]) -> None:
    disagreeing = {name: (verdict, ran) for name, (verdict, ran, _) in found.items()
                   if verdict != ("allowed" if ran else "denied")}
    assert not disagreeing, f"{caller}: explainer verdict vs athena_query ran: {disagreeing}"
    contradicting = {name: _contradictions(explained) for name, (_, _, explained) in found.items()
                     if _contradictions(explained)}
    assert not contradicting, f"{caller}: links whose evidence names another action: {contradicting}"


def _contradictions(explained: dict[str, Any]) -> list[tuple[str, str]]:
    """Links whose evidence's error names another action than the link checks (a kms:Decrypt link saying "not
    allowed s3:GetObject" beside an s3:GetObject link saying allowed), and write grants fixing a read."""
    every = [*explained["links"], *(entry for links in explained["workgroups"].values() for entry in links)]
    named = [(entry["check"], entry["evidence"]["error"].get("action")) for entry in every
             if isinstance(entry["evidence"].get("error"), dict) and entry["evidence"]["error"].get("action")
             and entry["check"].startswith(("s3:", "kms:"))]
    wrong = [(check, action) for check, action in named if action != check]
    writes = [(entry["check"], str(fix.get("statement", {}).get("Action"))) for entry in explained["links"]
              for fix in entry.get("fix") or [] if entry["check"] in ("s3:GetObject", "s3:ListBucket", "kms:Decrypt")
              and "Put" in str(fix.get("statement", {}).get("Action"))]
    return wrong + writes


async def _every_workgroup(client: Client) -> dict[tuple[str, str], tuple[str, bool, str | None, Any]]:
    """(table, workgroup) -> (the explainer's verdict in that workgroup, whether athena_query ran there, the
    refusal's explainer link, the refusal) for every demo table in every query workgroup."""
    found: dict[tuple[str, str], tuple[str, bool, str | None, Any]] = {}

    async def one(name: str) -> None:
        database, table = name.split(".")
        explained = json.loads((await client.read_resource(f"permissions://tables/{database}/{table}"))
                               .contents[0].text)
        for workgroup in QUERY_WORKGROUPS:
            # the data's S3 and KMS links do not bind a caller whose reads Lake Formation's role makes
            links = [*(entry for entry in explained["links"] if not (
                explained["decided_by"] == "lake_formation" and entry["check"].startswith(("s3:", "kms:")))),
                *explained["workgroups"].get(workgroup, [])]
            verdicts = {entry["verdict"] for entry in links}
            verdict = "denied" if "denied" in verdicts else "unknown" if "unknown" in verdicts else "allowed"
            result = await client.call_tool("athena_query", {"sql": _count_sql(name), "database": database,
                                                             "workgroup": workgroup})
            answer = json.loads(result.content[0].text)
            # Athena's failure is the answer's `error`; a refusal of this server's is the answer itself
            error = (answer["error"] if isinstance(answer.get("error"), dict) else answer) if result.is_error \
                else None
            found[(name, workgroup)] = (verdict, not result.is_error, (error or {}).get("explain"), error)

    async with anyio.create_task_group() as group:
        for name in TABLES:
            group.start_soon(one, name)
    return found


def _assert_every_workgroup_agrees(caller: str,
                                   found: dict[tuple[str, str], tuple[str, bool, str | None, Any]]) -> None:
    """The verdict in each workgroup is what the query does there; a query Athena refused for the table's data links
    that table's explainer (never a bucket's); a workgroup this server refuses is refused before Athena."""
    disagreeing = {key: (verdict, ran, (error or {}).get("message", "")[:160])
                   for key, (verdict, ran, _, error) in found.items() if verdict != ("allowed" if ran else "denied")}
    assert not disagreeing, f"{caller}: explainer verdict per workgroup vs athena_query: {disagreeing}"
    linked = {key: explain for key, (_, ran, explain, error) in found.items() if not ran
              and error["error"] == "access_denied" and "permissions://buckets/" in str(explain)
              and "Permission denied on S3 path" in error["message"]}
    assert not linked, f"{caller}: a table's refused read links a bucket's explainer: {linked}"
    table_links = {key: explain for key, (_, ran, explain, error) in found.items() if not ran
                   and "Permission denied on S3 path" in error["message"]}
    assert all(explain == "permissions://tables/{}/{}".format(*key[0].split(".")) for key, explain in
               table_links.items()), table_links


async def _enterprise_agreement(client: Client) -> dict[str, tuple[str, dict[str, Any] | None, dict[str, Any]]]:
    """Enterprise table -> (the explainer's verdict, what `SELECT *` returned where it ran, the explanation)."""
    found: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any]]] = {}

    async def one(table: str) -> None:
        database = enterprise_lake.DATABASE
        explained = json.loads((await client.read_resource(f"permissions://tables/{database}/{table}"))
                               .contents[0].text)
        result = await client.call_tool("athena_query", {"sql": f"SELECT * FROM {table}", "database": database,
                                                         "workgroup": explained["workgroup"]})
        answer = json.loads(result.content[0].text)
        if result.is_error:
            assert answer["error"]["error"] == "access_denied", (table, answer)  # refused for access, nothing else
        found[table] = (explained["query"], None if result.is_error else answer["results"], explained)

    async with anyio.create_task_group() as group:
        for table in ENTERPRISE:
            group.start_soon(one, table)
    return found


async def _workgroup_agreement(client: Client) -> dict[str, tuple[bool, bool, Any]]:
    """Query workgroup -> (athena://workgroups says it is usable, `SELECT 1` ran there, why it did not)."""
    listed = json.loads((await client.read_resource("athena://workgroups")).contents[0].text)["query_workgroups"]
    found = {}
    for entry in listed:
        result = await client.call_tool("athena_query", {"sql": "SELECT 1", "database": enterprise_lake.DATABASE,
                                                         "workgroup": entry["name"]})
        answer = json.loads(result.content[0].text)
        found[entry["name"]] = (entry["usable"], not result.is_error, answer.get("error"))
    return found


def _assert_workgroups_agree(caller: str, found: dict[str, tuple[bool, bool, Any]]) -> None:
    disagreeing = {name: (usable, error) for name, (usable, ran, error) in found.items() if usable != ran}
    assert set(found) == set(QUERY_WORKGROUPS), found
    assert not disagreeing, f"{caller}: athena://workgroups usable vs SELECT 1 ran: {disagreeing}"


def _seeded_rows(table: str, row_filter: str | None) -> int:
    """How many of the table's seeded rows (every partition) `row_filter` lets through, DuckDB judging the
    predicate (all of them where there is none)."""
    definition, partitions = enterprise_lake.TABLES[table]
    names = [name for name, _, _ in (*definition.columns, *definition.partition_keys)]
    rows = [(*row, *(d.partition("=")[2] for d in directory.split("/") if d))
            for directory, found in partitions.items() for row in found]
    with duckdb.connect() as db:
        db.execute(f"CREATE TABLE t ({', '.join(f'{n} VARCHAR' for n in names)})")
        db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(names))})", [list(map(str, r)) for r in rows])
        counted = db.execute(f"SELECT count(*) FROM t WHERE {row_filter or 'true'}").fetchone()
    assert counted is not None
    return int(counted[0])


def _athena_context_undecided(explained: dict[str, Any]) -> bool:
    """Whether the explanation is `unknown` only for the documented reason: the caller is a role, and each unknown
    link is a probe judged against bucket-policy statements that name a key of Athena's request."""
    unknown = [entry for entry in explained["links"] if entry["verdict"] == "unknown"]
    return ":role/" in (explained["simulated_as"] or "") and bool(unknown) and all(
        "athena_context_statements" in entry["evidence"] and entry.get("settle") for entry in unknown)


def _assert_enterprise_agrees(caller: str, found: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any]]]
                              ) -> None:
    disagreeing = {}
    for table, (verdict, results, explained) in found.items():
        if verdict == "unknown" and table in ATHENA_CONTEXT_UNKNOWN and _athena_context_undecided(explained):
            continue
        if verdict != ("allowed" if results is not None else "denied"):
            disagreeing[table] = (verdict, results is not None, explained["summary"])
        elif results is not None:
            columns = [column["name"] for column in results["columns"]]
            seeded = _seeded_rows(table, explained["row_filter"])
            if explained["read_columns"] != columns or len(results["rows"]) != seeded:
                disagreeing[table] = (explained["read_columns"], explained["row_filter"], columns,
                                      len(results["rows"]), seeded)
    assert not disagreeing, f"{caller}: enterprise tables, explainer vs SELECT *: {disagreeing}"


def _outcome(call: Any, **arguments: Any) -> str:
    try:
        call(**arguments)
    except ClientError as error:
        code = error.response["Error"]["Code"]
        assert code in ("AccessDenied", "AccessDeniedException", "403"), error
        return "denied"
    return "allowed"


def _assert_direct_calls_agree(caller: str, session: boto3.Session, endpoint: str | None,
                               found: dict[str, tuple[str, bool, dict[str, Any]]]) -> None:
    """Outside Lake Formation, each S3/Glue/KMS link's verdict is the same call's outcome as the caller."""
    s3, glue = (session.client(name, endpoint_url=endpoint) for name in ("s3", "glue"))
    for name, (_, _, explained) in found.items():
        if explained["decided_by"] != "iam":
            continue
        database, table = name.split(".")
        bucket, _, prefix = explained["location"].removeprefix("s3://").partition("/")
        links = {entry["check"]: entry for entry in reversed(explained["links"])}  # the root's (partitions follow)
        obj = links["s3:GetObject"]["evidence"].get("object")
        got = {"glue:GetDatabase": _outcome(glue.get_database, Name=database),
               "glue:GetTable": _outcome(glue.get_table, DatabaseName=database, Name=table),
               "s3:ListBucket": _outcome(s3.list_objects_v2, Bucket=bucket, Prefix=prefix, MaxKeys=1)}
        if "glue:GetPartitions" in links:  # a Hive table's (not an Iceberg or a projected table's)
            got["glue:GetPartitions"] = _outcome(glue.get_partitions, DatabaseName=database, TableName=table,
                                                 MaxResults=1)
        if obj is not None:
            read = _outcome(s3.get_object, Bucket=bucket, Key=obj, Range="bytes=0-0")
            kms_refused = links["kms:Decrypt"]["verdict"] == "denied"
            got["s3:GetObject"] = "allowed" if kms_refused else read  # S3 authorised it; the key refused it
            if links["kms:Decrypt"]["resource"] != "none":
                got["kms:Decrypt"] = read if links["s3:GetObject"]["verdict"] == "allowed" else "unknown"
        said = {check: links[check]["verdict"] for check in got}
        assert said == got, (caller, name, said, got)


async def test_the_plain_demo_caller(plain: ServerThread, demo_caller: DemoAccount) -> None:
    async with Client(plain.url, mode="2026-07-28") as client:
        found = await _agreement(client)
        enterprise = await _enterprise_agreement(client)
        workgroups = await _workgroup_agreement(client)
        every = await _every_workgroup(client)
    _assert_agrees("demo-analyst", found)
    _assert_every_workgroup_agrees("demo-analyst", every)
    _assert_enterprise_agrees("demo-analyst", enterprise)
    _assert_workgroups_agree("demo-analyst", workgroups)
    _assert_direct_calls_agree("demo-analyst", demo_caller.caller_session(), None, found)


@pytest.mark.parametrize("caller", ["alice", "bob", "carol"])
async def test_each_hosted_caller(hosted: tuple[str, dict[str, str], str], caller: str) -> None:
    url, tokens, credentials_file = hosted
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens[caller]}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        found = await _agreement(client)
        enterprise = await _enterprise_agreement(client)
        workgroups = await _workgroup_agreement(client)
        every = await _every_workgroup(client)
    _assert_agrees(caller, found)
    _assert_every_workgroup_agrees(caller, every)
    _assert_enterprise_agrees(caller, enterprise)
    _assert_workgroups_agree(caller, workgroups)
    profile = configparser.ConfigParser()
    profile.read(Path(credentials_file))
    keys = profile[f"demo-{caller}"]
    config = configparser.ConfigParser()
    config.read(Path(credentials_file).with_name("config"))
    session = boto3.Session(aws_access_key_id=keys["aws_access_key_id"],
                            aws_secret_access_key=keys["aws_secret_access_key"],
                            aws_session_token=keys["aws_session_token"], region_name="us-east-1")
    _assert_direct_calls_agree(caller, session, config[f"profile demo-{caller}"]["endpoint_url"], found)


async def test_alice_reads_orders_iceberg_but_its_newest_day(hosted: tuple[str, dict[str, str], str]) -> None:
    """The explainer names the newest day's data file and its key; Athena refuses what reads it, not what skips it."""
    url, tokens, _ = hosted
    name = f"{lakehouse.DATABASE}.{lakehouse.TABLE}"
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens['alice']}"}, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        explained = json.loads((await client.read_resource(
            f"permissions://tables/{lakehouse.DATABASE}/{lakehouse.TABLE}")).contents[0].text)
    arguments = {"database": lakehouse.DATABASE, "workgroup": explained["workgroup"]}
    every_day_failed, every_day = await query_as(url, tokens["alice"], arguments | {
        "sql": f"SELECT count(*) AS n FROM {name}"})
    closed_failed, closed = await query_as(url, tokens["alice"], arguments | {
        "sql": f"SELECT count(*) AS n FROM {name} WHERE order_ts < TIMESTAMP '{lakehouse.APPENDED_DAY} 00:00:00'"})
    denied = [entry for entry in explained["links"] if entry["verdict"] == "denied"]
    assert explained["query"] == "denied" and [entry["check"] for entry in denied] == ["kms:Decrypt"], denied
    assert f"order_ts_day={lakehouse.APPENDED_DAY}/" in denied[0]["evidence"]["object"]
    assert denied[0]["evidence"]["reads"] == "data files" and denied[0]["fix"][0]["kind"] == "key_policy"
    assert every_day_failed and every_day["error"]["error"] == "access_denied", every_day
    assert "kms:Decrypt" in json.dumps(every_day["error"])
    assert not closed_failed and closed["state"] == "SUCCEEDED" and int(closed["results"]["rows"][0][0]) > 0, closed
