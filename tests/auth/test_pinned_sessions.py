"""iam: nothing the caller chooses decides who they are.

Whoever assumes a role names the session, unless the role's trust pins the name (Identity Center pins it to the
user name). Before, the function took that name for the person: it set it as SourceIdentity (an arbitrary name in
CloudTrail and in aws:SourceIdentity conditions), kept workflows per session name (a session named "alice" read
alice's), and honoured PrincipalRoleMap keys naming one session (whoever named a session so got the mapped role).
Now a session name counts only for roles the deployment declares pinned (PINNED_SESSION_ROLES, Identity Center's
AWSReservedSSO_* by default); any other session's caller is their role. auth://status says which applies.
Also here: ARNs are matched exactly and in the function's own partition, and distinct people get distinct STS
session names.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections import Counter
from typing import Any

import boto3
import pytest

from aws_data_mcp.config import ENV_PREFIX, SettingError, Settings
from aws_data_mcp.identity.hosted.claim import sts_name
from support.faults import AwsFaults
from support.servers import lambda_container

from .hosted_support import ACCOUNT, IAM, OIDC, TRUST, error_of, iam_event, oidc_event, read, sent, status_of

SSO_ROLE = "AWSReservedSSO_DataAnalyst_0123456789abcdef"
TABLE = "pinned-session-workflows"
STORED = dataclasses.replace(IAM, workflow_store="dynamodb", workflow_table=TABLE)


@pytest.fixture(name="sso_role")
def sso_role_fixture(roles: None) -> None:
    iam = boto3.client("iam", region_name="us-east-1")
    with contextlib.suppress(iam.exceptions.EntityAlreadyExistsException):
        iam.create_role(RoleName=SSO_ROLE, AssumeRolePolicyDocument=TRUST)


@pytest.fixture(name="table")
def table_fixture() -> None:
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    if TABLE in dynamodb.list_tables()["TableNames"]:
        dynamodb.delete_table(TableName=TABLE)
    dynamodb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}])


def _call(invoke: Any, role: str, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    event = iam_event(role, session)
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return read(invoke, event)


def _workflow_names(invoke: Any, role: str, session: str) -> list[str]:
    answer = _call(invoke, role, session, "resources/read", {"uri": "workflow://workflows"})
    return sorted(w["name"] for w in json.loads(answer["result"]["contents"][0]["text"])["workflows"])


def _create(invoke: Any, role: str, session: str, name: str) -> None:
    answer = _call(invoke, role, session, "tools/call", {"name": "workflow_create", "arguments": {"name": name}})
    assert answer["result"]["isError"] is False, answer


@pytest.mark.usefixtures("roles", "table")
def test_a_session_named_alice_reads_nothing_another_name_of_the_role_does_not() -> None:
    """The reported case: anyone who may assume DataAnalyst named a session "alice" and read alice's workflows.
    Her role does not pin names, so her workflows are the role's: every caller of it sees the same ones, whatever
    they call their session, and auth://status tells each of them so."""
    invoke = lambda_container(STORED)
    _create(invoke, "DataAnalyst", "alice", "alice's plan")
    as_alice, as_mallory = (_workflow_names(invoke, "DataAnalyst", name) for name in ("alice", "mallory"))
    assert as_alice == as_mallory == ["alice's plan"], "the session name selects nothing"
    status = status_of(read(invoke, iam_event("DataAnalyst", "alice")))
    assert (status["session_name_pinned"], status["workflows_scope"]) == (False, "role")
    assert _workflow_names(invoke, "DataAdmin", "alice") == [], "another role's callers are another owner"


@pytest.mark.usefixtures("sso_role", "table")
def test_a_pinned_session_keeps_workflows_of_its_own() -> None:
    """Identity Center names the session after the user and nobody can choose it: there, alice is alice."""
    invoke = lambda_container(STORED)
    _create(invoke, SSO_ROLE, "alice@example.com", "alice's plan")
    assert _workflow_names(invoke, SSO_ROLE, "alice@example.com") == ["alice's plan"]
    assert _workflow_names(invoke, SSO_ROLE, "bob@example.com") == []
    status = status_of(read(invoke, iam_event(SSO_ROLE, "alice@example.com")))
    assert (status["session_name_pinned"], status["workflows_scope"]) == (True, "caller")


@pytest.mark.usefixtures("roles")
def test_an_unpinned_session_name_never_becomes_source_identity(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRole")
    status = status_of(read(lambda_container(IAM), iam_event("DataAnalyst", "ceo@example.com")))
    assert status["authenticated"] is True
    (request,) = requests
    assert "SourceIdentity" not in request, "a name the caller chose must not reach CloudTrail as who they are"
    assert request["RoleSessionName"] == "ceo@example.com"


@pytest.mark.usefixtures("sso_role")
def test_a_pinned_session_name_is_the_source_identity(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRole")
    status_of(read(lambda_container(IAM), iam_event(SSO_ROLE, "alice@example.com")))
    (request,) = requests
    assert request["SourceIdentity"] == request["RoleSessionName"] == "alice@example.com"


def test_a_role_map_entry_for_one_unpinned_session_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported case: {".../assumed-role/DataAnalyst/alice": DataAdmin} gave DataAdmin to anyone who may
    assume DataAnalyst and names the session alice."""
    key = f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/alice"
    monkeypatch.setenv(f"{ENV_PREFIX}AUTH_MODE", "iam")
    monkeypatch.setenv(f"{ENV_PREFIX}PRINCIPAL_ROLE_MAP", json.dumps({key: f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"}))
    with pytest.raises(SettingError, match="PINNED_SESSION_ROLES"):
        Settings.from_env("lambda")
    monkeypatch.setenv(f"{ENV_PREFIX}PINNED_SESSION_ROLES", "DataAnalyst")  # the operator says its trust pins names
    assert Settings.from_env("lambda").principal_role_map == ((key, f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"),)


def test_a_role_map_entry_for_a_federated_user_is_refused_at_start() -> None:
    """A federated user's name is whatever the GetFederationToken caller asked for."""
    with pytest.raises(SettingError, match="GetFederationToken"):
        dataclasses.replace(IAM, principal_role_map=((f"arn:aws:sts::{ACCOUNT}:federated-user/alice",
                                                      f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"),))


@pytest.mark.usefixtures("sso_role")
def test_a_map_entry_for_one_pinned_session_is_honoured(sts: AwsFaults) -> None:
    key = f"arn:aws:sts::{ACCOUNT}:assumed-role/{SSO_ROLE}/alice@example.com"
    settings = dataclasses.replace(IAM, principal_role_map=((key, f"arn:aws:iam::{ACCOUNT}:role/DataAdmin"),))
    alice = status_of(read(lambda_container(settings), iam_event(SSO_ROLE, "alice@example.com")))
    bob = status_of(read(lambda_container(settings), iam_event(SSO_ROLE, "bob@example.com")))
    assert ":assumed-role/DataAdmin/alice@example.com" in alice["principal_arn"]
    assert f":assumed-role/{SSO_ROLE}/bob@example.com" in bob["principal_arn"]


def test_oidc_callers_name_no_session() -> None:
    status = status_of(read(lambda_container(OIDC), oidc_event("dana", ["analysts"])))
    assert (status["session_name_pinned"], status["workflows_scope"]) == (None, "caller")


NOT_EXACTLY_AN_ASSUMED_ROLE = {
    "a trailing newline": f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/alice\n",
    "another partition": f"arn:aws-cn:sts::{ACCOUNT}:assumed-role/DataAnalyst/alice",
    "a trailing space": f"arn:aws:sts::{ACCOUNT}:assumed-role/DataAnalyst/alice ",
}


@pytest.mark.parametrize("case", sorted(NOT_EXACTLY_AN_ASSUMED_ROLE))
@pytest.mark.usefixtures("roles")
def test_an_arn_that_is_not_exactly_one_of_this_partition_is_refused_with_no_aws_call(
        case: str, aws_calls: Counter[str]) -> None:
    event = iam_event("DataAnalyst", "alice", uri="athena://workgroups")
    event["requestContext"]["authorizer"]["iam"]["userArn"] = NOT_EXACTLY_AN_ASSUMED_ROLE[case]
    error = error_of(read(lambda_container(IAM), event))
    assert error["error"] == "authentication_required"
    assert sum(aws_calls.values()) == 0, aws_calls  # STS included


LOOK_ALIKES = ["x", "y", "renée", "renee", "ren-e", "张伟", "李娜", "josé", "josè", "auth0|1", "auth0-1", "a" * 70,
               "a" * 70 + "b", "ǅ", "Ǆ"]


def test_distinct_people_get_distinct_session_names() -> None:
    names = [sts_name(subject) for subject in LOOK_ALIKES]
    assert len(set(names)) == len(LOOK_ALIKES), sorted(names)
    assert all(2 <= len(name) <= 64 and name.isascii() for name in names)


@pytest.mark.usefixtures("roles")
def test_two_subjects_alike_but_for_their_letters_reach_sts_under_two_names(sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRoleWithWebIdentity")
    for subject in ("张伟", "李娜"):
        assert status_of(read(lambda_container(OIDC), oidc_event(subject, ["analysts"])))["authenticated"] is True
    first, second = (request["RoleSessionName"] for request in requests)
    assert first != second
