"""A Glue resource link on the table resource: the shared table it names, from its owner's catalog.

A link holds no columns or location: Athena reads its `TargetTable`, so a reader needs the target's.
GetTable with the owner's `CatalogId` is the caller's own call.
A refusal stays beside the link's own fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError

if TYPE_CHECKING:
    from aws_data_mcp.registry import ResourceRequest

Column = Mapping[str, Any]
"""A column as the table resource shows it (catalog.Column, whose import would close a cycle)."""


class LinkTarget(TypedDict):
    account: str
    database: str
    table: str
    region: NotRequired[str]
    """Where the target lives, when the link names a region (else the link's own)."""


class ResourceLink(TypedDict):
    """The table a resource link stands for: a query of the link reads it."""

    target: LinkTarget
    columns: NotRequired[list[Column]]
    partition_keys: NotRequired[list[Column]]
    location: NotRequired[str | None]
    format: NotRequired[str | None]
    error: NotRequired[ItemError]
    """The caller may not read the target's definition (glue:GetTable there), or it is gone."""
    uri: NotRequired[str]
    """The target's own table resource, where this deployment reads its account (`?account=`)."""
    explain: str
    """The link's explainer: DESCRIBE on the link, SELECT on the target, as Lake Formation checks."""
    note: str


def link_target(found: Mapping[str, Any]) -> LinkTarget | None:
    """The target a Glue table names (`TargetTable`), or None for a table that is not a link."""
    target = found.get("TargetTable")
    if not target:
        return None
    named = LinkTarget(account=str(target.get("CatalogId") or found.get("CatalogId") or ""),
                       database=str(target.get("DatabaseName") or ""),
                       table=str(target.get("Name") or ""))
    if target.get("Region"):
        named["region"] = str(target["Region"])
    return named


def target_calls(request: ResourceRequest, target: LinkTarget | None) -> list[Call[Any]]:
    """GetTable of the target in its owner's catalog (and region), as the caller; none for a table."""
    if target is None:
        return []
    glue = request.client("glue", target.get("region"))
    return [Call("glue:GetTable", partial(glue.get_table, CatalogId=target["account"],
                                          DatabaseName=target["database"], Name=target["table"]))]


def _target_uri(request: ResourceRequest, target: LinkTarget) -> str | None:
    """The target's table resource: at home without `?account=`, in a listed account by its name."""
    uri = f"athena://databases/{target['database']}/tables/{target['table']}"
    if target["account"] == request.caller.account:
        return uri
    named = [name for name, number in request.settings.accounts if number == target["account"]]
    return f"{uri}?account={named[0]}" if named else None


def resource_link(request: ResourceRequest, database: str, name: str, target: LinkTarget,
                  outcome: Outcome[Call[Any], Any],
                  columns_of: Callable[[Sequence[Mapping[str, Any]]], list[Column]]) -> ResourceLink:
    """The link's part of its table resource; `columns_of` shapes columns as that resource does."""
    from aws_data_mcp.explainer.uris import table_uri
    from aws_data_mcp.lakehouse.formats import table_format

    where = f"{target['account']}'s {target['database']}.{target['table']}"
    answer = ResourceLink(target=target, explain=table_uri(database, name),
                          note=f"A resource link: a query of {database}.{name} reads {where}, if Lake "
                               "Formation lets the caller DESCRIBE the link and SELECT the target.")
    if uri := _target_uri(request, target):
        answer["uri"] = uri
    if outcome.error is not None:
        return answer | ResourceLink(error=outcome.error.brief())  # type: ignore[return-value]
    found = (outcome.value or {}).get("Table") or {}
    descriptor = found.get("StorageDescriptor") or {}
    return answer | ResourceLink(  # type: ignore[return-value]
        columns=columns_of(descriptor.get("Columns") or []),
        partition_keys=columns_of(found.get("PartitionKeys") or []),
        location=descriptor.get("Location"), format=table_format(found))
