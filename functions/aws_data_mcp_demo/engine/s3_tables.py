"""Tables of an S3 table bucket's catalog (`"s3tablescatalog/<bucket>".<namespace>.<table>`) for the demo's Athena.

Athena reads them through Glue's child catalog of the bucket. The definition comes from moto's
s3tables store, as the emulator's Glue answers it (`emulator.s3_tables`). The engine's Iceberg path
then reads it (`iceberg`). First the caller's rights are checked as Athena checks them
(`Access.s3_table`). S3 Tables authorises the data (`s3tables:GetTableData`), not S3's GetObject.
"""

from __future__ import annotations

from typing import Any, Protocol

from moto.s3tables.models import s3tables_backends

from aws_data_mcp_demo.emulator.s3_tables import bucket_of, glue_table
from aws_data_mcp_demo.engine.failures import QueryFailure


class S3TablesAccess(Protocol):
    def s3_table(self, catalog: str, database: str, table: str, bucket_arn: str, table_arn: str) -> None:
        """Glue's reads in the bucket's catalog and S3 Tables' of the table, as the caller."""


def is_s3_tables_catalog(catalog: str) -> bool:
    return bucket_of(catalog) is not None


def is_s3_table(definition: dict[str, Any]) -> bool:
    """A definition this module made: its catalog is a table bucket's."""
    return bucket_of(definition.get("CatalogId")) is not None


def s3_table_definition(catalog: str, schema: str, name: str, account_id: str, region: str, where: str,
                        access: S3TablesAccess | None) -> dict[str, Any]:
    """The Glue definition of `catalog`.`schema`.`name` (checked as the caller first), or Athena's error."""
    bucket_name = str(bucket_of(catalog))
    backend = s3tables_backends[account_id][region]
    bucket = next((b for b in backend.table_buckets.values() if b.name == bucket_name), None)
    if bucket is None:
        raise QueryFailure(f"CATALOG_NOT_FOUND: {where}Catalog '{catalog}' does not exist", error_type=1000)
    if access is not None:
        access.s3_table(catalog, schema, name, bucket.arn, f"{bucket.arn}/table/{name}")
    found = bucket.namespaces.get(schema)
    if found is None:
        raise QueryFailure(f"SCHEMA_NOT_FOUND: {where}Schema '{schema}' does not exist", error_type=1000)
    if name not in found.tables:
        raise QueryFailure(f"TABLE_NOT_FOUND: {where}Table '{catalog}.{schema}.{name}' does not exist",
                           error_type=1000)
    return glue_table(found.tables[name], f"{account_id}:{catalog}")
