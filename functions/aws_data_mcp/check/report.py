"""Every check on one target, worst first, as text for a terminal or JSON for a pipeline; the exit status says
whether anything fails."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.check.findings import ORDER, Finding
from aws_data_mcp.check.lake_formation import lake_formation_findings
from aws_data_mcp.check.roles import function_findings, provider_findings, trust_findings
from aws_data_mcp.check.sign_in import cognito_findings
from aws_data_mcp.check.target import Target
from aws_data_mcp.check.workgroups import workgroup_findings

Check = Callable[[boto3.Session, Target], Iterator[Finding]]
CHECKS: tuple[tuple[str, Check], ...] = (
    ("function role", function_findings), ("caller role trust", trust_findings),
    ("oidc provider", provider_findings), ("sign-in (Cognito)", cognito_findings),
    ("query workgroup", workgroup_findings), ("Lake Formation", lake_formation_findings),
)


def run_checks(session: boto3.Session, target: Target) -> list[Finding]:
    """Each check's findings; a check AWS refuses to answer is one `unknown` finding, the others still run."""
    findings: list[Finding] = []
    for name, check in CHECKS:
        try:
            findings += list(check(session, target))
        except (ClientError, BotoCoreError) as error:
            code = error.response["Error"]["Code"] if isinstance(error, ClientError) else type(error).__name__
            findings.append(Finding(name, target.name, "unknown", f"AWS did not answer ({code})",
                                    fix="run the check with credentials that may read it (read-only access)"))
    return sorted(findings, key=lambda finding: ORDER[finding.verdict])


def render(findings: list[Finding], as_json: bool) -> str:
    if as_json:
        return json.dumps([finding.as_json() for finding in findings], indent=2)
    lines = []
    for finding in findings:
        lines.append(f"[{finding.verdict.upper():7}] {finding.check}: {finding.subject}: {finding.detail}")
        if finding.affected:
            lines.append(f"          affects: {finding.affected}")
        if finding.fix:
            lines.append(f"          fix: {finding.fix}")
    counts = {verdict: sum(f.verdict == verdict for f in findings) for verdict in ORDER}
    lines.append(", ".join(f"{count} {verdict}" for verdict, count in counts.items()))
    return "\n".join(lines)
