"""The caller's own identity policies, read where a refusal has no Deny in the resource's policy: a Deny there is
what refused it, and an Allow added beside it changes nothing (an explicit Deny always wins), so the fix takes the
denying statements out of the policy that holds them.

Read only after a refusal: an allowed chain costs no call here.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aws_data_mcp.resources.permissions.links import Fix, listed, principal_kind, statements

AWS_MANAGED = "arn:aws:iam::aws:policy/"
"""AWS's own managed policies cannot be edited (a Deny there is rare): they are not read."""


@dataclass(frozen=True)
class IdentityPolicy:
    principal: str
    name: str
    """The inline policy's name, or the customer managed policy's ARN."""
    managed: bool
    document: dict[str, Any]


def _document(value: Any) -> dict[str, Any]:
    return json.loads(value) if isinstance(value, str) else dict(value)


def identity_policies(iam: Any, principal: str) -> list[IdentityPolicy]:
    """The principal's inline policies and the customer managed policies attached to it (their default versions)."""
    kind, name = principal_kind(principal)
    named = {f"{kind.capitalize()}Name": name}
    found = []
    for page in iam.get_paginator(f"list_{kind}_policies").paginate(**named):
        for policy in page.get("PolicyNames", []):
            answer = getattr(iam, f"get_{kind}_policy")(**named, PolicyName=policy)
            found.append(IdentityPolicy(principal, policy, False, _document(answer["PolicyDocument"])))
    for page in iam.get_paginator(f"list_attached_{kind}_policies").paginate(**named):
        for attached in page.get("AttachedPolicies", []):
            arn = attached["PolicyArn"]
            if arn.startswith(AWS_MANAGED):
                continue
            version = iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"]
            document = iam.get_policy_version(PolicyArn=arn, VersionId=version)["PolicyVersion"]["Document"]
            found.append(IdentityPolicy(principal, arn, True, _document(document)))
    return found


def denial_fixes(policies: Sequence[IdentityPolicy], action: str, resource: str) -> list[Fix]:
    """For each policy with a Deny of `action` on `resource`: the policy with those statements out, put back."""
    fixes = []
    for policy in policies:
        denying = statements(policy.document, "Deny", action, resource, (), None, identity=True)
        if not denying:
            continue
        kept = [s for s in listed(policy.document.get("Statement")) if s not in denying]
        fixed = {"Version": policy.document.get("Version", "2012-10-17"), "Statement": kept}
        text = shlex.quote(json.dumps(fixed, separators=(",", ":")))
        if policy.managed:
            command = (f"aws iam create-policy-version --policy-arn {policy.name} --policy-document {text} "
                       "--set-as-default")
        else:
            kind, name = principal_kind(policy.principal)
            command = (f"aws iam put-{kind}-policy --{kind}-name {shlex.quote(name)} --policy-name "
                       f"{shlex.quote(policy.name)} --policy-document {text}")
        fixes.append(Fix(kind="identity_policy", apply_by="administrator", target=policy.principal,
                         policy_name=policy.name, policy=fixed, removes=denying, command=command))
    return fixes

