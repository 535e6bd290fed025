"""Lake Formation's links: whether a location is registered (then Lake Formation, not IAM, decides who reads its
data), and what Lake Formation grants the caller on a table and its columns.

A table whose grants include IAM_ALLOWED_PRINCIPALS (the account's IAM-only default) is still IAM's to decide,
registered or not.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from aws_data_mcp.fanout import Outcome
from aws_data_mcp.resources.permissions.links import Fix, Link, link, unsettled
from aws_data_mcp.resources.permissions.storage import Seat

IAM_ALLOWED_PRINCIPALS = "IAM_ALLOWED_PRINCIPALS"
READS = frozenset({"SELECT", "ALL"})
REGISTRATION = "lakeformation:DescribeResource"


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


def registration_link(registered: Outcome[Any, Any], bucket: str, prefix: str) -> tuple[Link, str | None]:
    """The registration link and the registered location (None where there is none, or it could not be read)."""
    path = f"arn:aws:s3:::{bucket}/{prefix}"
    if registered.error is not None:
        return link(REGISTRATION, path, "unknown", {"error": registered.error.brief()},
                    settle="A data lake administrator runs aws lakeformation list-resources: a registered location "
                           "containing this path means Lake Formation decides who reads it"), None
    location = covering(registered.value or [], bucket, prefix)
    evidence = {"registered_location": location, "answered": "lakeformation:ListResources"}
    return link(REGISTRATION, path, "allowed", evidence,
                governed_by="lake_formation" if location else "iam"), location


def _grants_to(grants: Sequence[Mapping[str, Any]], identities: Sequence[str]) -> list[Mapping[str, Any]]:
    return [g for g in grants if (g.get("Principal") or {}).get("DataLakePrincipalIdentifier") in identities]


def _reads(grants: Sequence[Mapping[str, Any]]) -> bool:
    return any(READS & set(g.get("Permissions") or []) for g in grants)


def _columns_granted(grants: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[str]:
    """The columns SELECT reaches through these grants: a whole-table grant reaches all."""
    seen: set[str] = set()
    for grant in grants:
        if not READS & set(grant.get("Permissions") or []):
            continue
        resource = grant.get("Resource") or {}
        if "Table" in resource:
            return list(columns)
        shape = resource.get("TableWithColumns") or {}
        if "ColumnWildcard" in shape:
            excluded = set((shape["ColumnWildcard"] or {}).get("ExcludedColumnNames") or [])
            seen |= {c for c in columns if c not in excluded}
        seen |= set(shape.get("ColumnNames") or [])
    return [c for c in columns if c in seen]


def grant_fix(principal: str | None, database: str, table: str, account: str | None) -> Fix:
    request = {"Principal": {"DataLakePrincipalIdentifier": principal or "<the caller's role ARN>"},
               "Resource": {"Table": {"DatabaseName": database, "Name": table}},
               "Permissions": ["SELECT", "DESCRIBE"]}
    if account:
        request["CatalogId"] = account
    resource = json.dumps(request["Resource"], separators=(",", ":"))
    command = (f"aws lakeformation grant-permissions --principal "
               f"DataLakePrincipalIdentifier={shlex.quote(str(request['Principal']['DataLakePrincipalIdentifier']))} "
               f"--permissions SELECT DESCRIBE --resource {shlex.quote(resource)}")
    return Fix(kind="lake_formation_grant", apply_by="administrator", target=f"{database}.{table}", command=command,
               request=request)


def permissions_link(seat: Seat, database: str, table: str, columns: Sequence[str], location: str | None,
                     known: bool, grants: Outcome[Any, Any],
                     settings: Outcome[Any, Any]) -> tuple[Link, list[str] | None]:
    """The caller's Lake Formation permissions on the table, and the columns they let it read (None: unknown).
    `known`: whether registrations could be read (where not, only a grant that lets the caller read settles it)."""
    resource = f"arn:aws:glue:*:{seat.account or '*'}:table/{database}/{table}"
    defaults = ((settings.value or {}).get("DataLakeSettings") or {}).get("CreateTableDefaultPermissions")
    evidence: dict[str, Any] = {
        "registered_location": location,
        "iam_allowed_principals_default": None if settings.error else any(
            (d.get("Principal") or {}).get("DataLakePrincipalIdentifier") == IAM_ALLOWED_PRINCIPALS
            for d in defaults or [])}
    if location is None and known:
        return link("lakeformation:SELECT", resource, "allowed", evidence | {
            "answered": "the data's location is not registered with Lake Formation: IAM decides"}), list(columns)
    if grants.error is not None:
        return link("lakeformation:SELECT", resource, "unknown", evidence | {"error": grants.error.brief()},
                    governed_by="lake_formation", settle=unsettled(grants) if grants.error.retryable else (
                        f"A data lake administrator runs aws lakeformation list-permissions --resource "
                        f"'{{\"Table\":{{\"DatabaseName\":\"{database}\",\"Name\":\"{table}\"}}}}'")), None
    listed = grants.value or []
    iam_only = _grants_to(listed, [IAM_ALLOWED_PRINCIPALS])
    if _reads(iam_only):
        return link("lakeformation:SELECT", resource, "allowed", evidence | {
            "answered": "IAM_ALLOWED_PRINCIPALS holds SELECT on the table: IAM decides"}), list(columns)
    mine = _grants_to(listed, seat.identities)
    evidence["grants"] = [{"permissions": g.get("Permissions"), "resource": g.get("Resource")} for g in mine]
    if _reads(mine):
        return link("lakeformation:SELECT", resource, "allowed", evidence,
                    governed_by="lake_formation"), _columns_granted(mine, columns)
    if not known:
        return link("lakeformation:SELECT", resource, "unknown", evidence, settle="Whether Lake Formation governs "
                    "the table's location is unknown (see lakeformation:DescribeResource), and it grants the caller "
                    "no SELECT: if it governs, the query is refused"), None
    return link("lakeformation:SELECT", resource, "denied", evidence, governed_by="lake_formation",
                fix=[grant_fix(seat.principal, database, table, seat.account)]), []
