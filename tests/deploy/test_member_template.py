"""The member-account companion template: cfn-lint clean, and the trust it writes is hosted/trust.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cfnlint.api import ManualArgs, lint_file
from cfnlint.decode import decode
from test_template import one_region_per_partition

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.trust import member_iam_trust, oidc_trust

TEMPLATE = Path(__file__).resolve().parents[2] / "member-account.yaml"


def _role() -> dict[str, Any]:
    template, matches = decode(str(TEMPLATE))
    assert not matches
    return template["Resources"]["MemberRole"]["Properties"]  # type: ignore[no-any-return]


def test_cfn_lint_is_clean() -> None:
    matches = lint_file(TEMPLATE, config=ManualArgs(include_checks=["I"], regions=one_region_per_partition()))
    assert matches == [], "\n".join(str(m) for m in matches)


def test_iam_trust_is_the_generated_statement() -> None:
    statement = _role()["AssumeRolePolicyDocument"]["Fn::If"][2]["Statement"][0]
    generated = member_iam_trust(["arn:${AWS::Partition}:iam::${HomeAccountId}:role/${CallerRoleName}"])
    assert {**statement, "Principal": {"AWS": [statement["Principal"]["AWS"]["Fn::Sub"]]}} == generated


def test_oidc_trust_is_the_generated_statement() -> None:
    text = _role()["AssumeRolePolicyDocument"]["Fn::If"][1]["Fn::Sub"][0]
    values = {"${AWS::Partition}": "aws", "${AWS::AccountId}": "222222222222", "${Provider}": "issuer.example.com",
              "${OidcAudience}": "aud", "${OidcRoleTag}": "aws-data-mcp-role", "${Values}": 'admins", "ops'}
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    home = "arn:aws:iam::123456789012:role/DataAdmin"
    settings = Settings(mode="lambda", auth_mode="oidc", oidc_role_arn="arn:aws:iam::123456789012:role/Other",
                        oidc_role_map=(("admins", home), ("ops", home)))
    assert json.loads(text)["Statement"] == oidc_trust(settings, home, "https://issuer.example.com", "aud",
                                                       account="222222222222")
    assert '"sts:AssumeRole"' not in text  # no account trusts the function: only the caller's token
