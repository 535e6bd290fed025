"""Lake Formation's verdict for one caller and one table, from answers shaped as AWS documents them (ListResources,
ListPermissions, ListDataCellsFilter, GetResourceLFTags, ListLakeFormationOptIns): the cases that read
as "allowed" where AWS refuses, or "denied" where the caller cannot see the grant. moto has no hybrid access mode,
data cells filters or LF-tag grants listing, so these run against the decision itself; the moto scenarios are in
test_permissions_explain.py."""

from __future__ import annotations

from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.lake_formation import LakeAnswers, permissions_link, registration_link
from aws_data_mcp.explainer.lf_grants import effective_tags
from aws_data_mcp.explainer.storage_links import Subject
from aws_data_mcp.reading.fanout import Outcome

ACCOUNT = "123456789012"
ALICE = f"arn:aws:iam::{ACCOUNT}:role/alice"
BOB = f"arn:aws:iam::{ACCOUNT}:role/bob"
COLUMNS = ["order_id", "country", "iban"]
LOCATION = "arn:aws:s3:::lake"


def ok(value: Any) -> Outcome[Any, Any]:
    return Outcome(item=None, value=value)


def refused(action: str) -> Outcome[Any, Any]:
    return Outcome(item=None, error=ResourceFailure(ErrorCode.ACCESS_DENIED, f"not allowed {action}", action=action))


def grant(principal: str, resource: dict[str, Any], permissions: tuple[str, ...] = ("SELECT",)) -> dict[str, Any]:
    return {"Principal": {"DataLakePrincipalIdentifier": principal}, "Resource": resource,
            "Permissions": list(permissions)}


def table(name: str = "t") -> dict[str, Any]:
    return {"Table": {"DatabaseName": "enterprise", "Name": name}}


def answers(grants: list[dict[str, Any]] | Outcome[Any, Any] = (), **more: Any) -> LakeAnswers:
    fields = {"grants": grants if isinstance(grants, Outcome) else ok(list(grants)), "tag_grants": ok([]),
              "filters": ok([]), "tags": ok({}), "opt_ins": ok([]), "settings": ok({"DataLakeSettings": {}})}
    return LakeAnswers(**(fields | more))


def decide(who: str, lake: LakeAnswers, hybrid: bool = False) -> tuple[dict[str, Any], Any, bool]:
    subject = Subject(who, (who,), ACCOUNT)
    return permissions_link(subject, "enterprise", "t", COLUMNS, LOCATION, hybrid, True, lake)  # type: ignore[return-value]


def test_hybrid_mode_opted_in_reads_its_two_columns_and_not_opted_in_is_iams() -> None:
    registered, location, hybrid = registration_link(ok([{"ResourceArn": LOCATION, "HybridAccessEnabled": True}]),
                                                     "lake", "t/")
    assert (location, hybrid, registered["evidence"]["hybrid_access"]) == (LOCATION, True, True)
    lake = answers([grant("IAM_ALLOWED_PRINCIPALS", table()),
                    grant(ALICE, {"TableWithColumns": table()["Table"] | {"ColumnNames": ["order_id", "country"]}})],
                   opt_ins=ok([{"Principal": {"DataLakePrincipalIdentifier": ALICE}, "Resource": table()}]))
    alice, readable, decides = decide(ALICE, lake, hybrid=True)
    assert (alice["verdict"], readable.columns, decides) == ("allowed", ["order_id", "country"], True)
    bob, readable, decides = decide(BOB, lake, hybrid=True)
    assert (bob["verdict"], readable.columns, decides) == ("allowed", COLUMNS, False)  # IAM's (S3) links decide
    unknown, readable, _ = decide(BOB, answers(opt_ins=refused("lakeformation:ListLakeFormationOptIns")), hybrid=True)
    assert unknown["verdict"] == "unknown" and readable is None and "opt" in unknown["settle"]


def test_a_data_cells_filter_shows_its_columns_and_row_filter() -> None:
    definition = {"DatabaseName": "enterprise", "TableName": "t", "Name": "de_only",
                  "RowFilter": {"FilterExpression": "country = 'DE'"},
                  "ColumnWildcard": {"ExcludedColumnNames": ["iban"]}}
    on_filter = grant(ALICE, {"DataCellsFilter": {"DatabaseName": "enterprise", "TableName": "t",
                                                  "Name": "de_only"}})
    lake = answers(filters=ok([definition]), filter_grants=(ok([on_filter]),))
    found, readable, _ = decide(ALICE, lake)
    assert found["verdict"] == "allowed" and readable.columns == ["order_id", "country"]
    assert readable.row_filters == ["country = 'DE'"] and found["evidence"]["row_filter"] == "(country = 'DE')"
    unseen, readable, _ = decide(ALICE, answers(filters=refused("lakeformation:ListDataCellsFilter")))
    assert unseen["verdict"] == "unknown" and readable is None  # a filter grant it cannot see: never denied


def test_lf_tag_grants_follow_inherited_and_overridden_tags() -> None:
    tags = {"LFTagOnDatabase": [{"TagKey": "domain", "TagValues": ["sales"]}],
            "LFTagsOnTable": [{"TagKey": "domain", "TagValues": ["customers"]}],
            "LFTagsOnColumns": [{"Name": "iban", "LFTags": [{"TagKey": "domain", "TagValues": ["finance"]}]}]}
    assert effective_tags(tags, COLUMNS)["order_id"] == {"domain": {"customers"}}  # the table's overrides the db's
    on_tags = grant(ALICE, {"LFTagPolicy": {"ResourceType": "TABLE", "Expression": [
        {"TagKey": "domain", "TagValues": ["customers"]}]}})
    found, readable, _ = decide(ALICE, answers(tag_grants=ok([on_tags]), tags=ok(tags)))
    assert found["verdict"] == "allowed" and readable.columns == ["order_id", "country"]  # iban is finance's
    denied, _, _ = decide(BOB, answers(tag_grants=ok([on_tags]), tags=ok(tags)))
    assert denied["verdict"] == "denied" and denied["fix"][0]["kind"] == "lake_formation_grant"
    unseen, _, _ = decide(ALICE, answers(tag_grants=ok([on_tags]), tags=refused("lakeformation:GetResourceLFTags")))
    assert unseen["verdict"] == "unknown"


def test_grants_the_caller_cannot_see_are_unknown_not_denied() -> None:
    group = "arn:aws:identitystore:::group/analysts"
    found, readable, _ = decide(ALICE, answers([grant(group, table()), grant("111122223333", table())]))
    assert found["verdict"] == "unknown" and readable is None
    assert "arn:aws:identitystore:::group/analysts" in found["settle"] and "111122223333" in found["settle"]
    hidden, _, _ = decide(ALICE, answers(tag_grants=refused("lakeformation:ListPermissions")))
    assert hidden["verdict"] == "unknown"
    nothing, readable, _ = decide(ALICE, answers([grant(BOB, table())]))
    assert nothing["verdict"] == "denied" and readable.columns == []  # every grant seen, none the caller's
