"""What moto lacks for searching a catalog: Glue SearchTables and Athena BatchGetNamedQuery.

SearchTables matches every word over names, descriptions, columns and comments, ignoring case.
Like AWS, it answers only the tables the caller may read.
GetNamedQuery refuses an unknown id as Athena does, and answers as before for the rest.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from moto.athena.responses import AthenaResponse
from moto.core.exceptions import JsonRESTError
from moto.glue.models import glue_backends
from moto.glue.responses import GlueResponse

from aws_data_mcp_demo.access.decisions import Caller, CallerAccess, caller_of, decide
from aws_data_mcp_demo.access.lake_formation import shared_with
from aws_data_mcp_demo.emulator.patch import Extension
from aws_data_mcp_demo.engine.query import QueryFailure

SEARCH_PAGE_LIMIT = 1_000
"""SearchTables' MaxResults at most (AWS's maximum); tests lower it to make paging visible."""
_FILTER_FIELDS = {"DatabaseName": "DatabaseName", "TableName": "Name", "Description": "Description"}


def _terms(text: str) -> list[str]:
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.replace('"', " ").split()
    return [word.lower() for word in words if word.strip()]


def _searchable(table: Mapping[str, Any]) -> str:
    descriptor = table.get("StorageDescriptor") or {}
    columns = [*(descriptor.get("Columns") or []), *(table.get("PartitionKeys") or [])]
    parts = [table.get("Name"), table.get("Description"),
             *(part for column in columns for part in (column.get("Name"), column.get("Comment")))]
    return "\n".join(str(part) for part in parts if part).lower()


def _tables(account: str, region: str, share: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(owner, table) of what a search of `account` covers: its own tables, and/or those shared with it."""
    if share in ("LOCAL", "ALL"):
        for database in glue_backends[account][region].databases.values():
            for table in database.tables.values():
                yield account, table.as_dict()
    if share not in ("FOREIGN", "ALL"):
        return
    for owner in list(glue_backends):
        if owner == account or region not in glue_backends[owner]:
            continue
        shared = shared_with(account, owner, region)
        for database in glue_backends[owner][region].databases.values() if shared else ():
            for table in database.tables.values():
                if (database.name, table.name) in shared or (database.name, "*") in shared:
                    yield owner, table.as_dict()


def _matches(table: Mapping[str, Any], terms: Sequence[str], filters: Sequence[Mapping[str, Any]]) -> bool:
    for condition in filters:
        field = _FILTER_FIELDS.get(condition.get("Key", ""))
        if field is None or condition.get("Comparator", "EQUALS") != "EQUALS":
            raise JsonRESTError("InvalidInputException",
                                f"Unsupported search filter: {condition.get('Key')} {condition.get('Comparator')}")
        if str(table.get(field) or "") != str(condition.get("Value") or ""):
            return False
    text = _searchable(table)
    return all(term in text for term in terms)


def _visible(caller: Caller, region: str, catalog_arn: str, table: Mapping[str, Any]) -> bool:
    """Whether SearchTables shows `table` to `caller`: IAM's glue:GetTable on it, and, where its location is Lake
    Formation's, a grant on some of its columns (AWS: search results respect Lake Formation)."""
    database, name = table["DatabaseName"], table["Name"]
    if not decide(caller, "glue:GetTable", f"{catalog_arn}:table/{database}/{name}").allowed:
        return False
    if not catalog_arn.endswith(f":{caller.account_id}") or not (table.get("StorageDescriptor") or {}).get("Location"):
        return True
    try:
        CallerAccess(caller, region, database).columns(database, name, table)
    except QueryFailure:
        return False
    return True


def _glue_search_tables(self: GlueResponse) -> str:
    parameters = self.parameters
    share = parameters.get("ResourceShareType") or "LOCAL"
    terms = _terms(parameters.get("SearchText") or "")
    filters = parameters.get("Filters") or []
    caller = caller_of(self)
    head = f"arn:{self.partition}:glue:{self.region}"
    found = []
    for owner, table in _tables(self.current_account, self.region, share):
        if not _matches(table, terms, filters):
            continue
        if caller is not None and not _visible(caller, self.region, f"{head}:{owner}", table):
            continue
        found.append({**table, "CatalogId": owner})
    found.sort(key=lambda t: (t["CatalogId"], t["DatabaseName"], t["Name"]))
    try:
        start = int(parameters.get("NextToken") or 0)
    except ValueError:
        raise JsonRESTError("InvalidInputException", "Invalid NextToken for SearchTables") from None
    end = start + min(int(parameters.get("MaxResults") or SEARCH_PAGE_LIMIT), SEARCH_PAGE_LIMIT)
    page = {"TableList": found[start:end], **({"NextToken": str(end)} if end < len(found) else {})}
    return json.dumps(page, default=lambda value: value.timestamp() if hasattr(value, "timestamp") else str(value))


def _named_query(query: Any) -> dict[str, Any]:
    return {"Name": query.name, "Description": query.description, "Database": query.database,
            "QueryString": query.query_string, "NamedQueryId": query.id, "WorkGroup": query.workgroup.name}


def _athena_batch_get_named_query(self: AthenaResponse) -> str:
    ids = self._get_param("NamedQueryIds") or []
    if not 1 <= len(ids) <= 50:
        raise JsonRESTError("InvalidRequestException", "NamedQueryIds must hold 1 to 50 ids")
    known = self.athena_backend.named_queries
    return json.dumps({
        "NamedQueries": [_named_query(known[i]) for i in ids if i in known],
        "UnprocessedNamedQueryIds": [{"NamedQueryId": i, "ErrorCode": "INVALID_INPUT",
                                      "ErrorMessage": "Named query not found"} for i in ids if i not in known],
    })


def _athena_get_named_query(self: AthenaResponse) -> str:
    query_id = self._get_param("NamedQueryId")
    found = self.athena_backend.named_queries.get(query_id)
    if found is None:
        raise JsonRESTError("InvalidRequestException", f"NamedQuery {query_id} was not found")
    return json.dumps({"NamedQuery": _named_query(found)})


SEARCH: tuple[Extension, ...] = (
    Extension(GlueResponse, "search_tables", _glue_search_tables),
    Extension(AthenaResponse, "batch_get_named_query", _athena_batch_get_named_query),
    Extension(AthenaResponse, "get_named_query", _athena_get_named_query),
)
"""SearchTables and BatchGetNamedQuery (moto has neither), and an unknown GetNamedQuery's refusal."""
