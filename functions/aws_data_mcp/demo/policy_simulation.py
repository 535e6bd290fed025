"""IAM's SimulatePrincipalPolicy in the emulated account, which moto 5.2.5 lacks (demo, tests and benchmarks).

Decided by the code the demo's Athena decides with (``athena_access.decide``): the principal's identity policies
(gathered as moto's authoriser gathers them) and the ``ResourcePolicy`` given, with its Principal or NotPrincipal,
read in the request context the ``ContextEntries`` give (and no other key: a key the policies test that is not given
is absent, and listed in ``MissingContextValues``, as IAM's simulator lists it), the resource owned by
``ResourceOwner`` when given (another account's resource must allow the caller in its policy). A simulation
with a resource policy is not a key policy's: IAM's simulator weighs every resource policy the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any
from xml.sax.saxutils import escape

from moto.iam.access_control import AssumedRoleAccessKey, IAMPolicy, IAMPolicyStatement, IAMUserAccessKey
from moto.iam.responses import IamResponse

from .athena_access import Caller, decide, permissions_boundary
from .policy_conditions import Context

_RESULT = """<SimulatePrincipalPolicyResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
<SimulatePrincipalPolicyResult><IsTruncated>false</IsTruncated><EvaluationResults>{members}</EvaluationResults>
</SimulatePrincipalPolicyResult><ResponseMetadata><RequestId>simulated</RequestId></ResponseMetadata>
</SimulatePrincipalPolicyResponse>"""
_MEMBER = ("<member><EvalActionName>{action}</EvalActionName><EvalResourceName>{resource}</EvalResourceName>"
           "<EvalDecision>{decision}</EvalDecision><MatchedStatements/><MissingContextValues>{missing}"
           "</MissingContextValues></member>")


def principal_policies(account_id: str, partition: str, source_arn: str) -> list[Any]:
    """The identity policies of a user or role, gathered the way moto's own authoriser gathers them."""
    kind, _, name = source_arn.split(":", 5)[5].partition("/")
    holder = (IAMUserAccessKey if kind == "user" else AssumedRoleAccessKey).__new__(
        IAMUserAccessKey if kind == "user" else AssumedRoleAccessKey)
    holder.account_id, holder.partition = account_id, partition
    if kind == "user":
        holder._owner_user_name = name.rsplit("/", 1)[-1]
    else:
        holder._owner_role_name = name.rsplit("/", 1)[-1]
    return holder.collect_policies()


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
    documents = principal_policies(self.current_account, self.partition, source)
    policies = tuple(IAMPolicy(d) for d in documents)  # inline documents and managed policies alike
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
            members.append(_MEMBER.format(action=escape(action), resource=escape(resource), decision=decision,
                                          missing=missing))
    return _RESULT.format(members="".join(members))
