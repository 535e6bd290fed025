"""Athena's request is not the server's probe: a bucket policy may treat the two differently.

Athena reads S3 through a forward access session: S3 sees `aws:CalledVia` and `aws:ViaAWSService`,
not the caller's VPC or IP. A statement on those keys is decided by IAM's simulator, given Athena's
context. A role is simulated through a stand-in user, only where the policy is the same for any
principal. Otherwise the link is `unknown`, never `allowed` (docs/access.md). No statement is
evaluated here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aws_data_mcp.explainer.model import Link, _covers, link
from aws_data_mcp.explainer.policy_grammar import listed
from aws_data_mcp.reading.fanout import Outcome

SERVICE = "athena.amazonaws.com"
REQUEST_KEYS = frozenset({"aws:sourcevpce", "aws:sourcevpc", "aws:sourceip", "aws:vpcsourceip", "aws:calledvia",
                          "aws:calledviafirst", "aws:calledvialast", "aws:viaawsservice"})
"""Condition keys whose value differs between the server's probe and Athena's forward access session."""
CONTEXT = [
    {"ContextKeyName": "aws:CalledVia", "ContextKeyValues": [SERVICE], "ContextKeyType": "stringList"},
    {"ContextKeyName": "aws:CalledViaFirst", "ContextKeyValues": [SERVICE], "ContextKeyType": "string"},
    {"ContextKeyName": "aws:CalledViaLast", "ContextKeyValues": [SERVICE], "ContextKeyType": "string"},
    {"ContextKeyName": "aws:ViaAWSService", "ContextKeyValues": ["true"], "ContextKeyType": "boolean"},
    {"ContextKeyName": "aws:SecureTransport", "ContextKeyValues": ["true"], "ContextKeyType": "boolean"}]
"""Athena's request as S3 sees it (no source VPC endpoint or IP: those keys are absent, as they are for Athena)."""


def athena_request(principal: str, account: str | None) -> list[dict[str, Any]]:
    """Athena's request context for IAM's simulator, with the caller's principal keys, which AWS sets on every
    request and IAM's simulator does not fill in: a statement excepting or naming the caller by aws:PrincipalArn
    (a fix narrowed for it) is weighed as S3 will weigh it."""
    keys = [{"ContextKeyName": "aws:PrincipalArn", "ContextKeyValues": [principal], "ContextKeyType": "string"}]
    if account:
        keys.append({"ContextKeyName": "aws:PrincipalAccount", "ContextKeyValues": [account],
                     "ContextKeyType": "string"})
    return [*CONTEXT, *keys]


PRINCIPAL_FREE_KEYS = REQUEST_KEYS | {"aws:securetransport", "aws:requestedregion", "aws:currenttime",
                                      "aws:epochtime", "aws:referer", "aws:useragent", "aws:sourcearn",
                                      "aws:sourceaccount", "aws:sourceorgid", "aws:resourceaccount",
                                      "aws:resourceorgid", "aws:resourcetag"}
"""Condition keys that describe the request or the resource, never who asks (no aws:Principal*, aws:userid, session
tags, MFA or token times): a statement conditioned on these alone decides alike for every principal."""
STAND_IN = "aws-data-mcp-stand-in"
"""The IAM user named as the simulator's caller for a caller in a role (it need not exist: the simulator takes its
policies from the role, and no statement it weighs names a principal)."""


def stand_in_user(account: str | None, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::{account or '000000000000'}:user/{STAND_IN}"


def _principal_free(statement: Mapping[str, Any]) -> bool:
    principal = statement.get("Principal")
    if "NotPrincipal" in statement or principal not in ("*", {"AWS": "*"}) or "${" in json.dumps(statement):
        return False
    return all(key.split("/", 1)[0] in PRINCIPAL_FREE_KEYS for key in _keys(statement))


def principal_free(policy: Mapping[str, Any] | None) -> bool:
    """Whether every statement of a bucket policy decides alike for any principal (so an IAM user may stand in for
    a role in IAM's simulator without changing its answer)."""
    found = listed((policy or {}).get("Statement"))
    return bool(found) and all(isinstance(s, Mapping) and _principal_free(s) for s in found)


def _keys(statement: Mapping[str, Any]) -> set[str]:
    return {key.lower() for conditions in (statement.get("Condition") or {}).values()
            if isinstance(conditions, Mapping) for key in conditions}


def context_bound(policy: Mapping[str, Any] | None, action: str, resource: str) -> list[dict[str, Any]]:
    """The statements of a bucket policy that may apply to `action` on `resource` and name a key of Athena's
    request context that the probe does not share (NotAction and NotResource statements count where they may)."""
    found = []
    for statement in listed((policy or {}).get("Statement")):
        if not _keys(statement) & REQUEST_KEYS:
            continue
        acts = _covers(statement["Action"], action, case=False) if "Action" in statement else not _covers(
            statement.get("NotAction"), action, case=False)
        where = _covers(statement["Resource"], resource, case=True) if "Resource" in statement else not _covers(
            statement.get("NotResource"), resource, case=True)
        if acts and where:
            found.append(dict(statement))
    return found


def simulate_as_athena(iam: Any, source: str, caller: str, policy: Mapping[str, Any], actions: Sequence[str],
                       resources: Sequence[str], owner: str | None) -> dict[str, str]:
    """IAM's simulator on the policies of `source` (the caller's user or role) and the bucket policy, as `caller`
    (that user, or the stand-in for a role), in Athena's request context: each (action, resource) decision."""
    request: dict[str, Any] = {"PolicySourceArn": source, "ActionNames": list(actions),
                               "ResourceArns": list(resources), "ResourcePolicy": json.dumps(policy),
                               "CallerArn": caller, "ContextEntries": CONTEXT}
    if owner:
        request["ResourceOwner"] = f"arn:aws:iam::{owner}:root"
    results = iam.simulate_principal_policy(**request).get("EvaluationResults") or []
    return {f"{r['EvalActionName']} {r.get('EvalResourceName')}": r["EvalDecision"] for r in results}


def as_athena(probed: Link, bound: Sequence[dict[str, Any]], simulated: Outcome[Any, Any] | None,
              stand_in: str | None = None) -> Link:
    """The probe's link judged for Athena's request: the simulator's decision where it could be asked (`stand_in`:
    the user that stood in for the caller's role), else `unknown` (the probe, made outside Athena, cannot say)."""
    if not bound or probed["verdict"] == "unknown":
        return probed
    evidence = probed["evidence"] | {"probe": probed["verdict"], "athena_context_statements": list(bound)}
    decision = (simulated.value or {}).get(f"{probed['check']} {probed['resource']}") \
        if simulated is not None and simulated.ok else None
    if decision is not None:
        verdict = "allowed" if decision == "allowed" else "denied"
        said = {"simulated_as_athena": decision} | ({"simulated_with_stand_in": (
            f"{stand_in}, with the role's policies: every statement of the bucket policy is the same for any "
            "principal, so the stand-in cannot change the answer")} if stand_in else {})
        return link(probed["check"], probed["resource"], verdict, evidence | said,
                    fix=probed.get("fix") or [], governed_by=probed["governed_by"])
    ask = json.dumps(CONTEXT, separators=(",", ":"))
    return link(probed["check"], probed["resource"], "unknown", evidence | (
        {"error": simulated.error.brief()} if simulated is not None and simulated.error else {}),
        governed_by=probed["governed_by"], settle=(
            "The bucket policy conditions this on a key Athena's request does not share with this server's probe "
            "(Athena reads through a forward access session: aws:CalledVia athena.amazonaws.com, no VPC endpoint "
            "or source IP), and IAM's simulator weighs a bucket policy only as an IAM user, which cannot stand in "
            "for a role here (a statement depends on who the principal is): an administrator runs "
            f"aws iam simulate-principal-policy --policy-source-arn <the caller's role> --action-names "
            f"{probed['check']} --resource-arns {probed['resource']} --resource-policy file://bucket-policy.json "
            f"--caller-arn <an IAM user> --context-entries '{ask}'"))
