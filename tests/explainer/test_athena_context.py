"""The server's probe is not Athena's request: a bucket-policy statement conditioned on a key that
differs between them (a VPC endpoint, a source IP, aws:CalledVia) is judged by IAM's simulator in Athena's context
where AWS lets it simulate the caller, else `unknown`, never `allowed` from the probe alone."""

from __future__ import annotations

from typing import Any

from aws_data_mcp.explainer.athena_context import CONTEXT, as_athena, context_bound, principal_free, simulate_as_athena
from aws_data_mcp.explainer.model import link
from aws_data_mcp.reading.fanout import Outcome

OBJECTS = "arn:aws:s3:::logs/vpce_only_logs/*"
VPCE_ONLY = {"Sid": "VpceOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
             "Resource": ["arn:aws:s3:::logs", "arn:aws:s3:::logs/*"],
             "Condition": {"StringNotEquals": {"aws:SourceVpce": "vpce-0a1b2c3d"}}}
EXEMPT = VPCE_ONLY | {"Condition": {"StringNotEquals": {"aws:SourceVpce": "vpce-0a1b2c3d"},
                                    "ForAllValues:StringNotEquals": {"aws:CalledVia": "athena.amazonaws.com"}}}
TLS_ONLY = {"Sid": "TlsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": "arn:aws:s3:::logs/*",
            "Condition": {"Bool": {"aws:SecureTransport": "false"}}}


def policy(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def test_statements_naming_athenas_context_are_found_and_tls_only_is_not() -> None:
    assert context_bound(policy(VPCE_ONLY, TLS_ONLY), "s3:GetObject", OBJECTS) == [VPCE_ONLY]
    assert context_bound(policy(EXEMPT), "s3:GetObject", OBJECTS) == [EXEMPT]
    assert context_bound(policy(TLS_ONLY), "s3:GetObject", OBJECTS) == []  # Athena's request is TLS too
    not_action = VPCE_ONLY | {"NotAction": "s3:PutObject"}
    del not_action["Action"]
    assert context_bound(policy(not_action), "s3:GetObject", OBJECTS) == [not_action]


def test_a_probe_never_decides_alone_where_athenas_context_differs() -> None:
    probed = link("s3:GetObject", OBJECTS, "allowed", {"object": "a.csv"})  # the server sits in the VPC
    unknown = as_athena(probed, [VPCE_ONLY], None)
    assert unknown["verdict"] == "unknown" and unknown["evidence"]["probe"] == "allowed"
    assert "aws:CalledVia" in unknown["settle"] and "--context-entries" in unknown["settle"]
    refused = link("s3:GetObject", OBJECTS, "denied", {}, fix=[])
    answered = Outcome(item=None, value={f"s3:GetObject {OBJECTS}": "allowed"})
    assert as_athena(refused, [EXEMPT], answered)["verdict"] == "allowed"  # the exemption holds for Athena
    denied = Outcome(item=None, value={f"s3:GetObject {OBJECTS}": "explicitDeny"})
    assert as_athena(probed, [VPCE_ONLY], denied)["verdict"] == "denied"
    assert as_athena(probed, [], None) is probed  # nothing in the policy differs: the probe is Athena's answer


def test_the_simulator_is_asked_with_the_policy_the_owner_and_athenas_context() -> None:
    asked: dict[str, Any] = {}

    class Iam:
        def simulate_principal_policy(self, **request: Any) -> dict[str, Any]:
            asked.update(request)
            return {"EvaluationResults": [{"EvalActionName": "s3:GetObject", "EvalResourceName": OBJECTS,
                                           "EvalDecision": "explicitDeny"}]}

    user = "arn:aws:iam::123456789012:user/analyst"
    found = simulate_as_athena(Iam(), user, user, policy(VPCE_ONLY), ["s3:GetObject"], [OBJECTS], "123456789012")
    assert found == {f"s3:GetObject {OBJECTS}": "explicitDeny"}
    assert asked["CallerArn"] == user and asked["ResourceOwner"] == "arn:aws:iam::123456789012:root"
    assert asked["ContextEntries"] == CONTEXT and "vpce-0a1b2c3d" in asked["ResourcePolicy"]
    assert {e["ContextKeyName"] for e in CONTEXT} >= {"aws:CalledVia", "aws:ViaAWSService", "aws:SecureTransport"}


def test_a_role_may_be_simulated_through_a_stand_in_only_where_no_statement_depends_on_the_principal() -> None:
    assert principal_free(policy(VPCE_ONLY)) and principal_free(policy(EXEMPT, TLS_ONLY))
    naming = VPCE_ONLY | {"Principal": {"AWS": "arn:aws:iam::123456789012:role/analyst"}}
    by_tag = VPCE_ONLY | {"Condition": {"StringNotEquals": {"aws:SourceVpce": "vpce-0a1b2c3d",
                                                            "aws:PrincipalTag/team": "data"}}}
    by_variable = VPCE_ONLY | {"Resource": "arn:aws:s3:::logs/${aws:username}/*"}
    not_principal = {k: v for k, v in VPCE_ONLY.items() if k != "Principal"} | {"NotPrincipal": {"AWS": "x"}}
    for statement in (naming, by_tag, by_variable, not_principal):
        assert not principal_free(policy(VPCE_ONLY, statement)), statement
    assert not principal_free(None) and not principal_free({"Statement": []})


def test_a_stand_in_s_verdict_says_whom_it_stood_for() -> None:
    probed = link("s3:GetObject", OBJECTS, "allowed", {})
    simulated = Outcome(item=None, value={f"s3:GetObject {OBJECTS}": "explicitDeny"})
    judged = as_athena(probed, [VPCE_ONLY], simulated, "arn:aws:iam::123456789012:user/aws-data-mcp-stand-in")
    assert judged["verdict"] == "denied" and "stand-in" in judged["evidence"]["simulated_with_stand_in"]
