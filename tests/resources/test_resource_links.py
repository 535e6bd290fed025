"""A Glue resource link over moto, without the demo: its table resource keeps the link's own fields and shows
the target, or the target's refusal beside them; its explainer names the first Lake Formation check that refuses,
with the grant that fixes it. The demo's callers are in tests/explainer/test_agrees_links.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest

from support.reading import direct_read, reset_moto

OTHER_ACCOUNT = "999988887777"
"""An account that shares nothing with the caller's: Glue refuses its table."""
COLUMNS = [{"Name": "id", "Type": "string", "Comment": "Row id"}, {"Name": "amount", "Type": "double"}]


@pytest.fixture(scope="module")
def links() -> Iterator[None]:
    reset_moto()
    glue = boto3.client("glue", region_name="us-east-1")
    glue.create_database(DatabaseInput={"Name": "linked"})
    glue.create_table(DatabaseName="linked", TableInput={
        "Name": "owned", "PartitionKeys": [{"Name": "day", "Type": "string"}],
        "StorageDescriptor": {"Columns": COLUMNS, "Location": "s3://owned-bucket/owned/"}})
    account = boto3.client("sts", region_name="us-east-1").get_caller_identity()["Account"]
    for name, target in (("to_own", {"CatalogId": account, "DatabaseName": "linked", "Name": "owned"}),
                         ("to_other", {"CatalogId": OTHER_ACCOUNT, "DatabaseName": "x", "Name": "y",
                                       "Region": "us-east-1"})):
        glue.create_table(DatabaseName="linked", TableInput={"Name": name, "Description": f"link {name}",
                                                             "TargetTable": target})
    yield
    reset_moto()


def test_a_link_to_a_table_of_the_same_account_shows_its_columns_keys_and_location(links: None) -> None:
    table = direct_read("athena://databases/linked/tables/to_own")
    shared = table["resource_link"]
    assert shared["target"]["database"] == "linked" and shared["target"]["table"] == "owned", shared
    assert [c["name"] for c in shared["columns"]] == ["id", "amount"] and shared["columns"][0]["comment"] == "Row id"
    assert [k["name"] for k in shared["partition_keys"]] == ["day"]
    assert shared["location"] == "s3://owned-bucket/owned/" and "error" not in shared
    assert shared["uri"] == "athena://databases/linked/tables/owned"  # the home account's own: no ?account=
    assert shared["explain"] == "permissions://tables/linked/to_own"
    assert table["description"] == "link to_own" and table["columns"] == []  # the link's own fields, as Glue has them
    assert table["first_query"]["sql"].startswith('SELECT "id", "amount", "day"\nFROM "linked"."to_own"')


def test_a_refused_target_is_an_error_beside_the_links_own_fields(links: None) -> None:
    table = direct_read("athena://databases/linked/tables/to_other")
    shared = table["resource_link"]
    assert shared["target"] == {"account": OTHER_ACCOUNT, "database": "x", "table": "y", "region": "us-east-1"}
    assert shared["error"]["error"] == "access_denied" and shared["error"]["action"] == "glue:GetTable", shared
    assert "columns" not in shared and "uri" not in shared  # an account this deployment does not read
    assert table["name"] == "to_other" and table["description"] == "link to_other"


def test_the_explainer_names_describe_on_the_link_with_its_grant(links: None) -> None:
    explained = direct_read("permissions://tables/linked/to_other")
    assert explained["query"] == "denied" and explained["decided_by"] == "lake_formation", explained["summary"]
    assert explained["resource_link"]["refused_at"] == "lakeformation:DESCRIBE", explained["resource_link"]
    checks = {entry["check"]: entry for entry in explained["links"]}
    describe = checks["lakeformation:DESCRIBE"]
    assert describe["verdict"] == "denied" and describe["fix"][0]["request"]["Permissions"] == ["DESCRIBE"]
    assert describe["fix"][0]["request"]["Resource"] == {"Table": {"DatabaseName": "linked", "Name": "to_other"}}
    target = [entry for entry in explained["links"] if entry["resource"].endswith(":table/x/y")]
    assert [entry["check"] for entry in target] == ["glue:GetTable", "lakeformation:SELECT"], target
    assert target[0]["verdict"] == "denied" and target[0]["resource"].split(":")[4] == OTHER_ACCOUNT
    assert checks["s3:GetObject"]["verdict"] == "unknown" and checks["s3:GetObject"]["governed_by"] == "lake_formation"


def test_describe_granted_to_a_group_the_caller_may_be_in_is_unknown(links: None) -> None:
    """Lake Formation lets a group (or an account) hold DESCRIBE: the caller's side cannot read its membership."""
    lakeformation = boto3.client("lakeformation", region_name="us-east-1")
    group = "arn:aws:identitystore:::group/data-readers"
    grant = {"Principal": {"DataLakePrincipalIdentifier": group},
             "Resource": {"Table": {"DatabaseName": "linked", "Name": "to_other"}}, "Permissions": ["DESCRIBE"]}
    lakeformation.grant_permissions(**grant)
    try:
        explained = direct_read("permissions://tables/linked/to_other")
    finally:
        lakeformation.revoke_permissions(**grant)
    describe = next(entry for entry in explained["links"] if entry["check"] == "lakeformation:DESCRIBE")
    assert describe["verdict"] == "unknown" and describe["evidence"]["granted_to_groups"] == [group], describe
    assert group in describe["settle"]
    assert explained["query"] != "allowed"
