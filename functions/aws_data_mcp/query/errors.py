"""Why a query did not succeed, as an error the agent can act on, whoever shows it (the tool, the query's URI, the
history): Athena's own classification (AthenaError's category, type and Retryable; its error catalog), the
engine's error name and where in the statement, and what to do next that fits the error.

Only the caller's statement is blamed on the caller (`invalid_argument`). The data (a file that is not what its
table declares) and Athena itself are upstream failures, retryable where Athena says so. No message carries a
local filesystem path: Athena's messages name S3 objects, and anything else that looks like a path is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.uris import BUCKET_URI, explainer_in, table_uri
from aws_data_mcp.query.s3_tables_fix import s3_tables_fix

CATEGORIES = {1: "SYSTEM", 2: "USER", 3: "OTHER"}
"""AthenaError.ErrorCategory."""
USER = 2
DATA_ERROR_TYPES = frozenset({1001, 1002, 1007})
"""AthenaError.ErrorType "Data error" in Athena's error catalog."""
PERMISSION_ERROR_TYPES = frozenset({234, 1500, 1501})
"""Lake Formation error, permission error, Amazon S3 permission error."""
DATA_ERROR_NAMES = frozenset({"HIVE_BAD_DATA", "HIVE_CURSOR_ERROR", "HIVE_CANNOT_OPEN_SPLIT",
                              "HIVE_PARTITION_SCHEMA_MISMATCH", "HIVE_INVALID_PARTITION_VALUE"})
"""The engine's names for data it could not read as its table declares."""
SYSTEM_ERROR_NAMES = frozenset({"GENERIC_INTERNAL_ERROR", "INTERNAL_ERROR", "GENERIC_INSUFFICIENT_RESOURCES",
                                "EXCEEDED_TIME_LIMIT"})
# Patterns, not compiled ones: `re` compiles each on its first failed query (and keeps it), not on every cold start.
_CUTOFF = r"(?i)bytes scanned limit"
_DENIED = (r"(?i)access denied|accessdenied|permission denied|not authorized|insufficient permissions|"
           r"insufficient lake formation permission")
_ACTION = r"\b(s3tables|s3|glue|athena|kms|lakeformation):([A-Za-z]+)\b"
_ERROR_NAME = r"^\s*([A-Z][A-Z0-9_]+):\s*"
"""Trino's error name before its message (COLUMN_NOT_FOUND: line 1:8: ...)."""
_POSITION = r"\bline (\d+):(\d+)\b"
_S3_OBJECT = r"s3a?://[^\s'\"(),\[\]]+"
_TABLE = r"\btable '?\"?([\w-]+\.[\w-]+)\b"
_FILE_FORMAT = r"(?i)footer|malformed|corrupt|magic|not a (?:gzip|parquet|orc)|compress|schema mismatch"
"""A GENERIC_INTERNAL_ERROR about a file's bytes (e.g. "Footer length error in file ..."): a data error."""
_LOCAL_PATH = r"(?<![\w:/.~+@-])(?:/(?:[\w.@~+-]+/)+[\w.@~+-]*|[A-Za-z]:\\[^\s'\"]+)"
"""A POSIX path of two or more parts, or a Windows path; an S3 URI's slashes follow `:` or a name, never this."""
LOCAL_PATH_MARK = "<local path>"

_USER_HINTS = {
    "SYNTAX_ERROR": "Fix the statement's syntax where Athena says (line:column): Athena engine v3 reads Trino SQL.",
    "COLUMN_NOT_FOUND": "A column Athena cannot resolve where it says (line:column), or one you may not read: "
                        "check its spelling against athena://databases/{database}/tables/{table}, which lists the "
                        "table's columns and marks those Lake Formation does not let you read.",
    "TABLE_NOT_FOUND": "A table Athena cannot find: athena://databases/{database}/tables lists the tables.",
    "SCHEMA_NOT_FOUND": "A database Athena cannot find: athena://databases lists the databases.",
    "FUNCTION_NOT_FOUND": "Athena (Trino) has no such function for these argument types: see the Trino functions "
                          "of Athena engine v3.",
    "TYPE_MISMATCH": "Values of types that do not go together where Athena says: cast one of them.",
    "INVALID_CAST_ARGUMENT": "A value that cannot be cast as asked: try_cast() gives null instead of failing.",
}
_USER_HINT = "Change the statement as Athena's reason says."


class AthenaErrorInfo(TypedDict):
    """What Athena says of a failure: AthenaError's fields, and what its message names."""

    category: str | None
    """SYSTEM, USER or OTHER (AthenaError.ErrorCategory)."""
    type: int | None
    """AthenaError.ErrorType (Athena's error catalog)."""
    retryable: bool | None
    name: str | None
    """The engine's error name: SYNTAX_ERROR, COLUMN_NOT_FOUND, HIVE_BAD_DATA, ..."""
    line: int | None
    column: int | None
    table: str | None
    file: str | None
    """The S3 object the message names (a data error's file)."""


class QueryError(TypedDict):
    """`ResourceFailure.payload()` of a query that did not succeed, with what Athena said of it."""

    error: str
    message: str
    details: list[str]
    retryable: bool
    action: NotRequired[str]
    explain: NotRequired[str]
    """The permissions:// explainer of the table or bucket concerned (a denial's; a hidden column's table)."""
    athena: AthenaErrorInfo


def scrubbed(text: str | None) -> str | None:
    """`text` without local filesystem paths (an engine's temporary files); S3 URIs stay."""
    return re.sub(_LOCAL_PATH, LOCAL_PATH_MARK, text) if text else text


def stopped_by_cutoff(execution: Mapping[str, Any]) -> bool:
    """Athena stopped the query at the workgroup's bytes-scanned cutoff (it reports it CANCELLED or FAILED)."""
    return bool(re.search(_CUTOFF, (execution.get("Status") or {}).get("StateChangeReason") or ""))


def athena_error(execution: Mapping[str, Any]) -> AthenaErrorInfo:
    status = execution.get("Status") or {}
    error = status.get("AthenaError") or {}
    reason = scrubbed(status.get("StateChangeReason") or error.get("ErrorMessage")) or ""
    name, position = re.match(_ERROR_NAME, reason), re.search(_POSITION, reason)
    table, file = re.search(_TABLE, reason), re.search(_S3_OBJECT, reason)
    return AthenaErrorInfo(
        category=CATEGORIES.get(error.get("ErrorCategory")), type=error.get("ErrorType"),
        retryable=error.get("Retryable"), name=name.group(1) if name else None,
        line=int(position.group(1)) if position else None, column=int(position.group(2)) if position else None,
        table=table.group(1) if table else None, file=file.group(0) if file else None)


def query_failure(execution: Mapping[str, Any], cutoff_bytes: int | None = None) -> ResourceFailure | None:
    """Why the query did not succeed, or None: it succeeded, has not ended, or its caller cancelled it."""
    status = execution.get("Status") or {}
    state = status.get("State")
    if not (state == "FAILED" or stopped_by_cutoff(execution)):
        return None
    reason = scrubbed(status.get("StateChangeReason")) or "Athena gave no reason"
    info = athena_error(execution)
    query_id = execution.get("QueryExecutionId", "")
    if stopped_by_cutoff(execution):
        return _over_cutoff(execution, reason, cutoff_bytes)
    if _is_denial(info, reason):
        action = re.search(_ACTION, reason)
        explain, candidates = _denial_explainer(reason, execution)
        return ResourceFailure(
            ErrorCode.ACCESS_DENIED, f"Athena was denied while running query {query_id}: {reason}",
            details=["Ask for the permission named here on the table's data, its catalog entry or the results "
                     "location; the query ran as you.",
                     *([f"Read {explain}: each link of the chain, checked as you, with the fix to copy."]
                       if explain else []),
                     *([f"Read the explainer of the table whose location holds the path named: "
                        f"{', '.join(candidates)}."] if candidates else []),
                     *s3_tables_fix(reason, (execution.get("QueryExecutionContext") or {}).get("Database"),
                                    execution.get("Query"))],
            action=f"{action.group(1)}:{action.group(2)}" if action else None, retry=False, explain=explain)
    if _is_data_error(info, reason):
        return _data_error(info, reason, query_id)
    if info["name"] in SYSTEM_ERROR_NAMES or info["category"] in ("SYSTEM", "OTHER"):
        return _upstream(info, reason, query_id)
    if info["name"] == "COLUMN_NOT_FOUND":
        return _column_not_found(reason, execution)
    if info["category"] == "USER" or info["name"] or info["line"]:
        return ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Athena refused the statement: {reason}",
                               details=[_USER_HINTS.get(info["name"] or "", _USER_HINT)], retry=False)
    return _upstream(info, reason, query_id)


_CTE_NAME = r'(?i)(?:\bWITH\s+(?:RECURSIVE\s+)?|,\s*)"?([\w-]+)"?\s*(?:\([^()]*\)\s*)?AS\s*\('
"""A WITH clause's name (`WITH recent AS (`, `, totals (a, b) AS (`): a name the statement defines, not a table."""


def _tables_read(execution: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The tables the statement reads, as (database, table): the guard's reading of it (no AWS call), an
    unqualified name in the query's database, a WITH clause's names left out."""
    from aws_data_mcp.guard.read_only import read_only_statement  # the parser: after a refusal, not at a cold start

    try:
        relations = read_only_statement(execution.get("Query") or "").relations
    except ResourceFailure:
        return []
    database = (execution.get("QueryExecutionContext") or {}).get("Database")
    defined = {name.lower() for name in re.findall(_CTE_NAME, execution.get("Query") or "")}
    found: list[tuple[str, str]] = []
    for relation in relations:
        *owner, table = relation.split(".")
        if (owner or database) and not (not owner and table in defined):
            entry = (owner[-1] if owner else str(database), table)
            found += [entry] if entry not in found else []
    return found


def _denial_explainer(reason: str, execution: Mapping[str, Any]) -> tuple[str | None, list[str]]:
    """The explainer of the refusal, and where it cannot be told which table the query read an S3 path of, each
    table's explainer to choose from. A Glue table or Lake Formation refusal names its table. An S3 path is one of a
    table the query read (or its results location): its table's explainer checks that location's objects and the
    workgroup's results; a bucket's explainer would sample another prefix of the bucket and may contradict it."""
    explain = explainer_in(reason, (execution.get("QueryExecutionContext") or {}).get("Database"),
                           execution.get("Query"))
    tables = _tables_read(execution)
    if explain is None or not explain.startswith(BUCKET_URI.format("")) or not tables:
        return explain, []
    path = re.search(_S3_OBJECT, reason)
    segments = {part.lower() for part in (path.group(0) if path else "").split("/")}
    named = [entry for entry in tables if entry[1].lower() in segments]  # Hive's layout: .../<table>/<file>
    if len(tables) == 1 or len(named) == 1:
        return table_uri(*(tables[0] if len(tables) == 1 else named[0])), []
    return None, [table_uri(database, table) for database, table in tables]


_COLUMN = r"Column '(?:([\w-]+)\.)?[\w-]+'"
_TABLE_REFERENCE = (r'(?i)\b(?:FROM|JOIN)\s+(?:"?([\w-]+)"?\s*\.\s*)?"?([\w-]+)"?'
                    r'(?:\s+(?:AS\s+)?"?(?!(?:WHERE|JOIN|ON|GROUP|ORDER|LIMIT|UNION|LEFT|RIGHT|INNER|FULL|CROSS)\b)'
                    r'([\w-]+)"?)?')


def _column_table(reason: str, execution: Mapping[str, Any]) -> tuple[str, str] | None:
    """The table (database, name) of the column Athena could not resolve: the one its qualifier (an alias or a
    table's name) names in the statement, else the statement's only table; None where the text does not say."""
    column = re.search(_COLUMN, reason)
    database = (execution.get("QueryExecutionContext") or {}).get("Database")
    tables = {(owner or database, name, alias or name)
              for owner, name, alias in re.findall(_TABLE_REFERENCE, execution.get("Query") or "")}
    qualifier = column.group(1) if column else None
    named = [t for t in tables if qualifier and qualifier.lower() in (t[2].lower(), t[1].lower())]
    candidates = named or ([] if qualifier else list(tables))
    if len({(owner, name) for owner, name, _ in candidates}) != 1 or not candidates[0][0]:
        return None
    return candidates[0][0], candidates[0][1]


def _column_not_found(reason: str, execution: Mapping[str, Any]) -> ResourceFailure:
    """A column that does not exist or that the caller may not read (Athena says the same of both), with the
    table's resource, which marks the columns the caller may not read, and its explainer."""
    found = _column_table(reason, execution)
    if found is None:
        return ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Athena refused the statement: {reason}",
                               details=[_USER_HINTS["COLUMN_NOT_FOUND"]], retry=False)
    database, table = found
    explain = table_uri(database, table)
    return ResourceFailure(
        ErrorCode.INVALID_ARGUMENT, f"Athena refused the statement: {reason}",
        details=[f"A column Athena cannot resolve where it says (line:column), or one you may not read: check its "
                 f"spelling against athena://databases/{database}/tables/{table}, which lists the table's columns "
                 f"and marks those Lake Formation does not let you read; {explain} explains, link by link, what you "
                 "may read of it."],
        retry=False, explain=explain)


def query_error(execution: Mapping[str, Any], cutoff_bytes: int | None = None) -> QueryError | None:
    """`query_failure` as a query's answer carries it, beside its state and cost."""
    failure = query_failure(execution, cutoff_bytes)
    if failure is None:
        return None
    return QueryError(**failure.payload(), athena=athena_error(execution))  # type: ignore[typeddict-item]


def _is_denial(info: AthenaErrorInfo, reason: str) -> bool:
    """Athena words a missing column or table "cannot be resolved or requester is not authorized": its name
    (COLUMN_NOT_FOUND) says it is a name to fix, not a permission."""
    if info["type"] in PERMISSION_ERROR_TYPES:
        return True
    return bool(re.search(_DENIED, reason)) and not (info["name"] or "").endswith("_NOT_FOUND")


def _is_data_error(info: AthenaErrorInfo, reason: str) -> bool:
    if info["name"] in DATA_ERROR_NAMES or info["type"] in DATA_ERROR_TYPES:
        return True
    return info["name"] in SYSTEM_ERROR_NAMES and info["file"] is not None and bool(re.search(_FILE_FORMAT, reason))


def _over_cutoff(execution: Mapping[str, Any], reason: str, cutoff_bytes: int | None) -> ResourceFailure:
    scanned = (execution.get("Statistics") or {}).get("DataScannedInBytes")
    limit = f"{cutoff_bytes:,} bytes" if cutoff_bytes else "its cutoff"
    return ResourceFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"The query would scan more than workgroup {execution.get('WorkGroup')!r} allows per query ({limit}); "
        f"Athena stopped it after {scanned or 0:,} bytes, which it bills (see statistics): {reason}",
        details=["Scan less: filter on the table's partition columns, select only the columns you need, or "
                 "query a smaller table; estimate_only=true asks Athena what a query would scan.",
                 "The cutoff is the operator's (the workgroup's BytesScannedCutoffPerQuery), not a tool argument."],
        retry=False)


def _data_error(info: AthenaErrorInfo, reason: str, query_id: str) -> ResourceFailure:
    where = " ".join(part for part in (f"table {info['table']}" if info["table"] else "",
                                       f"file {info['file']}" if info["file"] else "") if part)
    return ResourceFailure(
        ErrorCode.UPSTREAM_UNAVAILABLE,
        f"Athena could not read the data of query {query_id}{f' ({where})' if where else ''}: {reason}",
        details=["The data is at fault, not the statement: a file is not in the format, compression or schema "
                 "its table declares (athena://databases/{database}/tables/{table} shows what it declares).",
                 "Its owner must fix the file or the table's definition; other tables and partitions still answer."],
        retry=bool(info["retryable"]))


def _upstream(info: AthenaErrorInfo, reason: str, query_id: str) -> ResourceFailure:
    retry = info["retryable"] if info["retryable"] is not None else info["category"] != "USER"
    advice = ("Athena failed on its side: run the query again later." if retry else
              "Athena says running it again would fail the same way: change the query or ask the account's "
              "operator about the error.")
    return ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, f"Athena failed query {query_id}: {reason}",
                           details=[advice], retry=retry)
