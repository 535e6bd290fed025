"""Lake Formation's links: whether a location is registered (then Lake Formation, not IAM, decides who reads its
data), and what Lake Formation grants the caller on a table and its columns.

A table whose grants include IAM_ALLOWED_PRINCIPALS (the account's IAM-only default) is still IAM's to decide,
registered or not.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.lf_grants import (
    Readable,
    filter_grants_unresolved,
    opted_in,
    readable,
    reads,
    tag_grants_unresolved,
)
from aws_data_mcp.explainer.model import Fix, Link, link, unsettled
from aws_data_mcp.explainer.storage_links import Subject
from aws_data_mcp.reading.fanout import Call, Outcome

IAM_ALLOWED_PRINCIPALS = "IAM_ALLOWED_PRINCIPALS"
REGISTRATION = "lakeformation:DescribeResource"
SELECT = "lakeformation:SELECT"


def table_permissions(lakeformation: Any, resource: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every grant on `resource` (all pages of ListPermissions), whoever it is granted to."""
    found, token = [], None
    while True:
        page = lakeformation.list_permissions(Resource=dict(resource), **({"NextToken": token} if token else {}))
        found += page.get("PrincipalResourcePermissions", [])
        token = page.get("NextToken")
        if not token:
            return found


def covering(registered: Sequence[str], bucket: str, prefix: str) -> str | None:
    """The registered location that contains s3://bucket/prefix, the deepest where several do."""
    path = f"arn:aws:s3:::{bucket}/{prefix}".rstrip("/")
    inside = [arn for arn in registered if path == arn.rstrip("/") or path.startswith(arn.rstrip("/") + "/")]
    return max(inside, key=len, default=None)


def registration_link(registered: Outcome[Any, Any], bucket: str, prefix: str) -> tuple[Link, str | None, bool]:
    """The registration link, the registered location (None where there is none, or it could not be read) and
    whether it is in hybrid access mode."""
    path = f"arn:aws:s3:::{bucket}/{prefix}"
    if registered.error is not None:
        return link(REGISTRATION, path, "unknown", {"error": registered.error.brief()},
                    settle="A data lake administrator runs aws lakeformation list-resources: a registered location "
                           "containing this path means Lake Formation decides who reads it"), None, False
    infos = {r["ResourceArn"]: r for r in registered.value or []}
    location = covering(list(infos), bucket, prefix)
    hybrid = bool(location and infos[location].get("HybridAccessEnabled"))
    evidence = {"registered_location": location, "hybrid_access": hybrid, "answered": "lakeformation:ListResources"}
    return link(REGISTRATION, path, "allowed", evidence,
                governed_by="lake_formation" if location else "iam"), location, hybrid


def _grants_to(grants: Sequence[Mapping[str, Any]], identities: Sequence[str]) -> list[Mapping[str, Any]]:
    return [g for g in grants if (g.get("Principal") or {}).get("DataLakePrincipalIdentifier") in identities]


def _reads(grants: Sequence[Mapping[str, Any]]) -> bool:
    return any(reads(g) for g in grants)


def grant_fix(principal: str | None, database: str, table: str, account: str | None, *,
              catalog_id: str | None = None, permissions: Sequence[str] = ("SELECT", "DESCRIBE")) -> Fix:
    """Lake Formation's grant on the table; `catalog_id`: the catalog holding it where not the caller's own (an S3
    table bucket's child catalog, or the account sharing a resource link's target)."""
    request = {"Principal": {"DataLakePrincipalIdentifier": principal or "<the caller's role ARN>"},
               "Resource": {"Table": {**({"CatalogId": catalog_id} if catalog_id else {}), "DatabaseName": database,
                                      "Name": table}},
               "Permissions": list(permissions)}
    if account:
        request["CatalogId"] = account
    resource = json.dumps(request["Resource"], separators=(",", ":"))
    command = (f"aws lakeformation grant-permissions --principal "
               f"DataLakePrincipalIdentifier={shlex.quote(str(request['Principal']['DataLakePrincipalIdentifier']))} "
               f"--permissions {' '.join(permissions)} --resource {shlex.quote(resource)}")
    return Fix(kind="lake_formation_grant", apply_by="administrator", target=f"{database}.{table}", command=command,
               request=request)


@dataclass(frozen=True)
class LakeAnswers:
    """What Lake Formation answered the caller about one table: the first wave's calls side by side, then the
    grants on each of the table's data cells filters (which need the filters' names)."""

    grants: Outcome[Any, Any]
    """ListPermissions on the table: every grant the caller may see (all of them for an administrator)."""
    tag_grants: Outcome[Any, Any]
    """ListPermissions of grants on LF-tag expressions of tables (ResourceType LF_TAG_POLICY_TABLE)."""
    filters: Outcome[Any, Any]
    """ListDataCellsFilter on the table: each filter's columns and row filter."""
    tags: Outcome[Any, Any]
    """GetResourceLFTags on the table: its effective LF-tags, per column."""
    opt_ins: Outcome[Any, Any]
    """ListLakeFormationOptIns for the caller: the resources it is opted in to (hybrid access mode)."""
    settings: Outcome[Any, Any]
    filter_grants: tuple[Outcome[Any, Any], ...] = ()
    """ListPermissions on each data cells filter (asked in the second wave)."""


FILTERS = 10
"""Data cells filters of one table whose grants are listed at most (more: `unknown`, never assumed)."""


def lake_calls(lakeformation: Any, principal: str | None, database: str, table: str,
               catalog_id: str | None = None) -> list[Call[Any]]:
    """The first wave's calls `LakeAnswers` holds, in its order; `catalog_id` names another catalog's table (a child
    catalog's, or the sharing account's)."""
    resource = {"Table": {**({"CatalogId": catalog_id} if catalog_id else {}), "DatabaseName": database,
                          "Name": table}}
    who = {"Principal": {"DataLakePrincipalIdentifier": principal}} if principal else {}
    return [Call("lakeformation:ListPermissions", partial(table_permissions, lakeformation, resource)),
            Call("lakeformation:ListPermissions", partial(_pages, lakeformation.list_permissions,
                                                          "PrincipalResourcePermissions",
                                                          ResourceType="LF_TAG_POLICY_TABLE")),
            Call("lakeformation:ListDataCellsFilter", partial(_pages, lakeformation.list_data_cells_filter,
                                                              "DataCellsFilters", Table=resource["Table"])),
            Call("lakeformation:GetResourceLFTags", partial(lakeformation.get_resource_lf_tags, Resource=resource)),
            Call("lakeformation:ListLakeFormationOptIns", partial(
                _pages, lakeformation.list_lake_formation_opt_ins, "LakeFormationOptInsInfoList", **who)),
            Call("lakeformation:GetDataLakeSettings", lakeformation.get_data_lake_settings)]


def lake_answers(outcomes: Sequence[Outcome[Any, Any]]) -> LakeAnswers:
    return LakeAnswers(*outcomes)


def filter_calls(lakeformation: Any, lake: LakeAnswers) -> list[Call[Any]]:
    """The second wave: the grants on each of the table's data cells filters (bounded by FILTERS)."""
    return [Call("lakeformation:ListPermissions", partial(table_permissions, lakeformation, {"DataCellsFilter": {
        "TableCatalogId": f.get("TableCatalogId"), "DatabaseName": f.get("DatabaseName"),
        "TableName": f.get("TableName"), "Name": f.get("Name")}})) for f in (lake.filters.value or [])[:FILTERS]]


PAGES = 10
"""Pages of a Lake Formation listing read at most (bounded: an answer past them is `unknown`, not assumed)."""


def _pages(call: Any, field: str, **request: Any) -> list[dict[str, Any]]:
    found, token = [], None
    for _ in range(PAGES):
        page = call(**request, **({"NextToken": token} if token else {}))
        found += page.get(field, [])
        token = page.get("NextToken")
        if not token:
            return found
    raise ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, f"more than {PAGES} pages of {field}: not all read")


def _others(grants: Sequence[Mapping[str, Any]], identities: Sequence[str]) -> list[str]:
    """Grantees of a read on the table that may include the caller without naming it: a group, an account, an
    organization (the caller's membership of them cannot be read from its subject)."""
    found = []
    for grant in grants:
        who = (grant.get("Principal") or {}).get("DataLakePrincipalIdentifier") or ""
        if reads(grant) and who not in identities and who != IAM_ALLOWED_PRINCIPALS and (
                ":role/" not in who and ":user/" not in who):
            found.append(who)
    return found


def _settings_evidence(location: str | None, hybrid: bool, settings: Outcome[Any, Any]) -> dict[str, Any]:
    defaults = ((settings.value or {}).get("DataLakeSettings") or {}).get("CreateTableDefaultPermissions")
    return {"registered_location": location, "hybrid_access": hybrid,
            "iam_allowed_principals_default": None if settings.error else any(
                (d.get("Principal") or {}).get("DataLakePrincipalIdentifier") == IAM_ALLOWED_PRINCIPALS
                for d in defaults or [])}


def _list_command(database: str, table: str) -> str:
    resource = json.dumps({"Table": {"DatabaseName": database, "Name": table}}, separators=(",", ":"))
    return f"A data lake administrator runs aws lakeformation list-permissions --resource '{resource}'"


def permissions_link(subject: Subject, database: str, table: str, columns: Sequence[str], location: str | None,
                     hybrid: bool, known: bool, lake: LakeAnswers) -> tuple[Link, Readable | None, bool]:
    """The caller's Lake Formation permissions on the table, what they let it read (None: unknown) and whether Lake
    Formation decides for this caller (else IAM: not registered, IAM_ALLOWED_PRINCIPALS, or hybrid access mode
    without the caller opted in). `known`: whether registrations could be read."""
    resource = f"arn:aws:glue:*:{subject.account or '*'}:table/{database}/{table}"
    grants = lake.grants
    evidence = _settings_evidence(location, hybrid, lake.settings)
    everyone = Readable(list(columns))
    if location is None and known:
        return link(SELECT, resource, "allowed", evidence | {
            "answered": "the data's location is not registered with Lake Formation: IAM decides"}), everyone, False
    if hybrid:
        if lake.opt_ins.error is not None:
            return link(SELECT, resource, "unknown", evidence | {"error": lake.opt_ins.error.brief()},
                        governed_by="lake_formation", settle="The location is in hybrid access mode: whether the "
                        "caller is opted in decides who reads it. A data lake administrator runs aws lakeformation "
                        "list-lf-opt-ins"), None, True
        evidence["opted_in"] = opted_in(lake.opt_ins.value or [], subject.identities, database, table)
        if not evidence["opted_in"]:
            return link(SELECT, resource, "allowed", evidence | {
                "answered": "hybrid access mode, and the caller is not opted in: IAM decides"}), everyone, False
    if grants.error is not None:
        return link(SELECT, resource, "unknown", evidence | {"error": grants.error.brief()},
                    governed_by="lake_formation", settle=unsettled(grants) if grants.error.retryable else
                    _list_command(database, table)), None, True
    listed = grants.value or []
    if not evidence.get("opted_in") and _reads(_grants_to(listed, [IAM_ALLOWED_PRINCIPALS])):
        return link(SELECT, resource, "allowed", evidence | {
            "answered": "IAM_ALLOWED_PRINCIPALS holds SELECT on the table: IAM decides"}), everyone, False
    more = [g for o in (lake.tag_grants, *lake.filter_grants) if o.ok for g in o.value or []]
    own = _grants_to([*listed, *more], subject.identities)
    found = readable(own, database, table, columns, lake.filters.value or [] if lake.filters.ok else [],
                     lake.tags.value if lake.tags.ok else None)
    evidence["grants"] = found.via
    if found.row_filters:
        evidence["row_filter"] = " OR ".join(f"({f})" for f in found.row_filters)
    if found.columns:
        return link(SELECT, resource, "allowed", evidence, governed_by="lake_formation"), found, True
    unseen = _unseen(lake, own, listed, subject, database, table, known)
    if unseen:
        errors = [o.error.brief() for o in (lake.tag_grants, lake.filters, *lake.filter_grants) if o.error]
        return link(SELECT, resource, "unknown", evidence | {"unseen": unseen, "errors": errors},
                    governed_by="lake_formation",
                    settle="The caller holds no grant it can see, but " + "; ".join(unseen) + ". "
                    + _list_command(database, table)), None, True
    return link(SELECT, resource, "denied", evidence, governed_by="lake_formation",
                fix=[grant_fix(subject.principal, database, table, subject.account)]), Readable([]), True


def _unseen(lake: LakeAnswers, own: Sequence[Mapping[str, Any]], listed: Sequence[Mapping[str, Any]], subject: Subject,
            database: str, table: str, known: bool) -> list[str]:
    """What the caller cannot see that could grant it the table: each a reason its answer is `unknown`."""
    unseen = []
    if not known:
        unseen.append("whether Lake Formation governs the location is unknown (lakeformation:ListResources)")
    if lake.tag_grants.error is not None:
        unseen.append("grants on LF-tag expressions could not be listed")
    if not lake.filters.ok or any(not o.ok for o in lake.filter_grants) or len(lake.filters.value or []) > FILTERS:
        unseen.append("grants on the table's data cells filters could not all be listed")
    if tag_grants_unresolved(own, lake.tags.ok):
        unseen.append("the table's LF-tags could not be read (lakeformation:GetResourceLFTags)")
    if filter_grants_unresolved(own, database, table, lake.filters.ok):
        unseen.append("its data cells filters could not be read (lakeformation:ListDataCellsFilter)")
    groups = _others(listed, subject.identities)
    if groups:
        unseen.append(f"reads are granted to {', '.join(sorted(set(groups)))}, whose members it may be among")
    return unseen
