"""`aws-data-mcp check` against the demo's hosted account (the stack `make demo-iam` and `make demo-oidc` emulate),
read by an operator with read-only rights: a correct setup passes, each misconfiguration injected is found with
whom it affects and its fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import boto3
import pytest
from moto.backends import get_backend

from aws_data_mcp.check.findings import Finding
from aws_data_mcp.check.report import render, run_checks
from aws_data_mcp.check.target import Target
from aws_data_mcp.cli import main
from aws_data_mcp.config import Settings
from aws_data_mcp.identity.hosted.trust import iam_trust
from aws_data_mcp_demo.account.callers import DEMO_AUDIENCE, DEMO_PROVIDER
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.front.hosted import handler_environment

READ_ONLY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*", "Action": [
    "iam:Get*", "iam:List*", "iam:SimulatePrincipalPolicy", "athena:Get*", "athena:List*", "s3:Get*", "s3:List*",
    "lakeformation:GetDataLakeSettings",
    "s3:HeadBucket"]}]}  # moto authorises HeadBucket as s3:HeadBucket (AWS: s3:ListBucket, granted above)
WELL_SET = ("analytics", "partners", "encrypted-results", "finance-restricted")
"""The demo's query workgroups that cap a query's scan (data-science, also listed, does not: see below)."""


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoAccount]:
    with DemoAccount(hosted_callers=True) as account:
        yield account


@pytest.fixture(scope="module")
def operator(demo: DemoAccount) -> boto3.Session:
    """An operator's read-only credentials (their key issued by moto's backend: no secret in a response), and the
    IAM OIDC provider a deployed oidc stack has (the demo's STS admits its tokens without one)."""
    iam = get_backend("iam")[demo.account_id]["aws"]
    iam.create_open_id_connect_provider(f"https://{DEMO_PROVIDER}", ["0" * 40], [DEMO_AUDIENCE], [])
    iam.create_user(demo.region, "operator", "/", None)
    iam.put_user_policy("operator", "read-only", json.dumps(READ_ONLY))
    key = iam.create_access_key("operator")
    return boto3.Session(aws_access_key_id=key.access_key_id, aws_secret_access_key=key.secret_access_key,
                         region_name=demo.region)


@pytest.fixture(autouse=True)
def endpoint(demo: DemoAccount, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", demo.endpoint_url)


def target(demo: DemoAccount, mode: str, **changes: object) -> Target:
    """The hosted demo's function as a stack would describe it; iam callers act as the demo's three roles."""
    settings = Settings.from_env(environ=handler_environment(demo, mode, "http://127.0.0.1:8000/mcp"))
    settings = replace(settings, query_workgroups=WELL_SET, oidc_issuer=DEMO_PROVIDER)
    roles = tuple(demo.caller_roles.values()) if mode == "iam" else ()
    return replace(Target(settings, f"demo-{mode}", DEMO_AUDIENCE, DEMO_PROVIDER, caller_roles=roles), **changes)


def failing(findings: list[Finding]) -> dict[str, Finding]:
    return {f"{f.check}: {f.subject}": f for f in findings if f.verdict == "fail"}


@pytest.mark.parametrize("mode", ["iam", "oidc"])
def test_a_correct_setup_passes_every_check(demo: DemoAccount, operator: boto3.Session, mode: str) -> None:
    findings = run_checks(operator, target(demo, mode))
    assert [f for f in findings if f.verdict in ("fail", "unknown")] == [], render(findings, False)
    checks = {f.check for f in findings}
    assert {"caller role trust", "query workgroup", "Lake Formation"} <= checks
    assert ("function role" in checks) == (mode == "iam") and ("oidc provider" in checks) == (mode == "oidc")


def test_a_role_that_does_not_trust_the_function_is_named_with_its_callers_and_the_statement_to_add(
        demo: DemoAccount, operator: boto3.Session) -> None:
    iam = get_backend("iam")[demo.account_id]["aws"]
    role = iam.get_role("demo-contractor-role")
    kept = role.assume_role_policy_document
    role.assume_role_policy_document = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{demo.account_id}:role/someone-else"},
         "Action": "sts:AssumeRole"}]})
    settings = target(demo, "iam").settings
    mapped = replace(settings, principal_role_map=((f"arn:aws:iam::{demo.account_id}:user/carol",
                                                    demo.caller_roles["demo-contractor-role"]),))
    try:
        found = failing(run_checks(operator, target(demo, "iam", settings=mapped)))
    finally:
        role.assume_role_policy_document = kept
    finding = found[f"caller role trust: {demo.caller_roles['demo-contractor-role']}"]
    assert "does not let the function's role" in finding.detail and "user/carol" in finding.affected
    assert json.dumps(iam_trust(mapped)) in finding.fix
    assert len(found) == 1  # the other roles still trust the function


def test_a_workgroup_without_a_cutoff_is_found(demo: DemoAccount, operator: boto3.Session) -> None:
    """The demo lists data-science among its query workgroups, and it has no cutoff nor enforced settings."""
    checked = target(demo, "iam")
    checked = replace(checked, settings=replace(checked.settings, query_workgroups=("data-science",)))
    findings = run_checks(operator, checked)
    cutoff = failing(findings)["query workgroup: data-science"]
    assert "no per-query cutoff" in cutoff.detail and "BytesScannedCutoffPerQuery=" in cutoff.fix
    assert any(f.verdict == "warn" and "does not enforce" in f.detail for f in findings)


def test_a_results_bucket_that_does_not_exist_is_found(demo: DemoAccount, operator: boto3.Session) -> None:
    athena = get_backend("athena")[demo.account_id][demo.region]
    athena.create_work_group("lost-results", {"ResultConfiguration": {"OutputLocation": "s3://no-such-results/x/"},
                                              "BytesScannedCutoffPerQuery": 10_000_000,
                                              "EnforceWorkGroupConfiguration": True}, "", [])
    checked = target(demo, "iam")
    checked = replace(checked, settings=replace(checked.settings, query_workgroups=("lost-results",)))
    finding = failing(run_checks(operator, checked))["query workgroup: lost-results"]
    assert "no-such-results does not exist" in finding.detail and finding.affected == "every athena_query in " \
        "lost-results"


def test_an_oidc_audience_that_does_not_match_is_found_on_every_role_and_the_provider(
        demo: DemoAccount, operator: boto3.Session) -> None:
    found = failing(run_checks(operator, target(demo, "oidc", audience="another-audience")))
    roles = [key for key in found if key.startswith("caller role trust")]
    assert len(roles) == len(set(demo.caller_roles.values()))
    assert all("the authorizer passes tokens for another-audience" in found[key].detail for key in roles)
    provider = next(f for key, f in found.items() if key.startswith("oidc provider"))
    assert "add-client-id-to-open-id-connect-provider" in provider.fix


def test_the_command_prints_json_and_fails_when_a_check_fails(demo: DemoAccount, operator: boto3.Session,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    credentials = operator.get_credentials()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", credentials.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", credentials.secret_key)
    monkeypatch.setenv("AWS_REGION", demo.region)
    monkeypatch.setenv("AWS_DATA_MCP_QUERY_WORKGROUPS", "analytics,data-science")
    with pytest.raises(SystemExit) as ended:
        main(["check", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert ended.value.code == 1
    assert {(f["subject"], f["verdict"]) for f in printed} >= {("data-science", "fail"), ("analytics", "ok")}
    assert credentials.secret_key not in json.dumps(printed)
