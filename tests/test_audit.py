"""The audit line of every MCP call, as an operator reads it, through the SDK client over local HTTP and the Lambda
path: one line per request with who asked, what, how it ended, the AWS requests it made (each carrying the call's
id in its User-Agent, which CloudTrail records) and, for a query, its execution, workgroup, scan and cost.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from aws_data_mcp import audit
from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import local_chain
from support.audit_lines import audit_lines, explode, query_workgroup
from support.events import body_json, http_api_event, rpc
from support.logs import RecordKeeper
from support.servers import ServerThread, free_port, lambda_container

WORKGROUP = "audited"
SQL = "SELECT order_id FROM sales.orders WHERE customer = 'secret-customer-literal'"
LITERAL = "secret-customer-literal"


class UserAgents:
    """The User-Agent of every request the local caller's session sends to AWS (the header CloudTrail records)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        local_chain.session().events.register("before-send", self._seen)

    def _seen(self, event_name: str, request: Any, **_: Any) -> None:
        agent = request.headers.get("User-Agent") or b""
        self.sent.append((event_name.split(".", 1)[1], agent.decode() if isinstance(agent, bytes) else agent))

    def of(self, call_id: str) -> list[str]:
        return [operation for operation, agent in self.sent if f"{audit.USER_AGENT_MARK}{call_id}" in agent]


@pytest.fixture(scope="module")
def workgroup() -> None:
    query_workgroup(WORKGROUP)


@pytest.fixture(scope="module")
def server(workgroup: None) -> Iterator[ServerThread]:
    with ServerThread(Settings(mode="local", port=free_port(), query_workgroups=(WORKGROUP,), cache_ttl_seconds=0,
                               query_wait_seconds=2)) as running:
        yield running


@pytest.fixture
def exploding(monkeypatch: pytest.MonkeyPatch) -> None:
    explode(monkeypatch, "config://security")


def one(found: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """The one line whose fields include `fields`."""
    matching = [line for line in found if fields.items() <= line.items()]
    assert len(matching) == 1, (fields, found)
    return matching[0]


@pytest.mark.anyio
@pytest.mark.usefixtures("exploding")
async def test_http_a_read_a_query_a_refusal_and_a_failure_each_write_one_line(
        server: ServerThread, log_records: RecordKeeper) -> None:
    agents = UserAgents()
    async with Client(server.url) as client:
        status = json.loads((await client.read_resource("auth://status")).contents[0].text)
        queried = await client.call_tool("athena_query", {"sql": SQL, "database": "sales"})
        refused = await client.call_tool("athena_query", {"sql": "DELETE FROM sales.orders", "database": "sales"})
        with pytest.raises(MCPError):
            await client.read_resource("config://security")
    found = audit_lines(log_records)

    read = one(found, method="resources/read", uri="auth://status")
    assert read["outcome"] == "answered" and read["transport"] == "http"
    assert read["principal_arn"] == status["principal_arn"] and read["account"] == status["account"]
    assert read["auth_mode"] == "local" and "error" not in read
    assert read["client"].startswith("mcp"), read  # which agent asked: the SDK client's own name and version

    answer = queried.structured_content
    assert not queried.is_error, queried.content[0].text
    query = one(found, method="tools/call", tool="athena_query", outcome="answered")
    assert query["principal_arn"] == status["principal_arn"]
    assert query["query"] | {"execution_id": answer["execution_id"], "workgroup": WORKGROUP,
                             "state": answer["state"], "catalog": "AwsDataCatalog", "database": "sales",
                             "tables": ["sales.orders"], "statement": "SELECT",
                             "sql_sha256": hashlib.sha256(SQL.encode()).hexdigest(),
                             "data_scanned_bytes": answer["statistics"]["data_scanned_bytes"],
                             "cost_usd": answer["statistics"]["cost_usd"]} == query["query"]
    assert "sql" not in query["query"] and LITERAL not in json.dumps(found)
    # Each request the query sent AWS carries its call id in its User-Agent, and it counted every one.
    sent = agents.of(query["call_id"])
    assert "athena.StartQueryExecution" in sent and len(sent) == query["aws_calls"]
    assert query["aws_operations"]["athena:StartQueryExecution"] == 1
    assert not agents.of(read["call_id"]) or set(agents.of(read["call_id"])) <= {"sts.GetCallerIdentity"}

    assert refused.is_error
    refusal = one(found, method="tools/call", tool="athena_query", outcome="refused")
    assert refusal["error"] == "invalid_argument" and refusal["aws_calls"] == 0 and agents.of(refusal["call_id"]) == []

    failure = one(found, method="resources/read", uri="config://security")
    assert failure["outcome"] == "failed" and failure["error"] == "internal"
    assert len({line["call_id"] for line in found}) == len(found), "every call its own id"


def test_lambda_path_writes_one_line_per_event_and_the_sql_only_where_the_operator_allows(
        workgroup: None, log_records: RecordKeeper) -> None:
    invoke = lambda_container(Settings(mode="local", query_workgroups=(WORKGROUP,), audit_sql="full",
                                       allowed_hosts=(http_api_event(None)["headers"]["host"],)))
    requests = [rpc("resources/read", {"uri": "athena://workgroups"}, 1),
                rpc("tools/call", {"name": "athena_query", "arguments": {"sql": SQL, "database": "sales"}}, 2),
                rpc("tools/call", {"name": "get_resource", "arguments": {"uri": "athena://databases/sales/tables"}}, 3),
                rpc("no/such-method", None, 4)]
    answers = [body_json(invoke(http_api_event(body, request_id=f"apigw-{index}")))
               for index, body in enumerate(requests)]
    found = audit_lines(log_records)

    assert [line["request_id"] for line in found] == [1, 2, 3, 4], "one line per event, in order"
    assert {line["transport"] for line in found} == {"lambda"}
    workgroups, query, tables, unknown = found
    assert workgroups["outcome"] == "answered" and workgroups["aws_calls"] >= 1
    assert query["query"]["sql"] == SQL and query["query"]["execution_id"] == \
        answers[1]["result"]["structuredContent"]["execution_id"]
    assert tables["tool"] == "get_resource" and tables["uri"] == "athena://databases/sales/tables"
    assert tables["catalog"] == "AwsDataCatalog"
    assert unknown["outcome"] == "refused" and unknown["error"] == "method_not_found"


@pytest.mark.anyio
async def test_stdio_writes_each_call_s_line_to_stderr_never_to_the_protocol_s_stdout(tmp_path: Path) -> None:
    """stdout is the protocol's: the lines go to stderr, one per request, readable as key=value."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "aws_data_mcp", "stdio"], env=dict(os.environ))
    errors = tmp_path / "stderr.log"
    with errors.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            status = json.loads((await client.read_resource("auth://status")).contents[0].text)
            refused = await client.call_tool("athena_query", {"sql": "DELETE FROM sales.orders", "database": "sales"})
    written = [line for line in errors.read_text().splitlines() if " INFO mcp call " in line]

    assert refused.is_error
    read = [line for line in written if " method=resources/read uri=auth://status " in line]
    assert len(read) == 1, written
    assert " transport=stdio " in read[0] and f" principal_arn={status['principal_arn']} " in read[0]
    assert " outcome=answered " in read[0] and " client=mcp" in read[0]
    query = [line for line in written if " tool=athena_query " in line]
    assert len(query) == 1 and " outcome=refused " in query[0] and " error=invalid_argument" in query[0], written
