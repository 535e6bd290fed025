"""What moto 5.2.5's Glue lacks of a current lake, filled in for the tests that read one (the production code stays
written for real AWS):

- GetTable and GetTables honour `AttributesToGet`: with `LATEST_ICEBERG_METADATA` an Iceberg table carries
  `IcebergTableMetadata`, built as Glue builds it from the table's current metadata file (in moto's S3), in Glue's
  names and without snapshots; without `DEFAULT` the Hive definition is left out.
- GetCatalogs exists: it answers the catalogs a test declares (`CATALOGS`), children of `ParentCatalogId`, or all
  of them with `Recursive`.
- GetDatabases, GetTables and GetTable honour `CatalogId` (moto keeps one catalog per account): a declared catalog's id
  answers its declared databases and tables (`CATALOG_DATABASES`, `CATALOG_TABLES`), any other is the account's.

`extensions()` are applied per test module with a monkeypatch, as `moto_extensions.LISTING_PAGES` are, over the
session's own (GetDatabases and GetTables in pages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from moto.core.responses import ActionResult
from moto.glue.exceptions import EntityNotFoundException
from moto.glue.responses import GlueResponse
from moto.s3.models import s3_backends

CATALOGS: list[dict[str, Any]] = []
"""The catalogs GetCatalogs answers, as Glue returns them (`ResourceArn` names each one's path)."""
CATALOG_DATABASES: dict[str, list[dict[str, Any]]] = {}
"""Catalog id -> its databases, as GetDatabases returns them."""
CATALOG_TABLES: dict[tuple[str, str], list[dict[str, Any]]] = {}
"""(catalog id, database) -> its tables, as GetTables returns them."""
_ORIGINAL_GET_TABLE = GlueResponse.get_table


def _glue_field(field: Mapping[str, Any]) -> dict[str, Any]:
    return {"Id": field["id"], "Name": field["name"], "Type": field["type"], "Required": field.get("required", False),
            **({"Doc": field["doc"]} if field.get("doc") else {})}


def glue_iceberg_metadata(document: Mapping[str, Any]) -> dict[str, Any]:
    """A metadata document in Glue's `IcebergTableMetadata` names: schemas, specs and sort orders, no snapshots."""
    return {
        "FormatVersion": str(document["format-version"]), "TableUuid": document.get("table-uuid"),
        "Location": document.get("location"), "Properties": document.get("properties", {}),
        "Schemas": [{"SchemaId": s.get("schema-id"), "IdentifierFieldIds": s.get("identifier-field-ids", []),
                     "Type": "struct", "Fields": [_glue_field(f) for f in s.get("fields", [])]}
                    for s in document.get("schemas", [])],
        "CurrentSchemaId": document.get("current-schema-id"), "LastColumnId": document.get("last-column-id"),
        "PartitionSpecs": [{"SpecId": p["spec-id"], "Fields": [
            {"SourceId": f["source-id"], "Transform": f["transform"], "Name": f["name"], "FieldId": f["field-id"]}
            for f in p.get("fields", [])]} for p in document.get("partition-specs", [])],
        "DefaultSpecId": document.get("default-spec-id"), "LastPartitionId": document.get("last-partition-id"),
        "SortOrders": [{"OrderId": o["order-id"], "Fields": [
            {"SourceId": f["source-id"], "Transform": f["transform"], "Direction": f["direction"],
             "NullOrder": f["null-order"]} for f in o.get("fields", [])]} for o in document.get("sort-orders", [])],
        "DefaultSortOrderId": document.get("default-sort-order-id"),
    }


def _metadata_file(account: str, location: str) -> dict[str, Any]:
    bucket, _, key = location.removeprefix("s3://").partition("/")
    return json.loads(s3_backends[account]["aws"].get_object(bucket, key).value)


def _declared_table(self: GlueResponse, catalog_id: str) -> dict[str, Any]:
    name = self.parameters.get("Name")
    found = [t for t in CATALOG_TABLES.get((catalog_id, str(self.parameters.get("DatabaseName"))), [])
             if t["Name"] == name]
    if not found:
        raise EntityNotFoundException(f"Table {name} not found in {catalog_id}")
    return dict(found[0])


def _get_table(self: GlueResponse) -> ActionResult:
    """GetTable (a declared catalog's table where `CatalogId` names one), with Glue's latest Iceberg metadata where
    `AttributesToGet` asks for it."""
    catalog_id = self.parameters.get("CatalogId")
    if catalog_id and catalog_id != self.current_account:
        table = _declared_table(self, catalog_id)
    else:
        table = _ORIGINAL_GET_TABLE(self).result["Table"]  # type: ignore[index]
    return ActionResult({"Table": _as_asked(self, table)})


def _as_asked(self: GlueResponse, table: dict[str, Any]) -> dict[str, Any]:
    """`table` with the attributes `AttributesToGet` asks for (GetTable's and GetTables' alike)."""
    attributes = self.parameters.get("AttributesToGet") or ["DEFAULT"]
    parameters = table.get("Parameters") or {}
    if "LATEST_ICEBERG_METADATA" in attributes and str(parameters.get("table_type", "")).upper() == "ICEBERG" \
            and parameters.get("metadata_location"):
        table = table | {"IcebergTableMetadata": glue_iceberg_metadata(
            _metadata_file(self.current_account, parameters["metadata_location"]))}
    if "DEFAULT" not in attributes:
        table = {k: v for k, v in table.items() if k in ("Name", "DatabaseName", "CatalogId", "IcebergTableMetadata")}
    return table


def _tables_as_asked(listed: Any) -> Any:
    """GetTables (`listed`) with each table's attributes as `AttributesToGet` asks."""
    def respond(self: GlueResponse) -> Any:
        found = listed(self)
        if isinstance(found, ActionResult) and self.parameters.get("AttributesToGet"):
            return ActionResult(found.result | {  # type: ignore[operator]
                "TableList": [_as_asked(self, t) for t in found.result["TableList"]]})  # type: ignore[index]
        return found

    return respond


def _get_catalogs(self: GlueResponse) -> ActionResult:
    """GetCatalogs over `CATALOGS`: the account's top-level catalogs, a parent's children, or every one."""
    parent = self.parameters.get("ParentCatalogId")
    recursive = bool(self.parameters.get("Recursive"))

    def path(catalog: Mapping[str, Any]) -> str:
        return str(catalog["ResourceArn"]).split(":catalog/", 1)[1]

    if parent:
        parent_path = parent.split(":", 1)[-1]
        found = [c for c in CATALOGS if path(c).startswith(f"{parent_path}/")
                 and (recursive or path(c).count("/") == parent_path.count("/") + 1)]
    else:
        found = [c for c in CATALOGS if recursive or "/" not in path(c)]
    return ActionResult({"CatalogList": found})


def _in_declared_catalog(listed: Any, answer: Any) -> Any:
    """`listed` (the session's GetDatabases or GetTables), or a declared catalog's answer where `CatalogId` names
    one; `answer(self, catalog_id)` gives it, or None for an unknown database."""
    def respond(self: GlueResponse) -> Any:
        catalog_id = self.parameters.get("CatalogId")
        if not catalog_id or catalog_id == self.current_account:
            return listed(self)
        found = answer(self, catalog_id)
        if found is None:
            raise EntityNotFoundException(f"Catalog or database not found in {catalog_id}")
        return found

    return respond


def _databases(self: GlueResponse, catalog_id: str) -> ActionResult | None:
    found = CATALOG_DATABASES.get(catalog_id)
    return None if found is None else ActionResult({"DatabaseList": found})


def _tables(self: GlueResponse, catalog_id: str) -> ActionResult | None:
    found = CATALOG_TABLES.get((catalog_id, str(self.parameters.get("DatabaseName"))))
    return None if found is None else ActionResult({"TableList": found})


def extensions() -> tuple[tuple[type, str, Any], ...]:
    """The replacements, over the session's GetDatabases and GetTables as they are now."""
    return (
        (GlueResponse, "get_table", _get_table),
        (GlueResponse, "get_catalogs", _get_catalogs),
        (GlueResponse, "get_databases", _in_declared_catalog(GlueResponse.get_databases, _databases)),
        (GlueResponse, "get_tables", _tables_as_asked(_in_declared_catalog(GlueResponse.get_tables, _tables))),
    )
