"""Lake Formation as AWS answers it, where moto 5.2.5 does not.

It adds hybrid access mode with its opt-ins, and data cells filters with their grants.
It answers GetResourceLFTags and ListPermissions on LF-tag policies, where moto fails with a 500.
State lives on moto's backend objects, so a reset forgets it. ``access.lake_formation`` reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import moto.lakeformation.urls as lakeformation_urls
from moto.core.exceptions import JsonRESTError
from moto.lakeformation.models import LakeFormationBackend, Resource, lakeformation_backends
from moto.lakeformation.responses import LakeFormationResponse

from aws_data_mcp_demo.access.lake_formation import data_cells_filters, hybrid_locations, opt_ins
from aws_data_mcp_demo.emulator.patch import Extension

_ROUTES = ("CreateLakeFormationOptIn", "DeleteLakeFormationOptIn", "ListLakeFormationOptIns",
           "CreateDataCellsFilter", "GetDataCellsFilter", "DeleteDataCellsFilter")


# --------------------------------------------------------------------------- the API

def _backend(self: LakeFormationResponse) -> LakeFormationBackend:
    return lakeformation_backends[self.current_account][self.region]


def _register_resource(self: LakeFormationResponse) -> str:
    answer = _MOTO_REGISTER(self)
    if self._get_param("HybridAccessEnabled"):
        hybrid_locations(_backend(self)).add(self._get_param("ResourceArn"))
    return answer


def _resource_info(backend: LakeFormationBackend, resource: Resource) -> dict[str, Any]:
    return {**resource.to_dict(), "HybridAccessEnabled": resource.arn in hybrid_locations(backend)}


def _describe_resource(self: LakeFormationResponse) -> str:
    backend = _backend(self)
    return json.dumps({"ResourceInfo": _resource_info(backend, backend.describe_resource(
        self._get_param("ResourceArn")))})


def _list_resources(self: LakeFormationResponse) -> str:
    backend = _backend(self)
    return json.dumps({"ResourceInfoList": [_resource_info(backend, r) for r in backend.list_resources()]})


def _create_opt_in(self: LakeFormationResponse) -> str:
    entry = {"Principal": self._get_param("Principal"), "Resource": self._get_param("Resource")}
    if not entry["Principal"] or not entry["Resource"]:
        raise JsonRESTError("InvalidInputException", "Principal and Resource are required.")
    found = opt_ins(_backend(self))
    if entry not in found:
        found.append(entry)
    return "{}"


def _delete_opt_in(self: LakeFormationResponse) -> str:
    entry = {"Principal": self._get_param("Principal"), "Resource": self._get_param("Resource")}
    found = opt_ins(_backend(self))
    if entry not in found:
        raise JsonRESTError("EntityNotFoundException", "Opt-in not found.")
    found.remove(entry)
    return "{}"


def _list_opt_ins(self: LakeFormationResponse) -> str:
    """The opt-ins, narrowed to a principal and a resource when asked (one page: the demo holds a handful)."""
    principal, resource = self._get_param("Principal"), self._get_param("Resource")
    listed = [{**entry, "Conditions": [], "LastModifiedBy": self.current_account}
              for entry in opt_ins(_backend(self))
              if (principal is None or entry["Principal"] == principal)
              and (resource is None or entry["Resource"] == resource)]
    return json.dumps({"LakeFormationOptInsInfoList": listed})


def _filter_key(table: Mapping[str, Any]) -> tuple[str, str, str]:
    return str(table.get("DatabaseName")), str(table.get("TableName")), str(table.get("Name"))


def _create_data_cells_filter(self: LakeFormationResponse) -> str:
    table = self._get_param("TableData") or {}
    key = _filter_key(table)
    found = data_cells_filters(_backend(self))
    if key in found:
        raise JsonRESTError("AlreadyExistsException", f"Data cells filter {key[2]} already exists.")
    found[key] = {"TableCatalogId": table.get("TableCatalogId") or self.current_account, **table}
    return "{}"


def _get_data_cells_filter(self: LakeFormationResponse) -> str:
    key = (self._get_param("DatabaseName"), self._get_param("TableName"), self._get_param("Name"))
    found = data_cells_filters(_backend(self)).get(key)
    if found is None:
        raise JsonRESTError("EntityNotFoundException", "Data cells filter not found.")
    return json.dumps({"DataCellsFilter": found})


def _delete_data_cells_filter(self: LakeFormationResponse) -> str:
    key = (self._get_param("DatabaseName"), self._get_param("TableName"), self._get_param("Name"))
    if data_cells_filters(_backend(self)).pop(key, None) is None:
        raise JsonRESTError("EntityNotFoundException", "Data cells filter not found.")
    return "{}"


def _list_data_cells_filter(self: LakeFormationResponse) -> str:
    """The filters, of one table when ``Table`` names it (one page: the demo holds a handful)."""
    table = self._get_param("Table") or {}
    listed = [found for (database, name, _), found in sorted(data_cells_filters(_backend(self)).items())
              if not table or (database, name) == (table.get("DatabaseName"), table.get("Name"))]
    return json.dumps({"DataCellsFilters": listed})


def _get_resource_lf_tags(self: LakeFormationBackend, catalog_id: str,
                          resource: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """A resource's LF-tags, none where it has none (moto raises KeyError: a 500), a table's database's with its own
    (what the table inherits)."""
    def of(where: dict[Any, Any], key: tuple[str, ...]) -> list[Any]:
        return list(where.get(key) or [])

    catalog = catalog_id or self.account_id
    on_database: list[Any] = []
    on_table: list[Any] = []
    on_columns: list[Any] = []
    if (database := resource.get("Database")) is not None:
        on_database = of(self.lf_database_tags, (database.get("CatalogId", catalog), database["Name"]))
    if (table := resource.get("Table") or resource.get("TableWithColumns")) is not None:
        key = (table.get("CatalogId", catalog), table["DatabaseName"], table["Name"])
        on_database = of(self.lf_database_tags, key[:2])
        on_table = of(self.lf_table_tags, key)
        on_columns = [{"Name": column, "LFTags": of(self.lf_columns_tags, (*key, column))}
                      for column in table.get("ColumnNames") or [] if self.lf_columns_tags.get((*key, column))]
    return on_database, on_table, on_columns


_TAG_POLICIES = {"LF_TAG_POLICY": ("DATABASE", "TABLE"), "LF_TAG_POLICY_DATABASE": ("DATABASE",),
                 "LF_TAG_POLICY_TABLE": ("TABLE",)}
"""ListPermissions' ResourceType -> the LFTagPolicy ResourceTypes of the grants it lists."""


def list_permissions(self: LakeFormationResponse) -> str:
    """ListPermissions, whoever holds each grant, with the request shapes moto lacks answered as the API reference
    has them: by an LF-tag policy ResourceType (`_TAG_POLICIES`), the grants on LF-tag expressions of those
    resources; on a DataCellsFilter resource, the grants on that filter. Anything else is moto's own answer."""
    kinds = _TAG_POLICIES.get(self._get_param("ResourceType"))
    cells = (self._get_param("Resource") or {}).get("DataCellsFilter")
    if kinds is None and cells is None:
        return _MOTO_LIST_PERMISSIONS(self)
    principal = self._get_param("Principal")
    catalog = _backend(self).grants.get(self._get_param("CatalogId") or self.current_account)

    def listed(resource: Mapping[str, Any]) -> bool:
        if cells is not None:
            return "DataCellsFilter" in resource and _filter_key(resource["DataCellsFilter"]) == _filter_key(cells)
        return (resource.get("LFTagPolicy") or {}).get("ResourceType") in (kinds or ())

    return json.dumps({"PrincipalResourcePermissions": [
        grant.to_external_form() for grant in (catalog.permissions if catalog else [])
        if listed(grant.resource) and (principal is None or grant.principal == principal)]})


_MOTO_LIST_PERMISSIONS: Callable[[LakeFormationResponse], str] = LakeFormationResponse.list_permissions
_MOTO_REGISTER: Callable[[LakeFormationResponse], str] = LakeFormationResponse.register_resource
LF_TAGS: tuple[Extension, ...] = (Extension(LakeFormationBackend, "get_resource_lf_tags", _get_resource_lf_tags),)
"""GetResourceLFTags as AWS answers it (also installed alone by tests that read a moto account's LF-tags)."""
LAKE_FORMATION: tuple[Extension, ...] = (
    Extension(LakeFormationResponse, "register_resource", _register_resource),
    Extension(LakeFormationResponse, "describe_resource", _describe_resource),
    Extension(LakeFormationResponse, "list_resources", _list_resources),
    Extension(LakeFormationResponse, "create_lake_formation_opt_in", _create_opt_in),
    Extension(LakeFormationResponse, "delete_lake_formation_opt_in", _delete_opt_in),
    Extension(LakeFormationResponse, "list_lake_formation_opt_ins", _list_opt_ins),
    Extension(LakeFormationResponse, "create_data_cells_filter", _create_data_cells_filter),
    Extension(LakeFormationResponse, "get_data_cells_filter", _get_data_cells_filter),
    Extension(LakeFormationResponse, "delete_data_cells_filter", _delete_data_cells_filter),
    Extension(LakeFormationResponse, "list_data_cells_filter", _list_data_cells_filter),
    *LF_TAGS,
)
"""Lake Formation's hybrid mode, opt-ins and data cells filters (installed with the other extensions)."""


def add_routes() -> None:
    """moto routes a Lake Formation request by its path: the operations it lacks get theirs (idempotent; moto's
    server and its in-process mock both read the table when they route)."""
    for operation in _ROUTES:
        lakeformation_urls.url_paths.setdefault(f"{{0}}/{operation}$", lakeformation_urls.response.dispatch)
