"""athena://databases: the databases of every data catalog (the Glue catalog from Glue itself), and each Glue
database's tables.

Every call is the caller's (`request.client`); the catalogs' databases fan out in parallel, and a catalog the caller
may not read stays in the answer with its own error instead of failing the read. Nothing here walks every table of
a database: a listing's cost stays bounded however large the estate (athena://search finds tables).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, TypeVar

from botocore.exceptions import ClientError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.lakehouse.formats import table_format
from aws_data_mcp.lakehouse.projection import PartitionProjection, describe_projection
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, attempt, iso, side_by_side
from aws_data_mcp.registry import ResourceRequest, registry

if TYPE_CHECKING:
    from aws_data_mcp.lakehouse.formats import DeltaTable, HudiTable
    from aws_data_mcp.lakehouse.iceberg import IcebergTable
    from aws_data_mcp.lakehouse.views import View
    from aws_data_mcp.resources.athena.column_stats import ColumnStatistics
    from aws_data_mcp.resources.athena.first_query import FirstQuery
    from aws_data_mcp.resources.athena.freshness import Freshness
    from aws_data_mcp.resources.athena.shared_tables import ResourceLink

T = TypeVar("T")

_HIDDEN_TABLE_PARAMETERS = ("spark.sql.sources.schema", "projection.", "storage.location.template")
"""Parameters that repeat the columns in another form (Spark's schema JSON), or that `partition_projection`
summarises."""
PARAMETER_VALUE_CHARS = 200
VIEW_TEXT_CHARS = 500
"""A view's stored text as Glue keeps it (an Athena view's `/* Presto View: ... */`), cut: `view` holds its
decoded SQL whole."""


class Database(TypedDict):
    catalog: str
    name: str
    description: str | None
    location: str | None
    tables: NotRequired[str]
    """Glue databases: the URI listing its tables. No count: counting walks every table (GetTables pages), a cost
    that grows with the estate; the listing pages within the response budget instead."""
    link_to: NotRequired[dict[str, str]]
    """A resource link: the shared database (owner account, name) it stands for."""


class Catalog(TypedDict):
    name: str
    type: str | None
    database_count: int | None
    error: NotRequired[ItemError]


class Databases(TypedDict):
    catalogs: list[Catalog]
    catalogs_error: ItemError | None
    databases: list[Database]


class Column(TypedDict):
    name: str
    type: str | None
    comment: NotRequired[str]
    readable: NotRequired[bool]
    """False on a column Lake Formation does not let the caller read (a query naming it answers COLUMN_NOT_FOUND);
    absent where the caller may read it, or where that cannot be known (see the table's `column_access`)."""


class ColumnAccess(TypedDict):
    """Which of the table's columns the caller may read, from the caller's own Lake Formation grants."""

    known: bool
    """Whether the caller's grants could be read and settle it; false: the columns are not marked."""
    decided_by: str | None
    """"lake_formation" (its grants pick the columns), "iam" (IAM and S3 decide: every column or none), or null."""
    hidden_columns: list[str]
    """The columns the caller may not read (marked `readable: false`)."""
    note: str
    explain: str | None
    """The table's explainer: every link of the caller's access to it, checked as the caller (null: none yet for a
    table outside the default catalog and S3 Tables' catalogs)."""


class TableSummary(TypedDict):
    name: str
    type: str | None
    description: str | None
    """Glue's description of the table: what it holds, so a reader can pick tables from the list alone."""
    format: str | None
    location: str | None
    column_count: int
    partition_keys: list[str]
    updated: str | None


class Tables(TypedDict):
    database: str
    tables: list[TableSummary]


class Table(TypedDict):
    database: str
    name: str
    catalog: NotRequired[str]
    """The catalog, where it is not the default (AwsDataCatalog)."""
    type: str | None
    description: str | None
    format: str | None
    location: str | None
    input_format: str | None
    serde: str | None
    columns: list[Column]
    partition_keys: list[Column]
    parameters: dict[str, str]
    partition_projection: PartitionProjection | None
    view_sql: str | None
    created: str | None
    updated: str | None
    column_access: ColumnAccess
    partitioning: NotRequired[str]
    """An Iceberg table's partitioning and the columns to filter on (Glue lists no partition keys for Iceberg)."""
    iceberg: NotRequired[IcebergTable]
    delta: NotRequired[DeltaTable]
    hudi: NotRequired[HudiTable]
    table_bucket: NotRequired[str]
    """An S3 table's table bucket, by its ARN (the `s3tables:*` actions' resource)."""
    column_statistics: NotRequired[ColumnStatistics]
    """Glue's column statistics (distinct values, nulls, ranges, lengths), or what computes them."""
    view: NotRequired[View]
    """A view's SQL decoded (Athena's or a Data Catalog view's), whom it runs as, and its base tables linked."""
    freshness: NotRequired[Freshness]
    """The newest partition and when written, the partition indexes, Glue Data Quality's latest result."""
    first_query: NotRequired[FirstQuery]
    """One cheap sample query (the newest partition, a few columns, LIMIT 10) and the call that estimates it."""
    resource_link: NotRequired[ResourceLink]
    """A resource link: the shared table it names, with that table's columns and location where readable."""


def in_catalog(catalog_id: str | None) -> dict[str, str]:
    """The `CatalogId` a Glue call takes for a catalog other than the account's own; none for the default, whose
    calls stay as they always were."""
    return {"CatalogId": catalog_id} if catalog_id else {}


def glue_databases(glue: Any, catalog_id: str | None = None) -> list[dict[str, Any]]:
    pages = glue.get_paginator("get_databases").paginate(**in_catalog(catalog_id))
    return [database for page in pages for database in page.get("DatabaseList", [])]


def glue_tables(glue: Any, database: str, catalog_id: str | None = None) -> list[dict[str, Any]]:
    pages = glue.get_paginator("get_tables").paginate(DatabaseName=database, **in_catalog(catalog_id))
    return [table for page in pages for table in page.get("TableList", [])]


def glue_table_names(glue: Any, database: str, catalog_id: str | None = None) -> list[str]:
    """A database's table names only (GetTables with AttributesToGet): a fraction of the bytes of whole tables."""
    pages = glue.get_paginator("get_tables").paginate(DatabaseName=database, AttributesToGet=["NAME"],
                                                      **in_catalog(catalog_id))
    return [table["Name"] for page in pages for table in page.get("TableList", [])]


def glue_call(call: Callable[[], T], not_found: str, listed_at: str = "athena://databases") -> T:
    """`call()`, Glue's EntityNotFoundException as a `not_found` that says what is missing and where the caller's
    are listed."""
    try:
        return call()
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "EntityNotFoundException":
            raise
        what = "catalogs" if listed_at == "athena://catalogs" else "databases"
        raise ResourceFailure(ErrorCode.NOT_FOUND, not_found,
                              details=[f"{listed_at} lists the {what} the caller can see."],
                              valid_uris=[listed_at]) from exc


def _listed_catalogs(athena: Any) -> list[dict[str, Any]]:
    pages = athena.get_paginator("list_data_catalogs").paginate()
    return [catalog for page in pages for catalog in page.get("DataCatalogsSummary", [])]


def data_catalogs(athena: Any) -> tuple[list[dict[str, Any]], ItemError | None]:
    """Athena's data catalogs; the Glue catalog is always there, even when listing catalogs is denied."""
    glue_catalog = {"CatalogName": GLUE_CATALOG, "Type": "GLUE"}
    listed = attempt("athena:ListDataCatalogs", lambda: _listed_catalogs(athena))
    if listed.error is not None:
        return [glue_catalog], listed.error.brief()  # type: ignore[return-value]
    catalogs = listed.value or []
    if all(c.get("CatalogName") != GLUE_CATALOG for c in catalogs):
        catalogs = [glue_catalog, *catalogs]
    return catalogs, None


def _other_catalog_databases(athena: Any, catalog: str) -> list[dict[str, Any]]:
    pages = athena.get_paginator("list_databases").paginate(CatalogName=catalog)
    return [database for page in pages for database in page.get("DatabaseList", [])]


def _databases_action(catalog: Mapping[str, Any]) -> str:
    """What listing a catalog's databases calls: Glue for the Glue catalog, Athena for any other."""
    return "glue:GetDatabases" if catalog["CatalogName"] == GLUE_CATALOG else "athena:ListDatabases"


@registry.resource(
    "athena://databases",
    name="athena-databases",
    title="Athena databases",
    description="Databases per data catalog (the Glue catalog from Glue itself) with descriptions and locations, "
    "and where each database's tables are listed; a catalog the caller cannot read is kept with its error. Its "
    "cost does not grow with the tables: athena://search finds tables by name, column or description.",
    requires="auth",
    aws_calls=["athena:ListDataCatalogs", "glue:GetDatabases", "athena:ListDatabases"],
    list_field="databases",
)
def databases(request: ResourceRequest) -> Databases:
    """Catalogs, then the databases of every catalog in parallel: two waves of calls, a page of up to 100 databases
    a call, whatever the number of tables (no table is listed or counted here)."""
    athena, glue = request.client("athena"), request.client("glue")
    catalogs, catalogs_error = data_catalogs(athena)

    def catalog_databases(catalog: Mapping[str, Any]) -> list[dict[str, Any]]:
        if catalog["CatalogName"] == GLUE_CATALOG:
            return glue_databases(glue)
        return _other_catalog_databases(athena, catalog["CatalogName"])

    listed = request.fan_out(catalog_databases, catalogs, action=_databases_action)
    catalog_entries: list[Catalog] = []
    entries: list[Database] = []
    for outcome in listed:
        name = outcome.item["CatalogName"]
        entry = Catalog(name=name, type=outcome.item.get("Type"), database_count=None)
        if outcome.error is not None:
            catalog_entries.append(entry | Catalog(error=outcome.error.brief()))  # type: ignore[typeddict-item]
            continue
        catalog_entries.append(entry | Catalog(database_count=len(outcome.value or [])))  # type: ignore[typeddict-item]
        for found in outcome.value or []:
            database = Database(catalog=name, name=found["Name"], description=found.get("Description"),
                                location=found.get("LocationUri"))
            if name == GLUE_CATALOG:
                database["tables"] = f"athena://databases/{found['Name']}/tables"
            if target := found.get("TargetDatabase"):  # a resource link to a database another account shared
                database["link_to"] = {"account": target.get("CatalogId", ""),
                                       "database": target.get("DatabaseName", "")}
            entries.append(database)
    return Databases(catalogs=catalog_entries, catalogs_error=catalogs_error, databases=entries)


def columns_of(raw: Sequence[Mapping[str, Any]]) -> list[Column]:
    columns = []
    for column in raw:
        entry = Column(name=column["Name"], type=column.get("Type"))
        if column.get("Comment"):
            entry["comment"] = column["Comment"]
        columns.append(entry)
    return columns


def table_summary(table: Mapping[str, Any]) -> TableSummary:
    descriptor = table.get("StorageDescriptor") or {}
    return TableSummary(
        name=table["Name"], type=table.get("TableType"), description=table.get("Description"),
        format=table_format(table),
        location=descriptor.get("Location"), column_count=len(descriptor.get("Columns") or []),
        partition_keys=[k["Name"] for k in table.get("PartitionKeys") or []], updated=iso(table.get("UpdateTime")),
    )


def complete_database(request: ResourceRequest, prefix: str) -> list[str]:
    return [d["Name"] for d in glue_databases(request.client("glue")) if d["Name"].startswith(prefix)]


def complete_table(request: ResourceRequest, prefix: str) -> list[str]:
    database = request.args.get("database")
    if not database:
        return []
    return [name for name in glue_table_names(request.client("glue"), database) if name.startswith(prefix)]


@registry.resource(
    "athena://databases/{database}/tables",
    name="athena-tables",
    title="Tables of a database",
    description="The tables of one Glue database: description, type, format, S3 location, column count and "
    "partition keys.",
    requires="auth",
    aws_calls=["glue:GetTables"],
    list_field="tables",
    completions={"database": complete_database},
    example="athena://databases/sales/tables",
)
def tables(request: ResourceRequest) -> Tables:
    """Every page of GetTables, each table summarised; an unknown database is not_found, not an empty list."""
    database = request.args["database"]
    found = glue_call(lambda: glue_tables(request.client("glue"), database),
                       f"No Glue database {database!r} in this account's AwsDataCatalog")
    return Tables(database=database, tables=[table_summary(t) for t in found])


def _shown_parameters(parameters: Mapping[str, Any]) -> dict[str, str]:
    return {key: str(value)[:PARAMETER_VALUE_CHARS] for key, value in sorted(parameters.items())
            if not key.startswith(_HIDDEN_TABLE_PARAMETERS)}


@registry.resource(
    "athena://databases/{database}/tables/{table}",
    name="athena-table",
    title="One table",
    description="One Glue table: columns with types and comments, partition keys, S3 location, format, SerDe, "
    "the parameters worth showing, a view's SQL and base tables, Glue's column statistics (distinct values, nulls, "
    "ranges), the newest partition, partition indexes and Glue Data Quality's latest result. "
    "An Iceberg table adds its schema with field ids, partitioning "
    "and how to filter on it, snapshots, branches, tags and the time-travel SQL (from its metadata file); a "
    "projected table each key's range; Delta and Hudi what Athena reads of them.",
    requires="auth",
    aws_calls=["glue:GetTable", "glue:GetColumnStatisticsForTable", "glue:GetPartitions", "glue:GetPartitionIndexes",
               "glue:ListDataQualityResults", "glue:GetDataQualityResult", "s3:GetObject",
               "lakeformation:ListResources", "lakeformation:ListPermissions",
               "lakeformation:ListDataCellsFilter", "lakeformation:GetResourceLFTags",
               "lakeformation:ListLakeFormationOptIns", "lakeformation:GetDataLakeSettings"],
    completions={"database": complete_database, "table": complete_table},
    example="athena://databases/sales/tables/orders",
)
def table(request: ResourceRequest) -> Table:
    """GetTable, shaped for a reader writing SQL: Glue's bookkeeping parameters are left out, long values cut; each
    column the caller may not read is marked; an open table format is described as it is (an Iceberg table's
    metadata file, partition projection's settings). The table first (a refusal or a missing table costs no other
    call), then one wave: the caller's Lake Formation grants (seven calls) beside what the format needs."""
    return described_table(request, request.args["database"], request.args["table"])


def described_table(request: ResourceRequest, database: str, name: str, catalog: str | None = None,
                    catalog_id: str | None = None) -> Table:
    """The table resource's answer, in the default catalog or in `catalog` (Glue's id: `catalog_id`). Column access
    is read from Lake Formation for the default catalog; in another it is said to be unknown, never guessed."""
    from aws_data_mcp.lakehouse import views
    from aws_data_mcp.resources.athena import column_stats, first_query, freshness, open_tables, shared_tables

    where = f"Glue database {database!r}" + (f" of catalog {catalog!r}" if catalog else "")
    found = glue_call(lambda: open_tables.get_table(request.client("glue"), database, name, **in_catalog(catalog_id)),
                      f"No table {name!r} in {where}")
    kind = table_format(found)
    descriptor = found.get("StorageDescriptor") or {}
    # A view's columns have no statistics: Glue's task computes them over a table's files.
    data_columns = {} if views.is_view(found) else {
        c["Name"]: c.get("Type") for c in descriptor.get("Columns") or []}
    fresh_calls = {} if catalog or views.is_view(found) else freshness.freshness_calls(
        request.client("glue"), database, found["Name"], found)
    target = None if catalog else shared_tables.link_target(found)
    wave = side_by_side(request, lake=[] if catalog or target else _lake_formation_calls(request, database, name),
                        link=shared_tables.target_calls(request, target),
                        format=open_tables.format_calls(request, found, kind),
                        stats=column_stats.statistics_calls(request.client("glue"), database, found["Name"],
                                                            data_columns, catalog_id),
                        **{f"fresh.{part}": calls for part, calls in fresh_calls.items()})
    parameters = found.get("Parameters") or {}
    view_sql = found.get("ViewOriginalText")
    columns, keys = columns_of(descriptor.get("Columns") or []), columns_of(found.get("PartitionKeys") or [])
    access = _other_catalog_access(catalog, database, found["Name"]) if catalog else \
        _link_access(database, found["Name"]) if target else _column_access(request, database, found, wave["lake"])
    for column in [*columns, *keys]:
        if column["name"] in access["hidden_columns"]:
            column["readable"] = False
    answer = Table(
        database=database, name=found["Name"], type=found.get("TableType"), description=found.get("Description"),
        format=kind, location=descriptor.get("Location"), input_format=descriptor.get("InputFormat"),
        serde=(descriptor.get("SerdeInfo") or {}).get("SerializationLibrary"),
        columns=columns, partition_keys=keys, parameters=_shown_parameters(parameters),
        partition_projection=describe_projection(parameters, [k["name"] for k in keys]),
        view_sql=view_sql[:VIEW_TEXT_CHARS] if view_sql else None,
        created=iso(found.get("CreateTime")), updated=iso(found.get("UpdateTime")), column_access=access,
    )
    if catalog:
        answer["catalog"] = catalog
    if target is not None:
        answer["resource_link"] = shared_tables.resource_link(request, database, found["Name"], target,
                                                              wave["link"][0], columns_of)
    if data_columns:  # a column the caller may not read shows no statistics either (its range is its data)
        shown = {name: kind for name, kind in data_columns.items() if name not in access["hidden_columns"]}
        answer["column_statistics"] = column_stats.column_statistics(database, found["Name"], shown, wave["stats"])
    if views.is_view(found):
        answer["view"] = views.describe_view(found, database)
    if fresh_calls:
        fresh = {part: wave[f"fresh.{part}"] for part in fresh_calls}
        result_id = freshness.newest_result_id(fresh["data_quality"])
        result = request.fan_out(Call.run, [freshness.result_call(request, result_id)],
                                 action=Call.action_of)[0] if result_id else None
        answer["freshness"] = freshness.freshness(found, fresh, result)
    if not catalog:
        newest = (answer.get("freshness") or {}).get("newest_partition") or {}
        shared = answer.get("resource_link") or {}  # a link's sample names the target's columns
        if sample := first_query.first_query(database, found["Name"], shared.get("columns", columns),
                                             shared.get("partition_keys", keys), newest.get("values")):
            answer["first_query"] = sample
    names = (*([catalog] if catalog else []), database, found["Name"])
    return answer | open_tables.format_details(found, kind, names, wave["format"])  # type: ignore[return-value]


def _other_catalog_access(catalog: str, database: str, name: str) -> ColumnAccess:
    from aws_data_mcp.explainer.uris import catalog_table_uri

    explain = catalog_table_uri(catalog, database, name) if catalog.startswith("s3tablescatalog/") else None
    return ColumnAccess(known=False, decided_by=None, hidden_columns=[], explain=explain,
                        note=f"Whether every column is readable is not read here for catalog {catalog!r}: the "
                             "caller's Lake Formation grants are read for the default catalog only.")


def _link_access(database: str, name: str) -> ColumnAccess:
    """A resource link's: the grants on its target decide, which its explainer reads (not this resource)."""
    from aws_data_mcp.explainer.uris import table_uri

    return ColumnAccess(known=False, decided_by="lake_formation", hidden_columns=[], explain=table_uri(database, name),
                        note="A resource link: Lake Formation's grants on its target decide the columns the caller "
                             "reads; its explainer checks DESCRIBE on the link and SELECT on the target.")


def _lake_formation_calls(request: ResourceRequest, database: str, name: str) -> list[Call[Any]]:
    """Where Lake Formation governs, and what it lets the caller read: registrations, then the explainer's own first
    wave of Lake Formation calls (grants, tag grants, data cells filters, LF-tags, opt-ins, the account default)."""
    from aws_data_mcp.explainer.lake_formation import lake_calls
    from aws_data_mcp.explainer.registrations import registered_resources
    from aws_data_mcp.explainer.storage_links import Subject

    lakeformation = request.client("lakeformation")
    return [Call("lakeformation:ListResources", lambda: registered_resources(lakeformation)),
            *lake_calls(lakeformation, Subject.of(request.caller).principal, database, name)]


def _column_access(request: ResourceRequest, database: str, found: Mapping[str, Any],
                   lake: Sequence[Outcome[Call[Any], Any]]) -> ColumnAccess:
    """The columns the caller may read, as the table's explainer decides them from the caller's grants (the same
    reading of the same calls), or that it cannot be known."""
    from aws_data_mcp.explainer.lake_formation import lake_answers, permissions_link, registration_link
    from aws_data_mcp.explainer.storage_links import Subject, s3_location
    from aws_data_mcp.explainer.uris import table_uri

    registered, answers = lake[0], lake_answers(lake[1:])
    descriptor = found.get("StorageDescriptor") or {}
    names = [c["Name"] for c in [*(descriptor.get("Columns") or []), *(found.get("PartitionKeys") or [])]]
    explain = table_uri(database, found["Name"])
    place = s3_location(descriptor.get("Location"))
    location, hybrid = registration_link(registered, *place)[1:] if place else (None, False)
    link, readable, _ = permissions_link(Subject.of(request.caller), database, found["Name"], names, location, hybrid,
                                         registered.ok, answers)
    if readable is None:
        why = link.get("settle") or "the caller's Lake Formation grants could not be read"
        return ColumnAccess(known=False, decided_by=None, hidden_columns=[], explain=explain,
                            note=f"Whether every column is readable cannot be known: {why}.")
    governed = link.get("governed_by") == "lake_formation" and link["evidence"].get("grants") is not None
    hidden = [c for c in names if c not in readable.columns] if governed else []
    note = (f"Lake Formation lets you read {len(readable.columns)} of {len(names)} columns; the others are marked "
            "readable: false (a query naming one answers COLUMN_NOT_FOUND)." if hidden else
            "Lake Formation grants you every column." if governed else
            "IAM and S3 decide who reads this table's data: every column, or none.")
    return ColumnAccess(known=True, decided_by="lake_formation" if governed else "iam", hidden_columns=hidden,
                        note=note, explain=explain)
