"""A resource link's explainer: what Lake Formation checks when Athena reads a link.

DESCRIBE on the link (in the caller's account), then GetTable and SELECT on the target. For a share from another
account the SELECT grant sits in the caller's catalog, naming the owner's `CatalogId`. The target's files are read
by Lake Formation's credential vending with the owner's registered role: S3 as the caller is not what Athena does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from aws_data_mcp.explainer.lake_formation import (
    IAM_ALLOWED_PRINCIPALS,
    LakeAnswers,
    grant_fix,
    lake_answers,
    lake_calls,
    permissions_link,
)
from aws_data_mcp.explainer.model import Link, answered, identity_fix, link, unsettled, verdict_of
from aws_data_mcp.explainer.storage_links import Subject
from aws_data_mcp.explainer.workgroup_checks import WorkgroupChecks
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

DESCRIBE = "lakeformation:DESCRIBE"
_DESCRIBES = frozenset({"DESCRIBE", "ALL"})


def _describes(grants: Sequence[Mapping[str, Any]], identities: Sequence[str], database: str, name: str) -> bool:
    """Whether a grant the caller holds (or IAM_ALLOWED_PRINCIPALS) gives DESCRIBE on the link."""
    for grant in grants:
        who = (grant.get("Principal") or {}).get("DataLakePrincipalIdentifier")
        table = (grant.get("Resource") or {}).get("Table") or {}
        if who in (*identities, IAM_ALLOWED_PRINCIPALS) and _DESCRIBES & set(grant.get("Permissions") or []) and (
                table.get("DatabaseName") == database and (table.get("Name") == name or "TableWildcard" in table)):
            return True
    return False


def describe_link(subject: Subject, database: str, name: str, arn: str, lake: LakeAnswers) -> Link:
    """DESCRIBE on the link, from the grants listed on it."""
    grants = lake.grants
    if grants.error is not None:
        return link(DESCRIBE, arn, "unknown", answered(grants), governed_by="lake_formation",
                    settle=unsettled(grants))
    if _describes(grants.value or [], subject.identities, database, name):
        return link(DESCRIBE, arn, "allowed", {"answered": "lakeformation:ListPermissions"},
                    governed_by="lake_formation")
    return link(DESCRIBE, arn, "denied", {"answered": "lakeformation:ListPermissions", "grants": []},
                governed_by="lake_formation", fix=[grant_fix(subject.principal, database, name, subject.account,
                                                             permissions=["DESCRIBE"])])


def _target_table(subject: Subject, outcome: Outcome[Any, Any], arn: str) -> Link:
    return link("glue:GetTable", arn, verdict_of(outcome), answered(outcome), settle=unsettled(outcome),
                fix=[identity_fix(subject.principal, ["glue:GetTable"], [arn], subject.reach)])


def _target_select(subject: Subject, target: Mapping[str, Any], owner: str, arn: str, detail: Mapping[str, Any],
                   lake: LakeAnswers) -> tuple[Link, list[str], Any]:
    """SELECT on the target, from the grants the caller's catalog holds on it (Lake Formation decides a share)."""
    descriptor = detail.get("StorageDescriptor") or {}
    columns = [c["Name"] for c in [*(descriptor.get("Columns") or []), *(detail.get("PartitionKeys") or [])]]
    database, name = target["DatabaseName"], target["Name"]
    where = f"registered by account {owner}" if owner != subject.account else "registered with Lake Formation"
    found, readable, _ = permissions_link(subject, database, name, columns, where, False, True, lake)
    found["resource"] = arn
    if found["verdict"] == "denied":
        found["fix"] = [grant_fix(subject.principal, database, name, subject.account,
                                  owner=owner if owner != subject.account else None, permissions=["SELECT"])]
    return found, columns, readable


def _storage(location: str | None, owner: str) -> Link:
    """The target's files: Lake Formation's role reads them, so no check here binds the caller."""
    return link("s3:GetObject", f"{location or 'unknown'}", "unknown", {
        "location": location, "reads": "Lake Formation's credential vending, with the owner account's registered role"},
        governed_by="lake_formation", settle=f"Account {owner} registered the location with Lake Formation; its "
        "data lake administrator runs aws lakeformation list-resources there to see the role that reads it")


def explain_link(request: ResourceRequest, subject: Subject, database: str, name: str, detail: Mapping[str, Any],
                 links: list[Link], lake: LakeAnswers, checks: WorkgroupChecks,
                 workgroup_calls: list[Call[Any]]) -> Chain[tuple[list[Link], dict[str, list[Link]], Any,
                                                                  dict[str, Any]]]:
    """The link's chain after the table chain's first wave: the target's definition and grants beside the
    workgroups' second wave. Returns (the links, the workgroups' links, what the caller reads, the link's part)."""
    target = detail["TargetTable"]
    owner = str(target.get("CatalogId") or subject.account or "")
    region = target.get("Region") or request.caller.region
    arn = f"arn:aws:glue:{region}:{owner}:table/{target['DatabaseName']}/{target['Name']}"
    glue = request.client("glue", target.get("Region"))
    asked = lake_calls(request.client("lakeformation"), subject.principal, target["DatabaseName"], target["Name"],
                       owner if owner != subject.account else None)
    found = yield [Call("glue:GetTable", partial(glue.get_table, CatalogId=owner, DatabaseName=target["DatabaseName"],
                                                 Name=target["Name"])), *asked, *workgroup_calls]
    shared = found[0]
    described = (shared.value or {}).get("Table") or {}
    select, columns, readable = _target_select(subject, target, owner, arn, described,
                                               lake_answers(found[1:1 + len(asked)]))
    location = (described.get("StorageDescriptor") or {}).get("Location")
    links += [describe_link(subject, database, name, links[1]["resource"], lake), _target_table(subject, shared, arn),
              select, checks.data_access_link(), _storage(location, owner)]
    workgroups = checks.links(found[1 + len(asked):])
    refused = next((entry["check"] for entry in links if entry["verdict"] == "denied"), None)
    part = {"target": {"account": owner, "database": target["DatabaseName"], "table": target["Name"],
                       **({"region": target["Region"]} if target.get("Region") else {})},
            "location": location, "columns": columns, "refused_at": refused}
    return links, workgroups, readable, part
