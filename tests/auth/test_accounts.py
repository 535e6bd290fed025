"""Several accounts from one URL: `?account=<name>` reads a listed account as the caller, `?account=*` every one.

moto keeps an account per id, and credentials STS issues for a role act in that role's account, so each account
here has data of its own. What moto's STS does not check (trust policies) is injected as STS's refusal where a case
needs it; the trust statements themselves are evaluated in test_member_trust.py.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import boto3
import pytest

from aws_data_mcp.config import SettingError, Settings
from support.faults import AwsFaults
from support.servers import lambda_container

from .hosted_support import ACCOUNT, IAM, OIDC, error_of, iam_event, oidc_event, read, sent, status_of

LAKE, SANDBOX = "222222222222", "333333333333"
ACCOUNTS = (("home", ACCOUNT), ("lake", LAKE), ("sandbox", SANDBOX))
DATABASES = {ACCOUNT: "home_sales", LAKE: "lake_events", SANDBOX: "sandbox_scratch"}
IAM_ACCOUNTS = dataclasses.replace(IAM, accounts=ACCOUNTS, pinned_session_roles=("DataAnalyst",))
OIDC_ACCOUNTS = dataclasses.replace(OIDC, accounts=ACCOUNTS)


def _in(account: str) -> boto3.Session:
    """A session acting in `account` (moto: credentials STS issues for a role act in the role's account)."""
    sts = boto3.client("sts", region_name="us-east-1")
    credentials = sts.assume_role(RoleArn=f"arn:aws:iam::{account}:role/Seeder", RoleSessionName="seed")["Credentials"]
    return boto3.Session(aws_access_key_id=credentials["AccessKeyId"], region_name="us-east-1",
                         aws_secret_access_key=credentials["SecretAccessKey"],
                         aws_session_token=credentials["SessionToken"])


@pytest.fixture(scope="module", name="estate")
def estate_fixture(roles: None) -> None:
    """Three accounts, each with one database of its own and the callers' roles."""
    for account, database in DATABASES.items():
        session = boto3.Session(region_name="us-east-1") if account == ACCOUNT else _in(account)
        glue = session.client("glue")
        if database not in [d["Name"] for d in glue.get_databases()["DatabaseList"]]:
            glue.create_database(DatabaseInput={"Name": database, "Description": f"only in {account}"})


def _databases(answer: dict[str, Any]) -> list[str]:
    return sorted(d["name"] for d in status_of(answer)["databases"])


def test_iam_reads_each_account_as_the_caller(estate: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    for name, account in ACCOUNTS:
        answer = read(invoke, iam_event("DataAnalyst", "alice", uri=f"athena://databases?account={name}"))
        assert _databases(answer) == [DATABASES[account]], name
        source = status_of(answer)["from_account"]
        assert (source["name"], source["id"]) == (name, account)
        assert source["principal_arn"] == f"arn:aws:sts::{account}:assumed-role/DataAnalyst/alice"
    home = read(invoke, iam_event("DataAnalyst", "alice", uri="athena://databases"))
    assert _databases(home) == ["home_sales"] and "from_account" not in status_of(home)  # today's URI, today's answer


def test_iam_chains_from_the_callers_own_session(estate: None, sts: AwsFaults) -> None:
    """The function's credentials assume only the home role; the lake role is assumed by the caller's session."""
    from_function = sent(sts, "sts.AssumeRole")
    invoke = lambda_container(IAM_ACCOUNTS)
    read(invoke, iam_event("DataAnalyst", "alice", uri="athena://databases?account=lake"))
    assert [r["RoleArn"] for r in from_function] == [f"arn:aws:iam::{ACCOUNT}:role/DataAnalyst"]
    status = status_of(read(invoke, iam_event("DataAnalyst", "alice")))
    reached = {a["name"]: a for a in status["accounts"]}
    assert reached["lake"]["principal_arn"] == f"arn:aws:sts::{LAKE}:assumed-role/DataAnalyst/alice"
    assert reached["home"]["home"] is True and all(a["reachable"] for a in reached.values())


def test_every_account_side_by_side(estate: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    answer = status_of(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://databases?account=*")))
    assert sorted((d["account"], d["name"]) for d in answer["databases"]) == \
        [("home", "home_sales"), ("lake", "lake_events"), ("sandbox", "sandbox_scratch")]
    assert [(a["name"], a["count"]) for a in answer["accounts"]] == [("home", 1), ("lake", 1), ("sandbox", 1)]


def test_catalogs_in_every_account_name_each_accounts_own_glue_catalog(estate: None) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    answer = status_of(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://catalogs?account=*")))
    glue = {c["account"]: c["catalog_id"] for c in answer["catalogs"] if c["name"] == "AwsDataCatalog"}
    assert glue == {"home": ACCOUNT, "lake": LAKE, "sandbox": SANDBOX}


@pytest.mark.parametrize("account", ["prod", "arn:aws:iam::222222222222:role/DataAdmin", "222222222222", "LAKE"])
def test_unlisted_account_or_role_arn_refused_with_zero_calls(estate: None, sts: AwsFaults, account: str) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    sts.calls.clear()
    error = error_of(read(invoke, iam_event("DataAnalyst", "alice", uri=f"athena://databases?account={account}")))
    assert error["error"] == "invalid_argument" and "home, lake, sandbox" in " ".join(error["details"])
    assert sts.total() == 0


def test_star_only_on_the_org_wide_views(estate: None, sts: AwsFaults) -> None:
    invoke = lambda_container(IAM_ACCOUNTS)
    sts.calls.clear()
    error = error_of(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://databases/x/tables/y?account=*")))
    assert error["error"] == "invalid_argument" and sts.total() == 0


def test_oidc_token_goes_to_each_accounts_role(estate: None, sts: AwsFaults) -> None:
    requests = sent(sts, "sts.AssumeRoleWithWebIdentity")
    invoke = lambda_container(OIDC_ACCOUNTS)
    answer = read(invoke, oidc_event("bob", "admins", uri="athena://databases?account=sandbox"))
    assert _databases(answer) == ["sandbox_scratch"]
    assert [r["RoleArn"] for r in requests] == [f"arn:aws:iam::{ACCOUNT}:role/DataAdmin",
                                                f"arn:aws:iam::{SANDBOX}:role/DataAdmin"]
    assert requests[0]["WebIdentityToken"] == requests[1]["WebIdentityToken"]  # the caller's token, not ours


def test_an_account_that_does_not_admit_the_caller(estate: None, sts: AwsFaults) -> None:
    """The sandbox role's trust does not admit contractors: STS refuses, that account alone says so."""
    sts.fail("sts.AssumeRoleWithWebIdentity", "AccessDenied",
             when=lambda request: f"{SANDBOX}%3Arole" in str(request.body) or f"{SANDBOX}:role" in str(request.body))
    invoke = lambda_container(OIDC_ACCOUNTS)
    refused = error_of(read(invoke, oidc_event("carol", "contractors", uri="athena://databases?account=sandbox")))
    assert refused["error"] == "authentication_required" and "account sandbox does not admit" in refused["message"]
    everything = status_of(read(invoke, oidc_event("carol", "contractors", uri="athena://databases?account=*")))
    assert sorted({d["account"] for d in everything["databases"]}) == ["home", "lake"]
    errors = {a["name"]: a["error"]["error"] for a in everything["accounts"] if "error" in a}
    assert errors == {"sandbox": "authentication_required"}
    status = status_of(read(invoke, oidc_event("carol", "contractors")))
    assert {a["name"]: a["reachable"] for a in status["accounts"]} == {"home": True, "lake": True, "sandbox": False}


def test_cursor_of_one_account_does_not_page_another(estate: None) -> None:
    invoke = lambda_container(dataclasses.replace(IAM_ACCOUNTS, response_char_budget=1_000))
    for account, database in DATABASES.items():
        session = boto3.Session(region_name="us-east-1") if account == ACCOUNT else _in(account)
        glue = session.client("glue")
        for index in range(6):
            name = f"{database}_more_{index}"
            if name not in [d["Name"] for d in glue.get_databases()["DatabaseList"]]:
                glue.create_database(DatabaseInput={"Name": name, "Description": "x" * 200})
    first = status_of(read(invoke, iam_event("DataAnalyst", "alice", uri="athena://databases?account=lake")))
    next_uri = first["page"]["next_uri"]
    assert "account=lake" in next_uri
    moved = next_uri.replace("account=lake", "account=sandbox")
    error = error_of(read(invoke, iam_event("DataAnalyst", "alice", uri=moved)))
    assert error["error"] == "invalid_argument" and "another account" in error["message"]
    home = next_uri.replace("account=lake&", "").replace("&account=lake", "")
    assert error_of(read(invoke, iam_event("DataAnalyst", "alice", uri=home)))["error"] == "invalid_argument"


def test_interleaved_callers_and_accounts_leak_nothing(estate: None) -> None:
    """Three callers over three accounts, interleaved: each answer is its account's data, as its caller."""
    invoke = lambda_container(IAM_ACCOUNTS)
    plan = [(who, name) for who in ("alice", "bob", "carol") for name, _ in ACCOUNTS] * 10
    random.Random(26).shuffle(plan)
    ids = dict(ACCOUNTS)
    for who, name in plan:
        answer = status_of(read(invoke, iam_event("DataAnalyst", who, uri=f"auth://status?account={name}")))
        assert answer["principal_arn"] == f"arn:aws:sts::{ids[name]}:assumed-role/DataAnalyst/{who}", (who, name)
        assert answer["account"] == ids[name]
        tables = status_of(read(invoke, iam_event("DataAnalyst", who, uri=f"athena://databases?account={name}")))
        assert {d["name"] for d in tables["databases"]} <= {n for n in _names(ids[name])}, (who, name)
    digests = {(who, name): status_of(read(invoke, iam_event("DataAnalyst", who, uri=f"auth://status?account={name}")))
               ["identity_digest"] for who, name in set(plan)}
    assert len(set(digests.values())) == len(digests)  # every caller in every account is a cache key of its own


def _names(account: str) -> set[str]:
    session = boto3.Session(region_name="us-east-1") if account == ACCOUNT else _in(account)
    return {d["Name"] for d in session.client("glue").get_databases()["DatabaseList"]}


def test_accounts_setting_is_checked() -> None:
    with pytest.raises(SettingError, match="12-digit"):
        Settings(accounts=(("lake", "12345"),))
    with pytest.raises(SettingError, match="short name"):
        Settings(accounts=(("arn:aws:iam::1:role/x", LAKE),))
    with pytest.raises(SettingError, match="ACCOUNT_ROLE"):
        Settings(account_role="{other}")
    assert json.loads(json.dumps(Settings(accounts=ACCOUNTS).account_named("lake").__dict__)) == \
        {"name": "lake", "id": LAKE}
