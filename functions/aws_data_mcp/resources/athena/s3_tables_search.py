"""athena://search's S3 Tables part: Glue's SearchTables does not index the `s3tablescatalog/*` catalogs, so they are
listed as the caller and their tables matched here, by the same words.

S3 Tables names the table buckets (ListTableBuckets); Glue holds each one's catalog, `s3tablescatalog/<bucket>`
(GetDatabases, then GetTables per namespace, with the catalog's id), as Athena reads it. Each bucket and namespace
is one item of the request's fan-out, so the listing stops at the search's deadline: what is not read in time is
said beside the hits, never silently dropped. A table bucket not integrated with Glue has no catalog to search.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from botocore.exceptions import ClientError

from aws_data_mcp.reading.fanout import Outcome
from aws_data_mcp.reading.resolving import ItemError
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources.athena.catalog import glue_databases, glue_tables

S3_TABLES_ROOT = "s3tablescatalog"


class TableBucket(TypedDict):
    name: str
    arn: str
    owner: str | None


class CatalogError(TypedDict):
    catalog: str
    database: str | None
    error: ItemError


class Listed(TypedDict):
    catalogs: list[str]
    """The S3 Tables catalogs whose tables were searched."""
    tables: list[tuple[str, dict[str, Any]]]
    """(catalog, Glue's table) for every table read."""
    errors: list[CatalogError]
    not_integrated: list[str]
    """Table buckets with no Glue catalog (not integrated with AWS analytics services): Athena cannot query them."""


def table_buckets(s3tables: Any) -> list[TableBucket]:
    """The caller's table buckets, every page."""
    pages = s3tables.get_paginator("list_table_buckets").paginate()
    return [TableBucket(name=b["name"], arn=b["arn"], owner=b.get("ownerAccountId"))
            for page in pages for b in page.get("tableBuckets", [])]


def bucket_catalog(bucket: TableBucket) -> str:
    """The catalog Athena names a table bucket by: `s3tablescatalog/<bucket>`."""
    return f"{S3_TABLES_ROOT}/{bucket['name']}"


def catalog_id(bucket: TableBucket, account: str | None) -> str:
    """Glue's id for a table bucket's catalog: its owner's account, then the catalog's path."""
    owner = bucket["owner"] or account
    return f"{owner}:{bucket_catalog(bucket)}" if owner else bucket_catalog(bucket)


def _not_found(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "EntityNotFoundException"


def _namespaces(glue: Any, identifier: str) -> list[str] | None:
    """A bucket catalog's databases (its namespaces); None where Glue holds no such catalog."""
    try:
        return [d["Name"] for d in glue_databases(glue, identifier)]
    except ClientError as exc:
        if _not_found(exc):
            return None
        raise


def _error(catalog: str, database: str | None, outcome: Outcome[Any, Any]) -> CatalogError:
    return CatalogError(catalog=catalog, database=database, error=outcome.error.brief())  # type: ignore[union-attr,typeddict-item]


def listed_tables(request: ResourceRequest, database: str | None) -> Listed:
    """Every table of every S3 Tables catalog the caller can read (only the namespace `database`, when given): the
    buckets, then each bucket's namespaces in parallel, then each namespace's tables in parallel."""
    glue, account = request.client("glue"), request.caller.account
    buckets = table_buckets(request.client("s3tables"))
    ids = {bucket_catalog(b): catalog_id(b, account) for b in buckets}
    read = request.fan_out(lambda name: _namespaces(glue, ids[name]), list(ids), action="glue:GetDatabases")
    answer = Listed(catalogs=[], tables=[], errors=[], not_integrated=[])
    wanted: list[tuple[str, str]] = []
    for outcome in read:
        if outcome.error is not None:
            answer["errors"].append(_error(outcome.item, None, outcome))
        elif outcome.value is None:
            answer["not_integrated"].append(outcome.item.split("/", 1)[1])
        else:
            answer["catalogs"].append(outcome.item)
            wanted += [(outcome.item, n) for n in outcome.value if database is None or n == database]
    tables = request.fan_out(lambda pair: glue_tables(glue, pair[1], ids[pair[0]]), wanted, action="glue:GetTables")
    for outcome in tables:
        if outcome.error is not None:
            answer["errors"].append(_error(*outcome.item, outcome))
        else:
            answer["tables"] += [(outcome.item[0], table) for table in outcome.value or []]
    return answer


def _text(table: Mapping[str, Any]) -> str:
    descriptor = table.get("StorageDescriptor") or {}
    columns: Sequence[Mapping[str, Any]] = [*(descriptor.get("Columns") or []), *(table.get("PartitionKeys") or [])]
    parts = [table.get("Name"), table.get("Description"), *(c.get("Name") for c in columns),
             *(c.get("Comment") for c in columns)]
    return " ".join(str(p) for p in parts if p).lower()


def matches(table: Mapping[str, Any], terms: Sequence[str]) -> bool:
    """Whether every term is in the table's name, description, column names or comments, as SearchTables matches."""
    text = _text(table)
    return bool(terms) and all(term in text for term in terms)

