"""Glue's S3 Tables catalogs over moto's `s3tables` backend (moto's Glue keeps one catalog per account, and has no
GetCatalogs).

On AWS, integrating table buckets with Glue makes `s3tablescatalog` and a child catalog per bucket
(`<account>:s3tablescatalog/<bucket>`): the bucket's namespaces are its databases, its tables Iceberg tables whose
`metadata_location` is the one S3 Tables keeps. Here the same Glue calls with that `CatalogId` answer from moto's
s3tables store: GetCatalogs, GetDatabase(s), GetTable(s), and CreateTable / UpdateTable, which pyiceberg's
GlueCatalog sends to create an S3 table (S3 Tables allocates its storage) and to commit each snapshot
(UpdateTableMetadataLocation with the table's version token as Glue's VersionId). Any other CatalogId is the
account's own catalog, answered as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from moto.core.responses import ActionResult
from moto.glue.exceptions import EntityNotFoundException
from moto.glue.responses import GlueResponse
from moto.s3.models import s3_backends
from moto.s3tables.models import FakeTableBucket, S3TablesBackend, s3tables_backends
from moto.s3tables.models import Table as S3Table

from aws_data_mcp_demo.emulator.paging import GLUE as PAGED_GLUE
from aws_data_mcp_demo.emulator.patch import Extension

S3_TABLES_CATALOG = "s3tablescatalog"
CONNECTION = "aws:s3tables"
_ICEBERG_TYPES = {"long": "bigint", "int": "int", "string": "string", "double": "double", "float": "float",
                  "boolean": "boolean", "date": "date", "timestamp": "timestamp", "timestamptz": "timestamp"}
Respond = Callable[[GlueResponse], Any]


def _backend(self: GlueResponse) -> S3TablesBackend:
    return s3tables_backends[self.current_account][self.region]


def bucket_of(catalog_id: str | None) -> str | None:
    """The table bucket a Glue CatalogId names (`<account>:s3tablescatalog/<bucket>`), or None."""
    path = str(catalog_id or "").split(":", 1)[-1]
    root, _, bucket = path.partition("/")
    return bucket if root == S3_TABLES_CATALOG and bucket and "/" not in bucket else None


def _table_bucket(self: GlueResponse, name: str) -> FakeTableBucket:
    found = next((b for b in _backend(self).table_buckets.values() if b.name == name), None)
    if found is None:
        raise EntityNotFoundException(f"Catalog not found: {self.current_account}:{S3_TABLES_CATALOG}/{name}")
    return found


def _namespace(self: GlueResponse, bucket: FakeTableBucket, name: str) -> Any:
    if name not in bucket.namespaces:
        raise EntityNotFoundException(f"Database {name} not found.")
    return bucket.namespaces[name]


def _table(self: GlueResponse, bucket: FakeTableBucket, database: str, name: str) -> S3Table:
    tables = _namespace(self, bucket, database).tables
    if name not in tables:
        raise EntityNotFoundException(f"Table {name} not found.")
    return tables[name]


def _columns(table: S3Table) -> list[dict[str, Any]]:
    """The current schema's columns, from the table's metadata file, in Glue's type names."""
    if not table.metadata_location:
        return []
    bucket, _, key = table.metadata_location.removeprefix("s3://").partition("/")
    document = json.loads(s3_backends[table.account_id][table.partition].get_object(bucket, key).value)
    schema = next(s for s in document["schemas"] if s["schema-id"] == document["current-schema-id"])
    return [{"Name": f["name"], "Type": _ICEBERG_TYPES.get(str(f["type"]), str(f["type"]).replace(", ", ",")),
             **({"Comment": f["doc"]} if f.get("doc") else {})} for f in schema["fields"]]


def glue_table(table: S3Table, catalog_id: str) -> dict[str, Any]:
    """An S3 table as Glue answers GetTable in its bucket's catalog."""
    parameters = {"table_type": "ICEBERG", "format": "ICEBERG",
                  **({"metadata_location": table.metadata_location} if table.metadata_location else {})}
    return {"Name": table.name, "DatabaseName": table.namespace, "CatalogId": catalog_id,
            "TableType": "EXTERNAL_TABLE", "Parameters": parameters, "VersionId": table.version_token,
            "CreateTime": table.creation_date.isoformat(), "UpdateTime": table.last_modified.isoformat(),
            "StorageDescriptor": {"Location": table.warehouse_location, "Columns": _columns(table)},
            "PartitionKeys": [], "IsRegisteredWithLakeFormation": False}


def _database(bucket: FakeTableBucket, name: str, catalog_id: str) -> dict[str, Any]:
    return {"Name": name, "CatalogId": catalog_id, "CreateTime": bucket.namespaces[name].creation_date.isoformat(),
            "FederatedDatabase": {"Identifier": bucket.arn, "ConnectionName": CONNECTION,
                                  "ConnectionType": CONNECTION}}


def _in_bucket_catalog(listed: Respond, answer: Callable[[GlueResponse, FakeTableBucket, str], Any]) -> Respond:
    """`listed` for the account's own catalog; `answer(self, bucket, catalog_id)` where CatalogId names a bucket's."""
    def respond(self: GlueResponse) -> Any:
        catalog_id = self.parameters.get("CatalogId")
        name = bucket_of(catalog_id)
        if name is None:
            return listed(self)
        return answer(self, _table_bucket(self, name), str(catalog_id))

    return respond


def _get_database(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    name = str(self.parameters.get("Name"))
    _namespace(self, bucket, name)
    return ActionResult({"Database": _database(bucket, name, catalog_id)})


def _get_databases(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    return ActionResult({"DatabaseList": [_database(bucket, name, catalog_id) for name in sorted(bucket.namespaces)]})


def _get_table(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    table = _table(self, bucket, str(self.parameters.get("DatabaseName")), str(self.parameters.get("Name")))
    return ActionResult({"Table": glue_table(table, catalog_id)})


def _get_tables(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    tables = _namespace(self, bucket, str(self.parameters.get("DatabaseName"))).tables
    return ActionResult({"TableList": [glue_table(tables[name], catalog_id) for name in sorted(tables)]})


def _create_table(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    """CreateTable in a bucket's catalog: S3 Tables creates the Iceberg table and allocates its storage."""
    name = str((self.parameters.get("TableInput") or {}).get("Name"))
    _backend(self).create_table(bucket.arn, str(self.parameters.get("DatabaseName")), name, "ICEBERG")
    return ActionResult({})


def _update_table(self: GlueResponse, bucket: FakeTableBucket, catalog_id: str) -> ActionResult:
    """UpdateTable in a bucket's catalog: a commit, S3 Tables' UpdateTableMetadataLocation (VersionId: the table's
    version token, so a concurrent commit fails as it does there)."""
    table_input = self.parameters.get("TableInput") or {}
    table = _table(self, bucket, str(self.parameters.get("DatabaseName")), str(table_input.get("Name")))
    table.update_metadata_location(str((table_input.get("Parameters") or {})["metadata_location"]),
                                   str(self.parameters.get("VersionId")))
    table.was_modified(self.current_account)
    return ActionResult({})


def _catalog_entry(self: GlueResponse, path: str, name: str, identifier: str) -> dict[str, Any]:
    return {"CatalogId": f"{self.current_account}:{path}", "Name": name,
            "ResourceArn": f"arn:{self.partition}:glue:{self.region}:{self.current_account}:catalog/{path}",
            "FederatedCatalog": {"Identifier": identifier, "ConnectionName": CONNECTION}}


def _get_catalogs(self: GlueResponse) -> ActionResult:
    """GetCatalogs: `s3tablescatalog` where the account has a table bucket, and its children (one a bucket) where
    `Recursive` or `ParentCatalogId` asks for them."""
    buckets = sorted(_backend(self).table_buckets.values(), key=lambda b: b.name)
    if not buckets:
        return ActionResult({"CatalogList": []})
    parent = str(self.parameters.get("ParentCatalogId") or "").split(":", 1)[-1]
    root = _catalog_entry(self, S3_TABLES_CATALOG, S3_TABLES_CATALOG,
                          f"arn:{self.partition}:s3tables:{self.region}:{self.current_account}:bucket/*")
    children = [_catalog_entry(self, f"{S3_TABLES_CATALOG}/{b.name}", b.name, b.arn) for b in buckets]
    if parent:
        return ActionResult({"CatalogList": children if parent == S3_TABLES_CATALOG else []})
    return ActionResult({"CatalogList": [root, *(children if self.parameters.get("Recursive") else [])]})


_PAGED = {extension.name: extension.replacement for extension in PAGED_GLUE}
S3_TABLES: tuple[Extension, ...] = (
    Extension(GlueResponse, "get_catalogs", _get_catalogs),
    Extension(GlueResponse, "get_database", _in_bucket_catalog(GlueResponse.get_database, _get_database)),
    Extension(GlueResponse, "get_databases", _in_bucket_catalog(_PAGED["get_databases"], _get_databases)),
    Extension(GlueResponse, "get_table", _in_bucket_catalog(GlueResponse.get_table, _get_table)),
    Extension(GlueResponse, "get_tables", _in_bucket_catalog(_PAGED["get_tables"], _get_tables)),
    Extension(GlueResponse, "create_table", _in_bucket_catalog(GlueResponse.create_table, _create_table)),
    Extension(GlueResponse, "update_table", _in_bucket_catalog(GlueResponse.update_table, _update_table)),
)
"""Installed after ``GLUE`` (paged listings), which the account's own catalog keeps."""
