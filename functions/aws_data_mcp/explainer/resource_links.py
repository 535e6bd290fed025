"""A resource link's explainer: what Lake Formation checks when Athena reads a link.

DESCRIBE on the link (in the caller's account), then GetTable and SELECT on the target.
For a share from another account, the SELECT grant sits in the caller's own catalog.
It names the owner's `CatalogId`. Lake Formation's credential vending reads the target's files
with the owner's registered role: S3 as the caller is not what Athena does there.
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
LinkChain = Chain[tuple[list[Link], dict[str, list[Link]], Any, dict[str, Any]]]
"""The links, the workgroups' links, what the caller reads of the target, the `resource_link` part."""


def _describes(grants: Sequence[Mapping[str, Any]], identities: Sequence[str], database: str,
               name: str) -> bool:
    """Whether a grant the caller holds (or IAM_ALLOWED_PRINCIPALS) gives DESCRIBE on the link."""
    for grant in grants:
        who = (grant.get("Principal") or {}).get("DataLakePrincipalIdentifier")
        table = (grant.get("Resource") or {}).get("Table") or {}
        named = table.get("Name") == name or "TableWildcard" in table
        if who in (*identities, IAM_ALLOWED_PRINCIPALS) and table.get("DatabaseName") == database \
                and named and _DESCRIBES & set(grant.get("Permissions") or []):
            return True
    return False


def _describing_groups(grants: Sequence[Mapping[str, Any]], identities: Sequence[str]) -> list[str]:
    """Grantees of DESCRIBE that may include the caller without naming it: a group, an account, an organization."""
    return [who for grant in grants
            if _DESCRIBES & set(grant.get("Permissions") or [])
            and (who := (grant.get("Principal") or {}).get("DataLakePrincipalIdentifier") or "")
            and who not in (*identities, IAM_ALLOWED_PRINCIPALS) and ":role/" not in who and ":user/" not in who]


def describe_link(subject: Subject, database: str, name: str, arn: str, lake: LakeAnswers) -> Link:
    """DESCRIBE on the link, from the grants listed on it; a grant to a group or an account the caller may be in
    leaves it `unknown` (its membership cannot be read from the caller's side)."""
    grants = lake.grants
    if grants.error is not None:
        return link(DESCRIBE, arn, "unknown", answered(grants), governed_by="lake_formation",
                    settle=unsettled(grants))
    evidence = {"answered": "lakeformation:ListPermissions"}
    if _describes(grants.value or [], subject.identities, database, name):
        return link(DESCRIBE, arn, "allowed", evidence, governed_by="lake_formation")
    if groups := _describing_groups(grants.value or [], subject.identities):
        return link(DESCRIBE, arn, "unknown", evidence | {"granted_to_groups": groups}, governed_by="lake_formation",
                    settle="A data lake administrator checks whether the caller belongs to " + ", ".join(groups)
                    + " (aws lakeformation list-permissions --resource on the link)")
    fix = grant_fix(subject.principal, database, name, subject.account, permissions=["DESCRIBE"])
    return link(DESCRIBE, arn, "denied", evidence, governed_by="lake_formation", fix=[fix])


def _target_table(subject: Subject, outcome: Outcome[Any, Any], arn: str) -> Link:
    fix = identity_fix(subject.principal, ["glue:GetTable"], [arn], subject.reach)
    return link("glue:GetTable", arn, verdict_of(outcome), answered(outcome),
                settle=unsettled(outcome), fix=[fix])


def _target_select(subject: Subject, target: Mapping[str, Any], owner: str, arn: str,
                   detail: Mapping[str, Any], lake: LakeAnswers) -> tuple[Link, list[str], Any]:
    """SELECT on the target, from the grants the caller's catalog holds on it."""
    descriptor = detail.get("StorageDescriptor") or {}
    fields = [*(descriptor.get("Columns") or []), *(detail.get("PartitionKeys") or [])]
    columns = [c["Name"] for c in fields]
    database, name = target["DatabaseName"], target["Name"]
    shared = owner != subject.account
    where = f"registered by account {owner}" if shared else "registered with Lake Formation"
    found, readable, _ = permissions_link(subject, database, name, columns, where, False, True,
                                          lake)
    found["resource"] = arn
    if found["verdict"] == "denied":  # the grant names the owner's catalog
        found["fix"] = [grant_fix(subject.principal, database, name, subject.account,
                                  catalog_id=owner if shared else None, permissions=["SELECT"])]
    return found, columns, readable


def _storage(location: str | None, owner: str) -> Link:
    """The target's files: Lake Formation's role reads them, so no check here binds the caller."""
    evidence = {"location": location,
                "reads": "Lake Formation's credential vending, with the owner's registered role"}
    return link("s3:GetObject", location or "unknown", "unknown", evidence,
                governed_by="lake_formation",
                settle=f"Account {owner} registered the location with Lake Formation. Its data "
                       "lake administrator runs aws lakeformation list-resources there to see the role.")


def explain_link(request: ResourceRequest, subject: Subject, database: str, name: str,
                 detail: Mapping[str, Any], links: list[Link], lake: LakeAnswers,
                 checks: WorkgroupChecks, workgroup_calls: list[Call[Any]]) -> LinkChain:
    """The link's chain after the table chain's first wave (`links`: the link's Glue links).
    One wave more: the target's definition and grants, beside the workgroups' second wave."""
    target = detail["TargetTable"]
    owner = str(target.get("CatalogId") or subject.account or "")
    database_of, name_of = target["DatabaseName"], target["Name"]
    region = target.get("Region") or request.caller.region
    arn = f"arn:aws:glue:{region}:{owner}:table/{database_of}/{name_of}"
    glue = request.client("glue", target.get("Region"))
    asked = lake_calls(request.client("lakeformation"), subject.principal, database_of, name_of,
                       owner if owner != subject.account else None)
    shared_table = partial(glue.get_table, CatalogId=owner, DatabaseName=database_of, Name=name_of)
    found = yield [Call("glue:GetTable", shared_table), *asked, *workgroup_calls]
    described = (found[0].value or {}).get("Table") or {}
    select, columns, readable = _target_select(subject, target, owner, arn, described,
                                               lake_answers(found[1:1 + len(asked)]))
    location = (described.get("StorageDescriptor") or {}).get("Location")
    links += [describe_link(subject, database, name, links[1]["resource"], lake),
              _target_table(subject, found[0], arn), select, checks.data_access_link(),
              _storage(location, owner)]
    refused = next((entry["check"] for entry in links if entry["verdict"] == "denied"), None)
    named = {"account": owner, "database": database_of, "table": name_of,
             **({"region": target["Region"]} if target.get("Region") else {})}
    part = {"target": named, "location": location, "columns": columns, "refused_at": refused}
    return links, checks.links(found[1 + len(asked):]), readable, part
