"""admin:// and auth://catalog/info on an account with 50 users (11 with an access key) and 60 roles, read in
IAM pages of 20 and 25 (moto answers ListUsers in one page whatever is asked: `small_pages` makes it page)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.admin import trust_summary
from support.faults import AwsFaults
from support.reading import parallel_read, read_everywhere, reset_moto

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("small_pages")]
USERS, ROLES = 50, 60
KEYED = [f"user-{index:02d}" for index in (*range(0, USERS, 5), 3)]
"""Users with an access key: 11 keys whose last use is looked up."""
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"},
    {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole",
     "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}}}]}
WIDE = Settings(mode="local", response_char_budget=1_000_000)


@pytest.fixture(scope="module")
def account() -> Iterator[dict[str, str]]:
    """The account; yields each keyed user's access key id."""
    reset_moto()
    iam = boto3.client("iam", region_name="us-east-1")
    iam.create_group(GroupName="analysts")
    for index in range(USERS):
        iam.create_user(UserName=f"user-{index:02d}", Path="/people/")
        if index % 2 == 0:
            iam.add_user_to_group(GroupName="analysts", UserName=f"user-{index:02d}")
    keys = {name: iam.create_access_key(UserName=name)["AccessKey"]["AccessKeyId"] for name in KEYED}
    for index in range(ROLES):
        iam.create_role(RoleName=f"role-{index:02d}", AssumeRolePolicyDocument=json.dumps(TRUST),
                        Description=f"role {index}", MaxSessionDuration=7200)
    iam.create_open_id_connect_provider(Url="https://token.actions.githubusercontent.com",
                                        ClientIDList=["sts.amazonaws.com"], ThumbprintList=["a" * 40])
    yield keys
    reset_moto()


def read(uri: str, settings: Settings | None = None) -> Any:
    settings = settings or WIDE
    reader = ResourceReader(registry, settings)
    return json.loads(anyio.run(reader.read, uri, lambda: resolve_caller(None, settings)).text)


@pytest.mark.usefixtures("account")
async def test_users_and_roles_through_every_path(http_server: Any, local_lambda_handler: Any) -> None:
    users = await read_everywhere(http_server.url, local_lambda_handler, "admin://users")
    roles = await read_everywhere(http_server.url, local_lambda_handler, "admin://roles")
    assert users["count"] == users["page"]["total"] == USERS
    assert roles["count"] == roles["page"]["total"] == ROLES


@pytest.mark.usefixtures("account")
async def test_sso_and_the_table_query_set_up_through_every_path(http_server: Any, local_lambda_handler: Any) -> None:
    sso = await read_everywhere(http_server.url, local_lambda_handler, "admin://config/sso")
    tabulator = await read_everywhere(http_server.url, local_lambda_handler, "admin://config/tabulator")
    assert sso["identity_center_region"] == "us-east-1"
    assert len(sso["identity_center_instances"]) == 1  # the one moto's sso-admin always has
    assert [p["url"] for p in sso["oidc_providers"]] == ["token.actions.githubusercontent.com"]
    assert sso["saml_providers"] == []
    assert tabulator["workgroup"]["name"] == "primary" and tabulator["open_query_enabled"] is False
    assert tabulator["databases_in_scope"] == [] and tabulator["databases_configured"] is False


@pytest.mark.usefixtures("account")
def test_every_list_follows_its_pages(aws_faults: AwsFaults) -> None:
    assert read("admin://users")["count"] == USERS and read("admin://roles")["count"] == ROLES
    assert aws_faults.calls["iam.ListUsers"] == 3 and aws_faults.calls["iam.ListRoles"] == 3  # 20 and 25 a page


def test_users_carry_groups_and_keys_without_the_key_id(account: dict[str, str]) -> None:
    users = {u["name"]: u for u in read("admin://users")["users"]}
    assert users["user-00"]["groups"] == ["analysts"] and users["user-01"]["groups"] == []
    (key,) = users["user-03"]["access_keys"]
    assert key["key_id_suffix"] == account["user-03"][-4:] and key["status"] == "Active"
    assert users["user-01"]["access_keys"] == [] and not any("errors" in u for u in users.values())
    assert not any(key_id in json.dumps(users) for key_id in account.values())


@pytest.mark.usefixtures("account")
def test_every_keys_last_use_is_looked_up_at_once_not_user_by_user(aws_faults: AwsFaults) -> None:
    parallel_read("admin://users", aws_faults, {"iam.GetAccessKeyLastUsed": len(KEYED)}, WIDE)
    assert aws_faults.calls["iam.GetAccessKeyLastUsed"] == len(KEYED)
    assert aws_faults.calls["iam.ListGroupsForUser"] == aws_faults.calls["iam.ListAccessKeys"] == USERS


def test_a_user_whose_keys_are_denied_keeps_its_groups(account: dict[str, str], aws_faults: AwsFaults) -> None:
    aws_faults.fail("iam.ListAccessKeys", "AccessDenied", status=403, when=lambda r: "user-04" in str(r.body))
    aws_faults.fail("iam.GetAccessKeyLastUsed", "AccessDenied", status=403,
                    when=lambda r: account["user-05"] in str(r.body))
    users = {u["name"]: u for u in read("admin://users")["users"]}
    denied = users["user-04"]
    assert denied["groups"] == ["analysts"] and denied["access_keys"] is None
    assert [e["action"] for e in denied["errors"]] == ["iam:ListAccessKeys"]
    (key,) = users["user-05"]["access_keys"]  # listed; only its last use is denied
    assert key["error"]["action"] == "iam:GetAccessKeyLastUsed" and key["last_used"] is None
    assert [name for name, user in users.items() if "errors" in user] == ["user-04"]


@pytest.mark.usefixtures("account")
def test_roles_summarise_who_may_assume_them() -> None:
    roles = {r["name"]: r for r in read("admin://roles")["roles"]}
    assert roles["role-07"]["trusted"] == {"aws": ["arn:aws:iam::123456789012:root"],
                                           "service": ["lambda.amazonaws.com"], "federated": [], "conditions": True}
    assert roles["role-07"]["max_session_seconds"] == 7200 and roles["role-07"]["description"] == "role 7"


def test_trust_summary_reads_the_url_encoded_document_of_the_wire() -> None:
    encoded = "%7B%22Statement%22%3A%5B%7B%22Effect%22%3A%22Allow%22%2C%22Principal%22%3A%7B%22Federated%22%3A" \
              "%22cognito-identity.amazonaws.com%22%7D%7D%5D%7D"
    assert trust_summary(encoded)["federated"] == ["cognito-identity.amazonaws.com"]


@pytest.mark.usefixtures("account")
def test_without_iam_rights_the_read_is_access_denied_naming_the_action(aws_faults: Any) -> None:
    aws_faults.fail("iam.ListRoles", "AccessDenied", status=403)
    with pytest.raises(Exception) as raised:
        read("admin://roles")
    assert raised.value.payload()["action"] == "iam:ListRoles"  # type: ignore[attr-defined]


@pytest.mark.usefixtures("account")
def test_sso_sections_answer_independently(aws_faults: Any) -> None:
    aws_faults.fail("iam.ListSAMLProviders", "AccessDenied", status=403)
    sso = read("admin://config/sso")
    assert sso["saml_providers"]["action"] == "iam:ListSAMLProviders"
    (github,) = sso["oidc_providers"]
    assert github["url"].endswith("token.actions.githubusercontent.com")
    assert github["client_ids"] == ["sts.amazonaws.com"]
    assert isinstance(sso["identity_center_instances"], list)


@pytest.mark.usefixtures("account")
def test_sso_sections_are_read_side_by_side(aws_faults: AwsFaults) -> None:
    read("admin://config/sso")  # builds the clients and resolves the caller
    sections = aws_faults.overlap("sso-admin.ListInstances", "iam.ListSAMLProviders",
                                  "iam.ListOpenIDConnectProviders", at_once=3)
    sso = read("admin://config/sso")
    assert sections.peak == 3  # the three sections' calls in flight together
    assert sso["identity_center_region"] == "us-east-1" and len(sso["oidc_providers"]) == 1


@pytest.mark.usefixtures("account")
def test_tabulator_config_and_catalog_info_follow_the_settings() -> None:
    config = read("admin://config/tabulator", Settings(mode="local", tabulator_databases=("sales",)))
    assert config["workgroup"]["name"] == "primary" and config["databases_in_scope"] == ["sales"]
    assert config["databases_configured"] is True and config["open_query_enabled"] is False
    missing = read("admin://config/tabulator", Settings(mode="local", query_workgroups=("nope",)))
    assert missing["workgroup"]["error"]["error"] == "not_found"
    info = read("auth://catalog/info")
    assert info["data_catalogs"][0] == {"name": "AwsDataCatalog", "type": "GLUE"}
    assert info["query_workgroup"]["name"] == "primary" and info["account"] == "123456789012"
