"""The template's defaults, as a security reviewer reads them: no caller role the function may assume unless the
operator named it, every route throttled, the function's concurrency reserved and capped, and the oidc role map
on what each role's trust can check again.

Before, CallerRoleArnPattern defaulted to every role of the account (any role trusting the account root was the
function's to assume), nothing throttled the API (its oidc well-known routes are public), and the function could
take the account's whole Lambda concurrency.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cfnlint.decode import decode
from template_rules import deploy_refusals

from aws_data_mcp.config import OIDC_ROLE_CLAIMS, Settings

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
PATTERN = "arn:aws:iam::111122223333:role/data-*"


@pytest.fixture(scope="module", name="template")
def template_fixture() -> dict[str, Any]:
    template, matches = decode(str(TEMPLATE))
    assert not matches and template is not None
    return template


@pytest.mark.parametrize(("given", "refused"), [
    ({}, True),  # the default: no pattern, no deploy
    ({"CallerRoleArnPattern": "*"}, True),
    ({"CallerRoleArnPattern": f"{PATTERN},*"}, True),
    ({"CallerRoleArnPattern": PATTERN}, False),
    ({"CallerRoleArnPattern": f"{PATTERN},arn:aws:iam::444455556666:role/analytics"}, False),
    ({"AuthMode": "oidc", "OidcIssuer": "https://login.example.com", "OidcAudience": "aws-data-mcp",
      "OidcRoleArn": "arn:aws:iam::111122223333:role/DataAnalyst"}, False),  # oidc assumes nothing itself
])
def test_an_iam_stack_must_name_the_roles_the_function_may_assume(template: dict[str, Any], given: dict[str, str],
                                                                    refused: bool) -> None:
    refusals = [r for r in deploy_refusals(template, **given) if "CallerRoleArnPattern" in r]
    assert bool(refusals) is refused, refusals


def test_the_function_may_assume_only_the_pattern_the_operator_gave(template: dict[str, Any]) -> None:
    statements = template["Resources"]["McpFunction"]["Properties"]["Policies"][0]["Statement"]["Fn::If"][1]
    (assume,) = [s for s in statements if "sts:AssumeRole" in s.get("Action", ())]  # not SessionTags' own !If
    assert assume["Resource"] == {"Ref": "CallerRoleArnPattern"}
    assert "CallerRolesOfThisAccount" not in template["Conditions"]


def test_every_route_is_throttled(template: dict[str, Any]) -> None:
    api = template["Resources"]["HttpApi"]["Properties"]
    assert api["DefaultRouteSettings"] == {"ThrottlingRateLimit": {"Ref": "ThrottlingRateLimit"},
                                           "ThrottlingBurstLimit": {"Ref": "ThrottlingBurstLimit"}}
    rate, burst = (template["Parameters"][name] for name in ("ThrottlingRateLimit", "ThrottlingBurstLimit"))
    assert 1 <= rate["Default"] <= burst["Default"] <= 100, "a burst at least the rate, both modest"
    assert rate["MinValue"] == burst["MinValue"] == 1, "0 would refuse every request"


def test_the_functions_concurrency_is_reserved_and_capped(template: dict[str, Any]) -> None:
    function = template["Resources"]["McpFunction"]["Properties"]
    assert function["ReservedConcurrentExecutions"] == {
        "Fn::If": ["ReservesConcurrency", {"Ref": "ReservedConcurrency"}, {"Ref": "AWS::NoValue"}]}
    assert template["Conditions"]["ReservesConcurrency"] == {"Fn::Not": [{"Fn::Equals": [
        {"Ref": "ReservedConcurrency"}, 0]}]}
    assert template["Parameters"]["ReservedConcurrency"]["Default"] > 0


def test_the_oidc_role_map_reads_only_what_a_trust_can_check(template: dict[str, Any]) -> None:
    claim = template["Parameters"]["OidcRoleClaim"]
    assert tuple(claim["AllowedValues"]) == OIDC_ROLE_CLAIMS and claim["Default"] == Settings().oidc_role_claim
    assert template["Parameters"]["OidcRoleTag"]["Default"] == Settings().oidc_role_tag
    assert template["Parameters"]["PinnedSessionRoles"]["Default"] == ",".join(Settings().pinned_session_roles)
    env = template["Resources"]["McpFunction"]["Properties"]["Environment"]["Variables"]
    assert env["AWS_DATA_MCP_OIDC_ROLE_TAG"] == {"Ref": "OidcRoleTag"}
    assert env["AWS_DATA_MCP_PINNED_SESSION_ROLES"] == {"Ref": "PinnedSessionRoles"}
