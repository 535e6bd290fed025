"""The audit line of hosted callers through the real Lambda handler: two iam callers interleaved in one warm
container, each line naming its own caller (the role session AWS sees and the person its SourceIdentity pins), for
a read, a query, a refusal and a failure; STS's own request (the exchange) carries the call's id as well.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from aws_data_mcp import audit
from aws_data_mcp.identity.hosted.exchange import function_session
from support.audit_lines import audit_lines, explode, query_workgroup
from support.faults import AwsFaults
from support.logs import RecordKeeper
from support.servers import lambda_container

from .hosted_support import ACCOUNT, FUNCTION_ROLE, IAM, ISSUER, OIDC, iam_event, oidc_event, read, sent

WORKGROUP = "audited-hosted"
CALLERS = (("DataAnalyst", "alice"), ("DataAdmin", "bob"))


@pytest.fixture(scope="module")
def workgroup() -> None:
    query_workgroup(WORKGROUP)


@pytest.fixture
def exploding(monkeypatch: pytest.MonkeyPatch) -> None:
    explode(monkeypatch, "athena://named-queries")  # a resolver that reads as the caller


def tool_event(role: str, session: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    event = iam_event(role, session)
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                "params": {"name": name, "arguments": arguments}})
    return event


@pytest.mark.usefixtures("roles", "workgroup", "exploding")
def test_two_callers_interleaved_each_line_names_its_own_caller(log_records: RecordKeeper, sts: AwsFaults) -> None:
    agents: list[str] = []

    def seen(event_name: str, request: Any, **_: Any) -> None:
        agent = request.headers.get("User-Agent") or b""
        agents.append(f"{event_name} {agent.decode() if isinstance(agent, bytes) else agent}")

    # The function's own STS requests, as they leave (after every other handler has changed them).
    function_session._session.events.register_last("before-send", seen)
    invoke = lambda_container(dataclasses.replace(IAM, query_workgroups=(WORKGROUP,)))
    kinds = {
        "read": lambda role, who: iam_event(role, who, uri="athena://workgroups"),
        "query": lambda role, who: tool_event(role, who, "athena_query", {"sql": "SELECT 1", "database": "sales"}),
        "refusal": lambda role, who: tool_event(role, who, "athena_query",
                                                {"sql": "DROP TABLE sales.orders", "database": "sales"}),
        "failure": lambda role, who: iam_event(role, who, uri="athena://named-queries"),
    }
    sent: list[tuple[str, str]] = []
    for kind, event_of in kinds.items():
        for role, who in CALLERS:
            read(invoke, event_of(role, who))
            sent.append((kind, who))
    found = audit_lines(log_records)

    assert len(found) == len(sent) == 8, found
    for (kind, who), line in zip(sent, found, strict=True):
        role = dict((name, r) for r, name in CALLERS)[who]
        arn = f"arn:aws:sts::{ACCOUNT}:assumed-role/{role}/{who}"
        assert line["edge_caller"] == arn, (kind, line)  # who API Gateway vouched for, on every line
        if kind != "refusal":  # the guard refuses before the caller is resolved: no STS call for it
            assert line["principal_arn"] == arn and line["account"] == ACCOUNT, (kind, line)
        assert line["auth_mode"] == "iam" if kind != "refusal" else "principal_arn" not in line
        assert line["transport"] == "lambda"
        assert line["outcome"] == {"read": "answered", "query": "answered", "refusal": "refused",
                                   "failure": "failed"}[kind], (kind, line)
    reads, queries = found[:2], found[2:4]
    # A session name an unpinned role's caller chose is not a person: no `person` (PINNED_SESSION_ROLES is empty).
    assert all("person" not in line for line in found)
    # Each caller's first call exchanged its claim with STS, and that AssumeRole carried the call's id.
    assert [line["aws_operations"].get("sts:AssumeRole") for line in reads] == [1, 1]
    assert sts.calls["sts.AssumeRole"] == 2
    marked = [sum(f"{audit.USER_AGENT_MARK}{line['call_id']}" in agent for agent in agents) for line in reads]
    assert marked == [1, 1], agents
    assert all(line["query"]["workgroup"] == WORKGROUP and line["query"]["execution_id"] for line in queries)
    assert [line["error"] for line in found[4:6]] == ["invalid_argument"] * 2
    assert all(line["aws_calls"] == 0 for line in found[4:6]), "a refusal costs no AWS call"
    assert [line["error"] for line in found[6:]] == ["internal"] * 2


@pytest.mark.usefixtures("roles")
def test_session_tags_name_the_server_and_the_call_that_made_the_session(log_records: RecordKeeper,
                                                                        sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRole")
    tagged = lambda_container(dataclasses.replace(IAM, session_tags=True))
    plain = lambda_container(IAM)
    read(tagged, iam_event("DataAnalyst", "alice"))
    read(plain, iam_event("DataAdmin", "bob"))
    first, untagged = audit_lines(log_records)

    tags, no_tags = ({value for key, value in request.items() if key.startswith("Tags.member.")}
                     for request in requests)
    assert tags == {"mcp-server", "aws-data-mcp", "mcp-call", first["call_id"]}
    assert no_tags == set(), "off by default: a caller role's trust may not allow sts:TagSession"
    assert first["outcome"] == untagged["outcome"] == "answered"
    assert untagged["principal_arn"].endswith("assumed-role/DataAdmin/bob")


@pytest.mark.usefixtures("roles")
def test_with_session_tags_a_refusing_trust_gets_the_statement_with_tag_session(sts: AwsFaults) -> None:
    sts.fail("sts.AssumeRole", "AccessDenied", status=403, message=f"User: {FUNCTION_ROLE}/x is not authorized")
    invoke = lambda_container(dataclasses.replace(IAM, session_tags=True))
    error = read(invoke, iam_event("DataAnalyst", "alice", uri="athena://workgroups"))["error"]["data"]
    assert error["error"] == "access_denied" and "sts:TagSession" in error["details"][0]


@pytest.mark.usefixtures("roles")
def test_the_person_is_who_aws_pins_the_session_to(log_records: RecordKeeper) -> None:
    """oidc: the token's issuer#subject (the session name the function chose from it); iam: the SourceIdentity the
    function set, for a role whose trust pins session names; an unpinned role's session name is nobody's."""
    read(lambda_container(OIDC), oidc_event("dana"))
    pinned = lambda_container(dataclasses.replace(IAM, pinned_session_roles=("DataAnalyst",)))
    read(pinned, iam_event("DataAnalyst", "alice"))
    read(pinned, iam_event("DataAdmin", "bob"))
    token, source_identity, unpinned = audit_lines(log_records)

    assert token["person"] == token["edge_caller"] == f"{ISSUER}#dana" and token["auth_mode"] == "oidc"
    assert token["principal_arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/dana"
    assert source_identity["person"] == "alice"
    assert "person" not in unpinned and unpinned["principal_arn"].endswith("assumed-role/DataAdmin/bob")
