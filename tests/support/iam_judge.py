"""The independent judge: `@cloud-copilot/iam-simulate` (a maintained IAM policy evaluator this project did not
write), run through node from tests/judge/ (installed by `make test` from its lockfile), asked what AWS decides.

`Request` is one request as both sides see it: the caller's identity policies, the resource's policy and owner, the
action, the resource and the request's context keys. `judge()` answers each with iam-simulate's verdict
("Allowed", "ImplicitlyDenied", "ExplicitlyDenied"); `demo_verdict()` with the demo's own decision
(`demo/athena_access.decide`, which the demo's Athena and its moto extensions decide with), in the same words.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from moto.iam.access_control import IAMPolicy

from aws_data_mcp_demo.access.decisions import Caller, decide

JUDGE = Path(__file__).resolve().parents[1] / "judge"
_INSTALLED = JUDGE / "node_modules" / "@cloud-copilot" / "iam-simulate"


def skip_without_judge() -> pytest.MarkDecorator:
    """Skip cleanly, saying why, where node or the judge's package is missing."""
    if shutil.which("node") is None:
        return pytest.mark.skip(reason="the IAM judge needs node (Node 20+): not found")
    if not _INSTALLED.exists():
        return pytest.mark.skip(reason="the IAM judge is not installed: `make judge-install` (npm ci in tests/judge)")
    return pytest.mark.skipif(False, reason="the judge is installed")


@dataclass(frozen=True)
class Request:
    """One request, as the judge and the demo both read it."""

    principal: str
    """The caller's ARN: a role session's (arn:aws:sts::...:assumed-role/role/session) or a user's."""
    action: str
    resource: str
    identity: Sequence[Mapping[str, Any]] = ()
    """The caller's identity policies (documents)."""
    resource_policy: Mapping[str, Any] | None = None
    owner: str = "123456789012"
    """The account that owns the resource."""
    context: Mapping[str, str | list[str]] = field(default_factory=dict)
    key_policy: bool = False
    """The resource policy is a KMS key's (it must allow, or delegate to the account's IAM)."""
    boundary: Mapping[str, Any] | None = None
    """The caller's permissions boundary (a policy document), if it has one."""

    @property
    def account(self) -> str:
        return self.principal.split(":")[4]

    def simulation(self) -> dict[str, Any]:
        return {"request": {"principal": self.principal, "action": self.action,
                            "resource": {"resource": self.resource, "accountId": self.owner},
                            "contextVariables": dict(self.context)},
                "identityPolicies": [{"name": f"p{i}", "policy": p} for i, p in enumerate(self.identity)],
                **({"resourcePolicy": self.resource_policy} if self.resource_policy is not None else {}),
                **({"permissionBoundaryPolicies": [{"name": "boundary", "policy": self.boundary}]}
                   if self.boundary is not None else {})}


def judge(requests: Iterable[Request]) -> list[str]:
    """iam-simulate's verdict on each request (its errors raise: a request it cannot read is no verdict)."""
    listed = [request.simulation() for request in requests]
    run = subprocess.run(["node", str(JUDGE / "judge.mjs")], input=json.dumps(listed), capture_output=True,
                         text=True, cwd=JUDGE, check=True, timeout=120)
    answers = json.loads(run.stdout)
    for simulation, answer in zip(listed, answers, strict=True):
        assert "error" not in answer, (simulation, answer)
    return [answer["result"] for answer in answers]


def _caller(request: Request) -> Caller:
    principal = request.principal
    names = {principal}
    principal_arn = principal
    if ":assumed-role/" in principal:
        role = principal.split(":assumed-role/", 1)[1].split("/", 1)[0]
        principal_arn = f"arn:aws:iam::{request.account}:role/{role}"
        names.add(principal_arn)
    boundary = IAMPolicy(json.dumps(request.boundary)) if request.boundary is not None else None
    return Caller(principal, frozenset(names), tuple(IAMPolicy(json.dumps(p)) for p in request.identity),
                  request.account, principal_arn, boundary)


def demo_verdict(request: Request, caller: Caller | None = None) -> str:
    """The demo's decision, in the judge's words."""
    document = json.dumps(request.resource_policy) if request.resource_policy is not None else None
    verdict = decide(caller or _caller(request), request.action, request.resource, document,
                     key_policy=request.key_policy, context=request.context, owner=request.owner)
    if verdict.allowed:
        return "Allowed"
    return "ExplicitlyDenied" if "explicit deny" in verdict.why else "ImplicitlyDenied"
