"""athena://catalogs: every catalog the caller can browse or query, and what kind each is.

Two sources, read side by side as the caller: Glue's catalog hierarchy (GetCatalogs, recursive: S3 Tables'
`s3tablescatalog` and a catalog per table bucket, federated catalogs, Redshift-managed ones) and Athena's data
catalogs (ListDataCatalogs: the Glue catalog, Lambda connectors, Hive metastores, another account's Glue catalog).
A catalog both list is one entry. Each is named as Athena SQL names it (`"s3tablescatalog/acme-analytics"`), with
Glue's id for it and where its databases are listed. One source failing leaves the other's catalogs, its error
beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict

from botocore.paginate import Paginator

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.reading.fanout import Call
from aws_data_mcp.reading.resolving import ItemError, attempt, side_by_side
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import (
    Database,
    Table,
    TableSummary,
    data_catalogs,
    described_table,
    glue_call,
    glue_databases,
    glue_table_names,
    glue_tables,
    table_summary,
)

S3_TABLES = "s3tablescatalog"
"""The Glue catalog S3 Tables' analytics integration makes: a child catalog per table bucket."""
S3_TABLES_CONNECTION = "aws:s3tables"

Kind = Literal["glue", "s3_tables", "s3_tables_root", "federated", "redshift", "glue_child", "lambda_connector",
               "hive_metastore", "athena_federated"]
KINDS: dict[Kind, str] = {
    "glue": "the account's Glue Data Catalog (AwsDataCatalog), or another account's registered in Athena",
    "s3_tables": "one S3 table bucket's catalog: its namespaces are databases, its tables Iceberg tables",
    "s3_tables_root": "S3 Tables' parent catalog: it holds a catalog per table bucket, not databases",
    "federated": "a catalog Glue federates from another source through a connection",
    "redshift": "a Redshift-managed catalog (SageMaker Lakehouse), or a link to one",
    "glue_child": "a catalog in Glue's hierarchy",
    "lambda_connector": "an Athena federated query connector (a Lambda function Athena invokes)",
    "hive_metastore": "an external Hive metastore, reached through a Lambda function",
    "athena_federated": "a federated catalog Athena made with its connector",
}
"""Each kind, in words: the answer carries the ones it uses."""
_ATHENA_KINDS: dict[str, Kind] = {"GLUE": "glue", "LAMBDA": "lambda_connector", "HIVE": "hive_metastore",
                                  "FEDERATED": "athena_federated"}
_GET_CATALOGS_PAGING = {"input_token": "NextToken", "output_token": "NextToken", "limit_key": "MaxResults",
                        "result_key": "CatalogList"}


class CatalogEntry(TypedDict):
    name: str
    """As Athena SQL names it (`"s3tablescatalog/acme-analytics"."sales"."daily_orders"`)."""
    kind: Kind
    listed_by: list[str]
    """"glue" (GetCatalogs), "athena" (ListDataCatalogs), or both."""
    catalog_id: str | None
    """Glue's id for it, where Glue holds it (account:path; the default catalog: the account)."""
    parent: str | None
    description: str | None
    databases: str | None
    """Where its databases are listed; null for a catalog that holds only catalogs."""
    athena_type: NotRequired[str]
    source: NotRequired[str]
    """What it stands for: a table bucket's ARN, a connection, a Lambda function, a Redshift catalog."""


class Catalogs(TypedDict):
    count: int
    catalogs: list[CatalogEntry]
    kinds: dict[str, str]
    glue_error: ItemError | None
    """Why Glue's catalogs could not be listed (glue:GetCatalogs): Athena's are still listed."""
    athena_error: ItemError | None


def glue_catalogs(glue: Any) -> list[dict[str, Any]]:
    """Every catalog under the account's, all pages. botocore ships no GetCatalogs paginator; its `Paginator`, given
    the operation's paging keys, is one."""
    operation = glue.meta.service_model.operation_model("GetCatalogs")
    paginator = Paginator(glue.get_catalogs, _GET_CATALOGS_PAGING, operation)
    return list(paginator.paginate(Recursive=True).build_full_result().get("CatalogList", []))


def catalog_path(catalog: Mapping[str, Any]) -> str:
    """A Glue catalog's path under the account (`s3tablescatalog/acme-analytics`): Athena's name for it."""
    arn = str(catalog.get("ResourceArn") or "")
    if ":catalog/" in arn:
        return arn.split(":catalog/", 1)[1]
    identifier = str(catalog.get("CatalogId") or "")
    return identifier.split(":", 1)[1] if ":" in identifier else str(catalog.get("Name", identifier))


def _in_uri(name: str) -> str:
    """A catalog's name as one URI segment: `s3tablescatalog/acme-analytics` as `s3tablescatalog%2Facme-analytics`."""
    from urllib.parse import quote

    return quote(name, safe="")


def databases_uri(name: str) -> str:
    return "athena://databases" if name == GLUE_CATALOG else f"athena://catalogs/{_in_uri(name)}/databases"


def tables_uri(catalog: str, database: str) -> str:
    if catalog == GLUE_CATALOG:
        return f"athena://databases/{database}/tables"
    return f"athena://catalogs/{_in_uri(catalog)}/databases/{database}/tables"


def _glue_kind(catalog: Mapping[str, Any], path: str) -> Kind:
    federated = catalog.get("FederatedCatalog") or {}
    access = (catalog.get("CatalogProperties") or {}).get("DataLakeAccessProperties") or {}
    if federated.get("ConnectionName") == S3_TABLES_CONNECTION or path.split("/")[0] == S3_TABLES:
        return "s3_tables" if "/" in path else "s3_tables_root"
    if catalog.get("TargetRedshiftCatalog") or "redshift" in str(access.get("CatalogType", "")).lower() \
            or "redshift" in str(federated.get("ConnectionName", "")).lower():
        return "redshift"
    return "federated" if federated else "glue_child"


def _glue_entry(catalog: Mapping[str, Any], account: str | None) -> CatalogEntry:
    path = catalog_path(catalog)
    kind = _glue_kind(catalog, path)
    federated = catalog.get("FederatedCatalog") or {}
    entry = CatalogEntry(name=path, kind=kind, listed_by=["glue"],
                         catalog_id=catalog.get("CatalogId") or (f"{account}:{path}" if account else path),
                         parent=path.rsplit("/", 1)[0] if "/" in path else None,
                         description=catalog.get("Description"),
                         databases=None if kind == "s3_tables_root" else databases_uri(path))
    source = federated.get("Identifier") or (catalog.get("TargetRedshiftCatalog") or {}).get("CatalogArn")
    if source:
        entry["source"] = str(source)
    return entry


def _athena_entry(catalog: Mapping[str, Any], account: str | None) -> CatalogEntry:
    """An Athena data catalog as ListDataCatalogs summarises it (no parameters: another account's Glue catalog
    says its id when its databases are read)."""
    name, kind = str(catalog["CatalogName"]), _ATHENA_KINDS.get(str(catalog.get("Type")), "athena_federated")
    entry = CatalogEntry(name=name, kind=kind, listed_by=["athena"],
                         catalog_id=account if name == GLUE_CATALOG else None, parent=None,
                         description=catalog.get("Description"), databases=databases_uri(name),
                         athena_type=str(catalog.get("Type")))
    if catalog.get("ConnectionType"):
        entry["source"] = f"connection type {catalog['ConnectionType']}"
    return entry


@registry.resource(
    "athena://catalogs",
    name="athena-catalogs",
    title="Data catalogs",
    description="Every catalog you can browse or query: Glue's (GetCatalogs, recursive: S3 Tables' s3tablescatalog "
    "and a catalog per table bucket, federated and Redshift-managed catalogs) and Athena's data catalogs (the Glue "
    "catalog, Lambda connectors, Hive metastores). Each is named as Athena SQL names it, with its kind, Glue's id "
    "for it and where its databases are listed; one source failing leaves the other's, its error beside them.",
    requires="auth",
    aws_calls=["glue:GetCatalogs", "athena:ListDataCatalogs"],
    list_field="catalogs",
)
def catalogs(request: ResourceRequest) -> Catalogs:
    """GetCatalogs beside ListDataCatalogs: one wave, each source answering on its own."""
    glue, athena = request.client("glue"), request.client("athena")
    wave = side_by_side(request, glue=[Call("glue:GetCatalogs", partial(glue_catalogs, glue))],
                        athena=[Call("athena:ListDataCatalogs", partial(data_catalogs, athena))])
    (from_glue,), (from_athena,) = wave["glue"], wave["athena"]
    account = request.caller.account
    listed, athena_error = from_athena.value if from_athena.value is not None else (
        [{"CatalogName": GLUE_CATALOG, "Type": "GLUE"}], from_athena.error.brief())  # type: ignore[union-attr]
    entries: dict[str, CatalogEntry] = {}
    for found in listed:
        entries[str(found["CatalogName"])] = _athena_entry(found, account)
    for found in from_glue.value or []:
        entry = _glue_entry(found, account)
        if (known := entries.get(entry["name"])) is not None:  # Athena lists it too: one catalog, both sources
            known |= {"listed_by": ["athena", "glue"], "kind": entry["kind"], "catalog_id": entry["catalog_id"],
                      "parent": entry["parent"], "databases": entry["databases"]}  # type: ignore[typeddict-item]
            continue
        entries[entry["name"]] = entry
    ordered = sorted(entries.values(), key=lambda e: (e["name"] != GLUE_CATALOG, e["name"]))
    return Catalogs(count=len(ordered), catalogs=ordered,
                    kinds={kind: KINDS[kind] for kind in dict.fromkeys(e["kind"] for e in ordered)},
                    glue_error=from_glue.error.brief() if from_glue.error else None,  # type: ignore[typeddict-item]
                    athena_error=athena_error)  # type: ignore[typeddict-item]


# --------------------------------------------------------------------------- one catalog's databases and tables

CATALOG_NOT_FOUND = "athena://catalogs"


class CatalogDatabases(TypedDict):
    catalog: str
    catalog_id: str | None
    read_with: Literal["glue", "athena"]
    """Glue (GetDatabases with the catalog's id) for a catalog Glue holds; Athena (ListDatabases) for a connector's."""
    databases: list[Database]


class CatalogTables(TypedDict):
    catalog: str
    catalog_id: str | None
    database: str
    tables: list[TableSummary]


def _glue_id(request: ResourceRequest, name: str) -> tuple[Literal["glue", "athena"], str | None]:
    """Who holds the catalog `name`, and Glue's id for it: the default catalog (no id: its calls stay as they
    were), a child catalog in Glue's hierarchy (account:path), an Athena data catalog (GetDataCatalog says: Glue's,
    another account's Glue, or a connector), else a top-level Glue catalog."""
    if name == GLUE_CATALOG:
        return "glue", None
    account = request.caller.account
    if "/" not in name:
        found = attempt("athena:GetDataCatalog",
                        lambda: request.client("athena").get_data_catalog(Name=name)["DataCatalog"])
        if found.ok:
            catalog = found.value or {}
            if str(catalog.get("Type")) != "GLUE":
                return "athena", None
            return "glue", (catalog.get("Parameters") or {}).get("catalog-id") or None
        if found.error is not None and found.error.code is not ErrorCode.NOT_FOUND:
            raise found.error
    return "glue", f"{account}:{name}" if account else name


def _glue_held(request: ResourceRequest, name: str) -> str | None:
    """Glue's id for the catalog `name`; a connector's catalog is refused, saying where its databases are."""
    source, catalog_id = _glue_id(request, name)
    if source == "athena":
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Catalog {name!r} is an Athena connector's, not Glue's",
                              details=[f"{databases_uri(name)} lists its databases; SHOW TABLES IN a database of "
                                       "it, with athena_query, lists its tables."])
    return catalog_id


def complete_catalog(request: ResourceRequest, prefix: str) -> list[str]:
    listed = catalogs(request)["catalogs"]
    return [c["name"] for c in listed if c["name"].startswith(prefix) and c["databases"] is not None]


def _chosen_catalog_id(request: ResourceRequest) -> tuple[bool, str | None]:
    """For completion: whether the chosen catalog is Glue's, and its id; nothing chosen or a connector's: not."""
    name = request.args.get("catalog")
    if not name:
        return False, None
    source, catalog_id = _glue_id(request, name)
    return source == "glue", catalog_id


def complete_catalog_database(request: ResourceRequest, prefix: str) -> list[str]:
    held, catalog_id = _chosen_catalog_id(request)
    if not held:
        return []
    return [d["Name"] for d in glue_databases(request.client("glue"), catalog_id) if d["Name"].startswith(prefix)]


def complete_catalog_table(request: ResourceRequest, prefix: str) -> list[str]:
    held, catalog_id = _chosen_catalog_id(request)
    database = request.args.get("database")
    if not held or not database:
        return []
    return [n for n in glue_table_names(request.client("glue"), database, catalog_id) if n.startswith(prefix)]


def _athena_databases(request: ResourceRequest, catalog: str) -> list[dict[str, Any]]:
    pages = request.client("athena").get_paginator("list_databases").paginate(CatalogName=catalog)
    return [database for page in pages for database in page.get("DatabaseList", [])]


@registry.resource(
    "athena://catalogs/{catalog}/databases",
    name="athena-catalog-databases",
    title="Databases of one catalog",
    description="The databases of one catalog athena://catalogs lists (its name as one URI segment: "
    "s3tablescatalog%2Facme-analytics): Glue's GetDatabases with the catalog's id, or Athena's ListDatabases for a "
    "connector. The default catalog's are athena://databases.",
    requires="auth",
    aws_calls=["athena:GetDataCatalog", "glue:GetDatabases", "athena:ListDatabases"],
    list_field="databases",
    completions={"catalog": complete_catalog},
    example="athena://catalogs/s3tablescatalog%2Facme-analytics/databases",
)
def catalog_databases(request: ResourceRequest) -> CatalogDatabases:
    """Who holds the catalog (no call for a name with a slash), then every page of its databases."""
    name = request.args["catalog"]
    source, catalog_id = _glue_id(request, name)
    if source == "athena":
        found = _athena_databases(request, name)
    else:
        found = glue_call(lambda: glue_databases(request.client("glue"), catalog_id),
                          f"No catalog {name!r} in Glue", CATALOG_NOT_FOUND)
    databases = []
    for database in found:
        entry = Database(catalog=name, name=database["Name"], description=database.get("Description"),
                         location=database.get("LocationUri"))
        if source == "glue":
            entry["tables"] = tables_uri(name, database["Name"])
        databases.append(entry)
    return CatalogDatabases(catalog=name, catalog_id=catalog_id, read_with=source, databases=databases)


@registry.resource(
    "athena://catalogs/{catalog}/databases/{database}/tables",
    name="athena-catalog-tables",
    title="Tables of a database in one catalog",
    description="The tables of one database in a Glue-held catalog (an S3 table bucket's namespace, a federated "
    "or Redshift-managed catalog's database): GetTables with the catalog's id, each summarised as "
    "athena://databases/{database}/tables does.",
    requires="auth",
    aws_calls=["athena:GetDataCatalog", "glue:GetTables"],
    list_field="tables",
    completions={"catalog": complete_catalog, "database": complete_catalog_database},
    example="athena://catalogs/s3tablescatalog%2Facme-analytics/databases/sales/tables",
)
def catalog_tables(request: ResourceRequest) -> CatalogTables:
    name, database = request.args["catalog"], request.args["database"]
    catalog_id = _glue_held(request, name)
    found = glue_call(lambda: glue_tables(request.client("glue"), database, catalog_id),
                      f"No database {database!r} in catalog {name!r}", databases_uri(name))
    return CatalogTables(catalog=name, catalog_id=catalog_id, database=database,
                         tables=[table_summary(t) for t in found])


@registry.resource(
    "athena://catalogs/{catalog}/databases/{database}/tables/{table}",
    name="athena-catalog-table",
    title="One table in one catalog",
    description="One table of a Glue-held catalog (an S3 table bucket's Iceberg table, a federated or "
    "Redshift-managed catalog's): GetTable with the catalog's id, described as athena://databases/{database}/"
    "tables/{table} describes one (an Iceberg table's snapshots and time-travel SQL name the catalog; an S3 table "
    "names its table bucket's ARN); which columns Lake Formation lets you read is not read here.",
    requires="auth",
    aws_calls=["athena:GetDataCatalog", "glue:GetTable", "s3:GetObject"],
    completions={"catalog": complete_catalog, "database": complete_catalog_database,
                 "table": complete_catalog_table},
    example="athena://catalogs/s3tablescatalog%2Facme-analytics/databases/sales/tables/daily_orders",
)
def catalog_table(request: ResourceRequest) -> Table:
    name = request.args["catalog"]
    if name == GLUE_CATALOG:
        return described_table(request, request.args["database"], request.args["table"])
    catalog_id = _glue_held(request, name)
    answer = described_table(request, request.args["database"], request.args["table"], name, catalog_id)
    if (bucket := table_bucket_arn(request, name, catalog_id)) is not None:
        answer["table_bucket"] = bucket
    return answer


def table_bucket_arn(request: ResourceRequest, catalog: str, catalog_id: str | None) -> str | None:
    """The table bucket an S3 Tables catalog (`s3tablescatalog/<bucket>`) stands for, by its ARN: the catalog's
    owner, the caller's region and partition (no call: the ARN is made of what the catalog's name says)."""
    root, _, bucket = catalog.partition("/")
    if root != S3_TABLES or not bucket or "/" in bucket:
        return None
    meta = request.client("glue").meta
    owner = (catalog_id or "").split(":", 1)[0] or request.caller.account or ""
    return f"arn:{meta.partition}:s3tables:{meta.region_name}:{owner}:bucket/{bucket}"
