"""admin:// and auth://catalog/info on an account with 50 users and 60 roles (more than one IAM page each)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3
import pytest
from reading import read_everywhere, reset_moto

from aws_data_mcp.config import Settings
from aws_data_mcp.identity import resolve_caller
from aws_data_mcp.reader import ResourceReader
from aws_data_mcp.resources import registry
from aws_data_mcp.resources.admin import trust_summary

pytestmark = pytest.mark.anyio
USERS, ROLES = 50, 60
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"},
    {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "sts:AssumeRole",
     "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "true"}}}]}


@pytest.fixture(scope="module")
def account() -> Iterator[None]:
    reset_moto()
    iam = boto3.client("iam", region_name="us-east-1")
    iam.create_group(GroupName="analysts")
    for index in range(USERS):
        iam.create_user(UserName=f"user-{index:02d}", Path="/people/")
        if index % 2 == 0:
            iam.add_user_to_group(GroupName="analysts", UserName=f"user-{index:02d}")
    for index in range(ROLES):
        iam.create_role(RoleName=f"role-{index:02d}", AssumeRolePolicyDocument=json.dumps(TRUST),
                        Description=f"role {index}", MaxSessionDuration=7200)
    iam.create_open_id_connect_provider(Url="https://token.actions.githubusercontent.com",
                                        ClientIDList=["sts.amazonaws.com"], ThumbprintList=["a" * 40])
    yield
    reset_moto()


def read(uri: str, settings: Settings | None = None) -> Any:
    settings = settings or Settings(mode="local", response_char_budget=1_000_000)
    reader = ResourceReader(registry, settings)
    return json.loads(anyio.run(reader.read, uri, lambda: resolve_caller(None, settings)).text)


@pytest.mark.usefixtures("account")
async def test_users_and_roles_through_every_path(http_server: Any, local_lambda_handler: Any) -> None:
    users = await read_everywhere(http_server.url, local_lambda_handler, "admin://users")
    roles = await read_everywhere(http_server.url, local_lambda_handler, "admin://roles")
    assert users["count"] == users["page"]["total"] == USERS
    assert roles["count"] == roles["page"]["total"] == ROLES


@pytest.mark.usefixtures("account")
def test_users_carry_groups_and_keys_without_the_key_id() -> None:
    iam = boto3.client("iam", region_name="us-east-1")
    key_id = iam.create_access_key(UserName="user-03")["AccessKey"]["AccessKeyId"]
    users = {u["name"]: u for u in read("admin://users")["users"]}
    assert users["user-00"]["groups"] == ["analysts"] and users["user-01"]["groups"] == []
    (key,) = users["user-03"]["access_keys"]
    assert key["key_id_suffix"] == key_id[-4:] and key["status"] == "Active"
    assert key_id not in json.dumps(users)


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
def test_a_user_whose_details_are_denied_is_kept_with_the_failing_action(aws_faults: Any) -> None:
    aws_faults.fail("iam.ListAccessKeys", "AccessDenied", status=403, when=lambda r: "user-04" in str(r.body))
    users = {u["name"]: u for u in read("admin://users")["users"]}
    assert users["user-04"]["error"]["action"] == "iam:ListAccessKeys" and users["user-04"]["access_keys"] is None
    assert sum("error" in u for u in users.values()) == 1


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
def test_tabulator_config_and_catalog_info_follow_the_settings() -> None:
    config = read("admin://config/tabulator", Settings(mode="local", tabulator_databases=("sales",)))
    assert config["workgroup"]["name"] == "primary" and config["databases_in_scope"] == ["sales"]
    assert config["databases_configured"] is True and config["open_query_enabled"] is False
    missing = read("admin://config/tabulator", Settings(mode="local", tabulator_workgroup="nope"))
    assert missing["workgroup"]["error"]["error"] == "not_found"
    info = read("auth://catalog/info")
    assert info["data_catalogs"][0] == {"name": "AwsDataCatalog", "type": "GLUE"}
    assert info["query_workgroup"]["name"] == "primary" and info["account"] == "123456789012"
