"""IAM's SimulatePrincipalPolicy in the emulated account, which moto 5.2.5 lacks.

It decides with the code the demo's Athena decides with (``decisions.decide``), so the two agree.
A role's permissions boundary caps it, as ``PermissionsBoundaryDecisionDetail`` says.
Each result names the statements that decided (``MatchedStatements``), as IAM's simulator does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any
from xml.sax.saxutils import escape

from moto.iam.access_control import (
    IAMPolicy,
    IAMPolicyStatement,
    PermissionResult,
)
from moto.iam.responses import IamResponse

from aws_data_mcp_demo.access.conditions import Context
from aws_data_mcp_demo.access.decisions import (
    Caller,
    decide,
    permissions_boundary,
    permissions_boundary_arn,
    policy_says,
)

_RESULT = """<SimulatePrincipalPolicyResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
<SimulatePrincipalPolicyResult><IsTruncated>false</IsTruncated><EvaluationResults>{members}</EvaluationResults>
</SimulatePrincipalPolicyResult><ResponseMetadata><RequestId>simulated</RequestId></ResponseMetadata>
</SimulatePrincipalPolicyResponse>"""
_MEMBER = ("<member><EvalActionName>{action}</EvalActionName><EvalResourceName>{resource}</EvalResourceName>"
           "<EvalDecision>{decision}</EvalDecision><MatchedStatements>{matched}</MatchedStatements>"
           "<MissingContextValues>{missing}</MissingContextValues>{boundary}</member>")
_MATCHED = "<member><SourcePolicyId>{id}</SourcePolicyId><SourcePolicyType>{type}</SourcePolicyType></member>"
_BOUNDARY = ("<PermissionsBoundaryDecisionDetail><AllowedByPermissionsBoundary>{allowed}"
             "</AllowedByPermissionsBoundary></PermissionsBoundaryDecisionDetail>")


def sourced_policies(iam: Any, source_arn: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The identity policies of a user (its groups' included) or role, each with the SourcePolicyId (an inline
    policy's name, a managed policy's name) and SourcePolicyType (user, group, role, user-managed, aws-managed) IAM's
    simulator names it by in MatchedStatements."""
    kind, _, path = source_arn.split(":", 5)[5].partition("/")
    name = path.rsplit("/", 1)[-1]
    holders = [(kind, name), *(("group", group.name) for group in iam.get_groups_for_user(name))] \
        if kind == "user" else [(kind, name)]
    found = []
    for holder, who in holders:
        for policy in getattr(iam, f"list_{holder}_policies")(who):
            answer = getattr(iam, f"get_{holder}_policy")(who, policy)
            document = answer[1] if isinstance(answer, tuple) else answer["policy_document"]
            found.append((policy, holder, IAMPolicy(document)._policy_json))
        for managed in getattr(iam, f"list_attached_{holder}_policies")(who)[0]:
            owner = "aws-managed" if ":aws:policy/" in managed.arn else "user-managed"
            found.append((managed.name, owner, IAMPolicy(managed)._policy_json))
    return found


def _matched(sources: Iterable[tuple[str, str, Mapping[str, Any]]], caller: Caller, boundary: str | None,
             decision: str, action: str, resource: str, context: Context) -> tuple[str, str]:
    """MatchedStatements (the policies whose statements decided: the denying ones for an explicit deny, else the
    allowing ones) and, for a principal with a boundary, PermissionsBoundaryDecisionDetail, as IAM reports them."""
    wanted = {"explicitDeny": PermissionResult.DENIED, "allowed": PermissionResult.PERMITTED}.get(decision)
    listed = list(sources)
    if caller.boundary is not None and boundary and wanted is PermissionResult.DENIED:  # a boundary never grants
        kind = "aws-managed" if ":aws:policy/" in boundary else "user-managed"
        listed.append((boundary.rsplit("/", 1)[-1], kind, caller.boundary._policy_json))
    matched = "".join(_MATCHED.format(id=escape(policy), type=kind) for policy, kind, document in listed
                      if wanted is not None and policy_says(document, action, resource, context) is wanted)
    if caller.boundary is None:
        return matched, ""
    allowed = policy_says(caller.boundary._policy_json, action, resource, context) is PermissionResult.PERMITTED
    return matched, _BOUNDARY.format(allowed=str(allowed).lower())


def _context(entries: Iterable[Mapping[str, Any]]) -> Context:
    """ContextEntries as a request context (a list-typed entry multivalued)."""
    found: dict[str, Any] = {}
    for entry in entries:
        values = [str(v) for v in entry.get("ContextKeyValues") or []]
        listed = str(entry.get("ContextKeyType", "")).endswith("List")
        found[str(entry["ContextKeyName"])] = values if listed or len(values) != 1 else values[0]
    return found


def _missing(documents: Iterable[Mapping[str, Any]], action: str, context: Context) -> list[str]:
    """The condition keys of the statements about `action` that the context does not give."""
    given = {name.lower() for name in context}
    missing: set[str] = set()
    for document in documents:
        statements = document.get("Statement", [])
        for statement in statements if isinstance(statements, list) else [statements]:
            element = "NotAction" if "NotAction" in statement else "Action"
            matches = IAMPolicyStatement(statement)._check_element_matches(element, action) if element in statement \
                else False
            if matches == (element == "Action"):
                missing |= {key for block in (statement.get("Condition") or {}).values() for key in block
                            if key.lower() not in given}
    return sorted(missing)


def simulate_principal_policy(self: IamResponse) -> str:
    """SimulatePrincipalPolicy as IAM answers it, decided by ``athena_access.decide``."""
    source = self._get_param("PolicySourceArn")
    caller_arn = self._get_param("CallerArn") or source
    sources, boundary = sourced_policies(self.backend, source), permissions_boundary_arn(self.backend, source)
    policies = tuple(IAMPolicy(json.dumps(document)) for _, _, document in sources)  # as moto's authoriser has them
    caller = Caller(caller_arn, frozenset({source, caller_arn}), policies, self.current_account, source,
                    permissions_boundary(self.backend, source))
    resource_policy = self._get_param("ResourcePolicy")
    owner = self._get_param("ResourceOwner")
    owner = owner.split(":")[4] if owner and owner.startswith("arn:") else owner
    context = _context(self._get_param("ContextEntries", []) or [])
    parsed = [policy._policy_json for policy in policies]
    parsed += [json.loads(resource_policy)] if resource_policy else []
    members = []
    for action in self._get_param("ActionNames", []):
        missing = "".join(f"<member>{escape(key)}</member>" for key in _missing(parsed, action, context))
        for resource in self._get_param("ResourceArns", []) or ["*"]:
            verdict = decide(caller, action, resource, resource_policy, context=context, owner=owner or None)
            decision = "allowed" if verdict.allowed else (
                "explicitDeny" if "explicit deny" in verdict.why else "implicitDeny")
            matched, capped = _matched(sources, caller, boundary, decision, action, resource, context)
            members.append(_MEMBER.format(action=escape(action), resource=escape(resource), decision=decision,
                                          missing=missing, matched=matched, boundary=capped))
    return _RESULT.format(members="".join(members))
