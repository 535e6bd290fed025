"""athena://search?q=<words>: where the data about something is, across the caller's catalog, in one read.

Glue's SearchTables searches as the caller; the deployment's saved queries are searched beside it.
That makes two dependent waves of calls, whatever the catalog's size. SearchTables skips the S3
Tables catalogs, so `s3_tables_search` lists and matches them. Glue says which tables match, not
why: each hit's reason is read off the table, and ranks it (docs/resources.md).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from botocore.paginate import Paginator

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.explainer.uris import table_uri
from aws_data_mcp.guard.catalog_patterns import GLUE_CATALOG
from aws_data_mcp.identity.accounts import in_current
from aws_data_mcp.reading.fanout import Call
from aws_data_mcp.reading.resolving import side_by_side
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import complete_database, table_format
from aws_data_mcp.resources.athena.catalogs import tables_uri
from aws_data_mcp.resources.athena.named_queries import RUN_WITH, NamedQuery, named_queries_in, workgroup_errors
from aws_data_mcp.resources.athena.s3_tables_search import Listed, listed_tables, matches

SEARCH_URI = "athena://search{?q,database,account,cursor}"
MAX_QUERY_CHARS = 255
MAX_HITS = 1_000
"""Tables one search answers at most: one SearchTables page (Glue's maximum). A search matching more says so
(`more`): narrow it with more words or `database`."""
DESCRIPTION_CHARS = 160
COMMENT_CHARS = 120
MATCHED_COLUMNS = 8
"""Matched columns shown per table; `columns_matched` counts them all where more matched."""
SQL_CHARS = 200
_DATABASE_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,255}$")

Reason = Literal["exact name", "name", "column", "comment", "description", "other"]
RANKS: dict[str, int] = {"exact name": 0, "name": 1, "column": 2, "comment": 3, "description": 3, "sql": 3,
                         "other": 4}


class MatchedColumn(TypedDict):
    name: str
    type: str | None
    comment: NotRequired[str]


class TableHit(TypedDict):
    kind: Literal["table"]
    catalog: str
    """As Athena SQL names it: AwsDataCatalog (SearchTables), or an S3 Tables catalog (`s3tablescatalog/<bucket>`)."""
    database: str
    table: str
    matched: str
    """Why it matched, the best reason: exact name, name, column, comment, description (other: Glue matched it on
    something not shown here, e.g. words spread over several fields)."""
    description: str | None
    columns: NotRequired[list[MatchedColumn]]
    columns_matched: NotRequired[int]
    format: str | None
    location: str | None
    partition_keys: list[str]
    owner: NotRequired[str]
    """The account that owns a table shared with the caller's (Lake Formation, RAM)."""
    link_to: NotRequired[dict[str, str]]
    """A resource link's target: the shared table it stands for."""
    uri: NotRequired[str]
    explain: NotRequired[str]


class QueryHit(TypedDict):
    kind: Literal["named_query"]
    id: str
    name: str
    matched: str
    description: str | None
    workgroup: str | None
    database: str | None
    sql: str


class Search(TypedDict):
    q: str
    database: str | None
    more: bool
    """True when more tables match than one search answers (MAX_HITS): add words or a database."""
    named_queries_searched: list[str]
    named_query_errors: list[dict[str, Any]]
    catalogs_searched: list[str]
    """AwsDataCatalog (SearchTables) and each S3 Tables catalog listed."""
    catalog_errors: list[dict[str, Any]]
    """An S3 Tables catalog, or one of its namespaces, that could not be listed (denied, or not in time)."""
    not_integrated: list[str]
    """Table buckets with no Glue catalog: Athena cannot query them until they are integrated."""
    run_saved_query: str
    hits: list[TableHit | QueryHit]


def terms_of(q: str) -> list[str]:
    """The words of a search, lower case; a quoted phrase is one term (as Glue treats quotes)."""
    try:
        words = shlex.split(q)
    except ValueError:  # an unbalanced quote: the words as typed
        words = q.replace('"', " ").replace("'", " ").split()
    return [word.lower() for word in words if word.strip()]


def _in(terms: Sequence[str], text: str | None) -> bool:
    low = (text or "").lower()
    return bool(terms) and all(term in low for term in terms)


def _cut(text: str | None, chars: int) -> str | None:
    return text if text is None or len(text) <= chars else text[:chars - 1] + "…"


def checked_query(query: Mapping[str, str]) -> tuple[str, str | None]:
    """`q` and `database`, refused before any AWS call when they cannot be a search."""
    q = (query.get("q") or "").strip()
    if not q or not terms_of(q):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "athena://search needs words to search for: ?q=<words>",
                              details=["e.g. athena://search?q=email finds every table with an email column; "
                                       "quote a phrase: ?q=%22order%20date%22."])
    if len(q) > MAX_QUERY_CHARS or any(ord(c) < 32 for c in q):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                              f"q must be one line of at most {MAX_QUERY_CHARS} characters", details=[])
    database = query.get("database") or None
    if database is not None and not _DATABASE_NAME.match(database):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Not a Glue database name: {echo(database)!r}",
                              details=["athena://databases lists the databases you can read."])
    return q, database


_SEARCH_TABLES_PAGING = {"input_token": "NextToken", "output_token": "NextToken", "limit_key": "MaxResults",
                         "result_key": "TableList"}


def search_tables(glue: Any, q: str, database: str | None) -> tuple[list[dict[str, Any]], bool]:
    """SearchTables as the caller, over the tables shared with the caller's account too; at most MAX_HITS.
    botocore ships no SearchTables paginator; its `Paginator`, given the operation's paging keys, is one."""
    arguments: dict[str, Any] = {"SearchText": q, "ResourceShareType": "ALL"}
    if database:
        arguments["Filters"] = [{"Key": "DatabaseName", "Value": database, "Comparator": "EQUALS"}]
    operation = glue.meta.service_model.operation_model("SearchTables")
    pages = Paginator(glue.search_tables, _SEARCH_TABLES_PAGING, operation).paginate(
        **arguments, PaginationConfig={"MaxItems": MAX_HITS, "PageSize": MAX_HITS})
    result = pages.build_full_result()
    return list(result.get("TableList", [])), bool(result.get("NextToken"))


def _column_matches(terms: Sequence[str], columns: Sequence[Mapping[str, Any]]) -> tuple[list[MatchedColumn], str]:
    """The columns whose name or comment holds every term, and the better of the two reasons."""
    matched: list[MatchedColumn] = []
    by_name = False
    for column in columns:
        named, commented = _in(terms, column.get("Name")), _in(terms, column.get("Comment"))
        if not (named or commented):
            continue
        by_name = by_name or named
        entry = MatchedColumn(name=column["Name"], type=column.get("Type"))
        if column.get("Comment"):
            entry["comment"] = _cut(column["Comment"], COMMENT_CHARS) or ""
        matched.append(entry)
    return matched, "column" if by_name else "comment"


def table_hit(raw: Mapping[str, Any], q: str, terms: Sequence[str], home_account: str | None,
              catalog: str = GLUE_CATALOG) -> TableHit:
    descriptor = raw.get("StorageDescriptor") or {}
    database, name = raw.get("DatabaseName", ""), raw["Name"]
    columns, column_reason = _column_matches(terms, [*(descriptor.get("Columns") or []),
                                                      *(raw.get("PartitionKeys") or [])])
    if name.lower() == q.strip().strip('"').lower():
        reason = "exact name"
    elif _in(terms, name):
        reason = "name"
    elif columns:
        reason = column_reason
    elif _in(terms, raw.get("Description")):
        reason = "description"
    else:
        reason = "other"
    hit = TableHit(kind="table", catalog=catalog, database=database, table=name, matched=reason,
                   description=_cut(raw.get("Description"), DESCRIPTION_CHARS), format=table_format(raw),
                   location=descriptor.get("Location"),
                   partition_keys=[k["Name"] for k in raw.get("PartitionKeys") or []])
    if columns:
        hit["columns"] = columns[:MATCHED_COLUMNS]
        if len(columns) > MATCHED_COLUMNS:
            hit["columns_matched"] = len(columns)
    owner = raw.get("CatalogId")
    if catalog != GLUE_CATALOG:  # a catalog SearchTables does not index: read by the URI naming it
        hit["uri"] = in_current(f"{tables_uri(catalog, database)}/{name}")
    elif owner and home_account and owner != home_account:
        hit["owner"] = owner  # shared from another account: read it there (?account=) or through a resource link
    else:
        hit["uri"] = in_current(f"athena://databases/{database}/tables/{name}")  # read where it was found
        hit["explain"] = in_current(table_uri(database, name))
    if target := raw.get("TargetTable"):
        hit["link_to"] = {"account": target.get("CatalogId", ""), "database": target.get("DatabaseName", ""),
                          "table": target.get("Name", "")}
    return hit


def query_hit(saved: NamedQuery, terms: Sequence[str], q: str) -> QueryHit | None:
    if saved["name"].lower() == q.strip().strip('"').lower():
        reason = "exact name"
    elif _in(terms, saved["name"]):
        reason = "name"
    elif _in(terms, saved["description"]):
        reason = "description"
    elif _in(terms, saved["sql"]):
        reason = "sql"
    else:
        return None
    return QueryHit(kind="named_query", id=saved["id"], name=saved["name"], matched=reason,
                    description=_cut(saved["description"], DESCRIPTION_CHARS), workgroup=saved["workgroup"],
                    database=saved["database"], sql=_cut(saved["sql"], SQL_CHARS) or "")


def _rank(hit: TableHit | QueryHit) -> tuple[int, int, str, str, str]:
    name = hit["table"] if hit["kind"] == "table" else hit["name"]  # type: ignore[typeddict-item]
    return (RANKS[hit["matched"]], hit["kind"] != "table", str(hit.get("catalog") or ""),
            str(hit.get("database") or ""), name)


def s3_table_hits(listed: Listed, q: str, terms: Sequence[str], room: int) -> tuple[list[TableHit], bool]:
    """The S3 Tables catalogs' tables that match, at most `room` (what SearchTables' hits leave of MAX_HITS)."""
    found = [table_hit(raw, q, terms, None, catalog) for catalog, raw in listed["tables"] if matches(raw, terms)]
    return found[:room], len(found) > room


@registry.resource(
    SEARCH_URI,
    name="athena-search",
    title="Search the catalog",
    description="Find the data about something in one read: Glue SearchTables as you over table names, "
    "descriptions, column names and column comments (tables shared with your account included, their owner said; "
    "?database= to narrow; quote a phrase), plus the deployment's saved queries. Each hit: database, table, why it "
    "matched and the columns that did, description, format, location, partition keys, and links to the table and "
    "its access explainer; an exact name first, then names, columns, comments and descriptions. S3 Tables catalogs "
    "(which SearchTables does not index) are listed beside it and matched by the same words, each hit naming its "
    "catalog. No match: an empty list.",
    requires="auth",
    aws_calls=["glue:SearchTables", "athena:ListNamedQueries", "athena:BatchGetNamedQuery",
               "s3tables:ListTableBuckets", "glue:GetDatabases", "glue:GetTables"],
    list_field="hits",
    query_params=["q", "database"],
    completions={"database": complete_database},
    example="athena://search?q=email",
)
def search(request: ResourceRequest) -> Search:
    """SearchTables beside the saved queries of the deployment's query workgroups; each hit ranked by why."""
    q, database = checked_query(request.query)
    terms = terms_of(q)
    glue = request.client("glue")
    workgroups = list(request.settings.query_workgroups) or [request.settings.default_workgroup]
    parts = side_by_side(
        request,
        tables=[Call("glue:SearchTables", lambda: search_tables(glue, q, database))],
        saved=[Call("athena:ListNamedQueries", lambda: named_queries_in(request, workgroups))],
        s3_tables=[Call("s3tables:ListTableBuckets", lambda: listed_tables(request, database))],
    )
    found = parts["tables"][0]
    if found.error is not None:
        raise found.error  # no tables searched: the search has no answer
    tables, more = found.value
    saved = parts["saved"][0]
    queries, failures = saved.value if saved.error is None else ([], [("*", saved.error)])
    hits: list[TableHit | QueryHit] = [table_hit(raw, q, terms, request.caller.account) for raw in tables]
    listed, catalog_errors = _s3_tables(parts["s3_tables"][0])
    found_s3, more_s3 = s3_table_hits(listed, q, terms, MAX_HITS - len(hits))
    hits += found_s3
    if database is None:
        hits += [hit for hit in (query_hit(s, terms, q) for s in queries) if hit is not None]
    else:
        hits += [hit for hit in (query_hit(s, terms, q) for s in queries if s["database"] == database)
                 if hit is not None]
    errors: list[dict[str, Any]] = [dict(e) for e in workgroup_errors(failures)]
    return Search(q=q, database=database, more=more or more_s3, named_queries_searched=workgroups,
                  named_query_errors=errors, catalogs_searched=[GLUE_CATALOG, *listed["catalogs"]],
                  catalog_errors=catalog_errors, not_integrated=listed["not_integrated"], run_saved_query=RUN_WITH,
                  hits=sorted(hits, key=_rank))


def _s3_tables(outcome: Any) -> tuple[Listed, list[dict[str, Any]]]:
    """What the S3 Tables listing found, and its errors (the whole listing's: its table buckets could not be read)."""
    if outcome.error is not None:
        return Listed(catalogs=[], tables=[], errors=[], not_integrated=[]), [
            {"catalog": "s3tablescatalog", "database": None, "error": outcome.error.brief()}]
    listed: Listed = outcome.value
    return listed, [dict(e) for e in listed["errors"]]



