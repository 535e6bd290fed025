"""Trust annotations through the real protocol, both revisions: a client that negotiates
`io.modelcontextprotocol/trust-annotations` finds every answer carrying text others wrote marked untrusted (the
catalog, a query's cells, get_resource of either), the server's own documents unmarked; a client that does not gets
no mark; and text others wrote (the demo's Glue comments) never reaches the instructions or a tool's description."""

from __future__ import annotations

import boto3
import pytest
from mcp import Client
from mcp.client.extension import ClientExtension

from aws_data_mcp.server.trust_marks import EXTENSION_ID
from aws_data_mcp_demo.account.emulated import DemoAccount
from support.servers import ServerThread

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("quick_queries")]
REVISIONS = ("legacy", "2026-07-28")
SQL = "SELECT order_id, channel FROM orders LIMIT 3"
MARK = {"untrusted": True}


class TrustAnnotations(ClientExtension):
    identifier = EXTENSION_ID


@pytest.fixture(scope="module")
def server(demo_query_http: ServerThread) -> ServerThread:
    return demo_query_http


@pytest.mark.parametrize("mode", REVISIONS)
async def test_answers_with_others_text_are_marked_for_a_client_that_asks(server: ServerThread,
                                                                          demo_caller: DemoAccount,
                                                                          mode: str) -> None:
    async with Client(server.url, mode=mode, extensions=[TrustAnnotations()]) as client:
        catalog = (await client.read_resource("athena://databases/sales/tables")).contents[0]
        own = (await client.read_resource("info://capabilities")).contents[0]
        query = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"})
        read_through_tool = await client.call_tool("get_resource", {"uri": "athena://databases/sales/tables"})
        discovery = await client.call_tool("get_resource", {})
        own_through_tool = await client.call_tool("get_resource", {"uri": "config://server"})
    assert (catalog.meta or {}).get(EXTENSION_ID) == MARK
    assert query.meta[EXTENSION_ID] == MARK and read_through_tool.meta[EXTENSION_ID] == MARK
    assert not query.is_error and "order_id" in query.content[0].text
    for unmarked in (own.meta, discovery.meta, own_through_tool.meta):
        assert EXTENSION_ID not in (unmarked or {})


@pytest.mark.parametrize("mode", REVISIONS)
async def test_a_client_that_does_not_ask_gets_no_mark(server: ServerThread, demo_caller: DemoAccount,
                                                       mode: str) -> None:
    async with Client(server.url, mode=mode) as client:
        catalog = (await client.read_resource("athena://databases/sales/tables")).contents[0]
        query = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"})
    assert EXTENSION_ID not in (catalog.meta or {}) and EXTENSION_ID not in (query.meta or {})


async def test_others_text_never_reaches_the_instructions_or_a_tool_description(server: ServerThread,
                                                                               demo: DemoAccount) -> None:
    glue = boto3.client("glue", endpoint_url=demo.endpoint_url, region_name=demo.region,
                        **{k.lower(): v for k, v in demo.caller_environment().items()
                           if k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")})
    written = set()
    for database in glue.get_databases()["DatabaseList"]:
        written.add(database.get("Description", ""))
        for table in glue.get_tables(DatabaseName=database["Name"])["TableList"]:
            written.add(table.get("Description", ""))
            written |= {column.get("Comment", "") for column in table.get("StorageDescriptor", {}).get("Columns", [])}
    written = {text for text in written if len(text) > 12}
    assert len(written) > 10
    async with Client(server.url, mode="2026-07-28", extensions=[TrustAnnotations()]) as client:
        said = [client.instructions or ""]
        said += [tool.description or "" for tool in (await client.list_tools()).tools]
        said += [resource.description or "" for resource in (await client.list_resources()).resources]
    assert not [text for text in written if any(text in words for words in said)]
