"""The S3 table's explainer agrees with what AWS does, in the demo's emulated account: for every demo caller (the
plain demo's, and alice, bob and carol of the hosted demo), the `query` verdict of
permissions://catalogs/s3tablescatalog%2Facme-analytics/tables/sales/daily_orders is what athena_query, with
`catalog="s3tablescatalog/acme-analytics"`, then does in the workgroup it names: runs, or is refused for access.

Read through every path a client takes: the SDK client over HTTP on both revisions, `get_resource` and the Lambda
handler with API Gateway events (the plain caller), and each hosted caller's bearer token on both revisions. bob's
role lacks s3tables:GetTableData on the table: `denied` there, with the statement that grants exactly that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from aws_data_mcp.config import Settings
from aws_data_mcp.explainer.uris import catalog_table_uri
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.s3_tables import CATALOG, DATA_ACTION, NAMESPACE, TABLE
from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS
from support.events import load_event
from support.queries import query_as
from support.reading import read_everywhere
from support.servers import ServerThread, free_port, lambda_container, start_demo

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
URI = catalog_table_uri(CATALOG, NAMESPACE, TABLE)
REVISIONS = ("legacy", "2026-07-28")
COUNT = f"SELECT count(*) AS n FROM {TABLE}"


def _settings(**more: Any) -> Settings:
    # A read's deadline as a failure guard, not a budget: the machine's cores are shared.
    return Settings(mode="demo", query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=20,
                    request_timeout_seconds=300, **more)


@pytest.fixture(scope="module")
def plain(demo: DemoAccount) -> Iterator[ServerThread]:
    with ServerThread(_settings(port=free_port())) as server:
        yield server


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The oidc hosted demo: its URL and each caller's token."""
    process, url, banner = start_demo("oidc", Path(tmp_path_factory.mktemp("agrees-s3-tables")))
    names = re.findall(r"^== (\w+):", banner, re.M)
    yield url, dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    process.terminate()
    process.wait(10)


def _arguments(explained: dict[str, Any]) -> dict[str, Any]:
    return {"sql": COUNT, "database": NAMESPACE, "catalog": CATALOG, "workgroup": explained["workgroup"]}


def _ran(failed: bool, answer: dict[str, Any]) -> bool:
    if failed:  # refused for access, nothing else
        assert (answer.get("error") or answer)["error"] == "access_denied", answer
    return not failed


def _link(explained: dict[str, Any], check: str) -> dict[str, Any]:
    return next(entry for entry in explained["links"] if entry["check"] == check)


async def test_the_plain_caller_reads_it_everywhere_and_it_agrees(plain: ServerThread,
                                                                  demo_caller: DemoAccount) -> None:
    host = load_event("http-api-v2/resources-read-static.json")["headers"]["host"]
    explained = await read_everywhere(plain.url, lambda_container(_settings(allowed_hosts=(host,))), URI)
    async with Client(plain.url, mode="2026-07-28") as client:
        result = await client.call_tool("athena_query", _arguments(explained))
        table = json.loads((await client.read_resource(
            f"athena://catalogs/{URI.split('/')[3]}/databases/{NAMESPACE}/tables/{TABLE}")).contents[0].text)
    answer = json.loads(result.content[0].text)
    assert (explained["query"], _ran(bool(result.is_error), answer)) == ("allowed", True), explained["summary"]
    assert {entry["verdict"] for entry in explained["links"]} == {"allowed"}
    assert table["column_access"]["explain"] == URI  # the table's resource links its explainer


async def test_every_hosted_caller_agrees(hosted: tuple[str, dict[str, str]]) -> None:
    url, tokens = hosted
    verdicts: dict[str, tuple[str, bool]] = {}
    found: dict[str, dict[str, Any]] = {}
    for name, token in tokens.items():
        texts = []
        for mode in REVISIONS:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=300) as http, \
                    Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                texts.append((await client.read_resource(URI)).contents[0].text)
        assert len(set(texts)) == 1, name
        found[name] = json.loads(texts[0])
        failed, answer = await query_as(url, token, _arguments(found[name]))
        verdicts[name] = (found[name]["query"], _ran(failed, answer))
    assert {name: verdict for name, (verdict, ran) in verdicts.items()
            if verdict != ("allowed" if ran else "denied")} == {}, verdicts
    assert verdicts["alice"] == ("allowed", True) and verdicts["bob"] == ("denied", False), verdicts
    data = _link(found["bob"], DATA_ACTION)
    assert data["verdict"] == "denied" and found["bob"]["summary"].startswith(f"denied: {DATA_ACTION}")
    assert data["fix"][-1]["statement"] | {"Condition": None} == {
        "Effect": "Allow", "Action": [DATA_ACTION], "Resource": [data["resource"]], "Condition": None}
    assert data["resource"].endswith(f"bucket/acme-analytics/table/{TABLE}")
    assert {e["check"] for e in found["bob"]["links"] if e["verdict"] != "allowed"} == {DATA_ACTION}
