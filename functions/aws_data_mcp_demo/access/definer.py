"""A Glue Data Catalog view's checks in the demo's Athena: the caller's SELECT, the definer's reads.

The caller needs Lake Formation SELECT on the view itself, IAM_ALLOWED_PRINCIPALS not counting.
Its base tables are then read with the definer's grants, never the caller's: `DefinerAccess`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from moto.lakeformation.models import lakeformation_backends

from aws_data_mcp_demo.access.lake_formation import readable
from aws_data_mcp_demo.engine.failures import QueryFailure
from aws_data_mcp_demo.engine.files import Source

LAKE_FORMATION_ERROR = 234
"""AthenaError.ErrorType of a Lake Formation error (no grant on the table or view)."""


def _columns(definition: Mapping[str, Any]) -> list[str]:
    descriptor = definition.get("StorageDescriptor") or {}
    return [
        c["Name"]
        for c in [*(descriptor.get("Columns") or []), *(definition.get("PartitionKeys") or [])]
    ]


def lake_select(
    account_id: str,
    region: str,
    names: frozenset[str],
    database: str,
    table: str,
    definition: Mapping[str, Any],
) -> frozenset[str]:
    """The columns `names` hold Lake Formation SELECT on, by their own grants (else refused)."""
    backend = lakeformation_backends[account_id][region]
    granted = readable(backend, account_id, names, database, table, _columns(definition), True)
    if not granted.columns:
        raise QueryFailure(
            f"Insufficient Lake Formation permission(s) on {table} (Service: AWSGlue; Status "
            "Code: 400; Error Code: AccessDeniedException)",
            error_type=LAKE_FORMATION_ERROR,
        )
    return granted.columns


@dataclass(frozen=True)
class DefinerAccess:
    """A Data Catalog view's base tables, read as its definer (``query.Access``): Lake Formation's
    grants to the definer decide; Glue and S3 are Lake Formation's and the definer's, not yours."""

    definer: str
    account_id: str
    region: str

    def catalog(self, database: str, table: str, partitioned: bool) -> None:
        """Glue validated the definer's reads of the view's tables when the view was defined."""

    def columns(
        self, database: str, table: str, definition: dict[str, Any]
    ) -> frozenset[str] | None:
        return lake_select(
            self.account_id, self.region, frozenset({self.definer}), database, table, definition
        )

    def read(self, source: Source) -> None:
        """Lake Formation vends the data: no S3 check as the caller."""

    def row_filter(self, database: str, table: str) -> str | None:
        return None

    def s3_table(
        self, catalog: str, database: str, table: str, bucket_arn: str, table_arn: str
    ) -> None:
        """A Data Catalog view over an S3 table is read by Lake Formation too."""
