"""SHOW and DESCRIBE in the demo's Athena, answered from the emulated Glue catalog (demo, tests).

Athena runs these in its Hive-based DDL engine, so the answer takes Hive's shape. It is one varchar
column named as Hive names it, with no header row. DESCRIBE pads its fields to 20 characters
(docs/demo.md). The caller's rights apply as for a query. Every form the guard accepts is answered,
except SHOW FUNCTIONS.
"""

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from moto.glue.models import FakeTable, glue_backends

from aws_data_mcp_demo.engine.query import Access, ColumnInfo, QueryFailure, QueryResult

_NAME = r'(?:"[^"]+"|`[^`]+`|[A-Za-z_][\w-]*)'
_QUALIFIED = rf"{_NAME}(?:\s*\.\s*{_NAME}){{0,2}}"
_STRING = r"'((?:[^']|'')*)'"
_FORMS: list[tuple[str, re.Pattern[str]]] = [(kind, re.compile(pattern, re.IGNORECASE | re.DOTALL))
                                             for kind, pattern in [
    ("tables", rf"SHOW\s+TABLES(?:\s+(?:IN|FROM)\s+(?P<db>{_QUALIFIED}))?(?:\s+(?:LIKE\s+)?{_STRING})?"),
    ("databases", rf"SHOW\s+(?:DATABASES|SCHEMAS)(?:\s+(?:IN|FROM)\s+{_NAME})?(?:\s+LIKE\s+{_STRING})?"),
    ("views", rf"SHOW\s+VIEWS(?:\s+(?:IN|FROM)\s+(?P<db>{_QUALIFIED}))?(?:\s+LIKE\s+{_STRING})?"),
    ("columns", rf"SHOW\s+COLUMNS\s+(?:IN|FROM)\s+(?P<table>{_QUALIFIED})(?:\s+(?:IN|FROM)\s+(?P<db>{_QUALIFIED}))?"),
    ("partitions", rf"SHOW\s+PARTITIONS\s+(?P<table>{_QUALIFIED})"),
    ("create_table", rf"SHOW\s+CREATE\s+TABLE\s+(?P<table>{_QUALIFIED})"),
    ("create_view", rf"SHOW\s+CREATE\s+VIEW\s+(?P<table>{_QUALIFIED})"),
    ("tblproperties", rf"SHOW\s+TBLPROPERTIES\s+(?P<table>{_QUALIFIED})(?:\s*\(\s*{_STRING}\s*\))?"),
    ("functions", r"SHOW\s+FUNCTIONS\b.*"),
    ("describe", rf"DESC(?:RIBE)?(?:\s+(?:EXTENDED|FORMATTED))?\s+(?P<table>{_QUALIFIED})"
                 r"(?:\s+PARTITION\s*\([^)]*\))?(?:\s+(?P<column>[\w.]+))?"),
]]
_COMMENTS = re.compile(r"--[^\r\n]*")
_COLUMN_NAMES = {"tables": "tab_name", "databases": "database_name", "views": "views", "columns": "field",
                 "partitions": "partition", "create_table": "createtab_stmt", "create_view": "createtab_stmt",
                 "tblproperties": "prpt_name", "describe": "col_name"}
_ALIGN = 20
"""Hive's DESCRIBE pads each field to this width."""


def is_metadata(sql: str) -> bool:
    """Whether the statement is SHOW or DESCRIBE (the guard has accepted its form)."""
    return re.match(r"\s*(?:SHOW|DESC|DESCRIBE)\b", _COMMENTS.sub("", sql or ""), re.IGNORECASE) is not None


def _names(text: str) -> list[str]:
    return [part.strip().strip('"`').lower() for part in re.findall(_NAME, text)]


def _like(pattern: str | None) -> Callable[[str], bool]:
    """Hive's SHOW pattern: ``*`` any characters, ``|`` alternatives, case-insensitive."""
    if pattern is None:
        return lambda _: True
    alternatives = [re.escape(part.strip()).replace(r"\*", ".*") for part in pattern.replace("''", "'").split("|")]
    compiled = re.compile(rf"(?:{'|'.join(alternatives)})\Z", re.IGNORECASE)
    return lambda name: compiled.match(name) is not None


def _aligned(*fields: str) -> str:
    return "\t".join(field.ljust(_ALIGN) for field in fields)


class _Catalog:
    """The statement's reads of the Glue catalog, as the caller."""

    def __init__(self, account_id: str, region: str, database: str | None, access: Access | None) -> None:
        self.glue = glue_backends[account_id][region]
        self.database = (database or "default").lower()
        self.access = access

    def table(self, qualified: str, database: str | None = None) -> tuple[FakeTable, dict[str, Any], set[str] | None]:
        parts = _names(qualified)
        if parts[0] == "awsdatacatalog" and len(parts) == 3:
            parts = parts[1:]
        schema, name = (parts[0], parts[1]) if len(parts) == 2 else (database or self.database, parts[-1])
        if self.access is not None:
            self.access.catalog(schema, name, partitioned=False)
        try:
            found: FakeTable = self.glue.get_table(schema, name)
        except Exception:  # moto's EntityNotFound
            raise QueryFailure(f"FAILED: SemanticException [Error 10001]: Table not found {schema}.{name}",
                               error_type=1000) from None
        definition = found.as_dict()
        readable = self.access.columns(schema, found.name, definition) if self.access is not None else None
        return found, definition, set(readable) if readable is not None else None


Fields = list[dict[str, Any]]


def _columns(definition: dict[str, Any], readable: set[str] | None) -> tuple[Fields, Fields]:
    keep = [c for c in definition["StorageDescriptor"]["Columns"] if readable is None or c["Name"] in readable]
    keys = [k for k in definition.get("PartitionKeys") or [] if readable is None or k["Name"] in readable]
    return keep, keys


def _describe(definition: dict[str, Any], readable: set[str] | None, column: str | None) -> list[str]:
    columns, keys = _columns(definition, readable)
    if column is not None:
        chosen = [c for c in [*columns, *keys] if c["Name"].lower() == column.lower()]
        if not chosen:
            raise QueryFailure(f"FAILED: SemanticException [Error 10002]: Invalid column reference {column}",
                               error_type=1000)
        return [_aligned(c["Name"], c["Type"], c.get("Comment") or "from deserializer") for c in chosen]
    rows = [_aligned(c["Name"], c["Type"], c.get("Comment") or "") for c in [*columns, *keys]]
    if keys:
        rows += ["", "# Partition Information", _aligned("# col_name", "data_type", "comment"), ""]
        rows += [_aligned(k["Name"], k["Type"], k.get("Comment") or "") for k in keys]
    return rows


def _create_table(schema: str, definition: dict[str, Any], readable: set[str] | None) -> list[str]:
    columns, keys = _columns(definition, readable)
    descriptor = definition["StorageDescriptor"]
    serde = descriptor.get("SerdeInfo") or {}

    def listed(fields: list[dict[str, Any]]) -> list[str]:
        return [f"  `{c['Name']}` {c['Type']}" + (f" COMMENT '{c['Comment']}'" if c.get("Comment") else "")
                + ("," if index < len(fields) - 1 else "") for index, c in enumerate(fields)]

    rows = [f"CREATE EXTERNAL TABLE `{schema}`.`{definition['Name']}`(", *listed(columns), ")"]
    if definition.get("Description"):
        rows.append(f"COMMENT '{definition['Description']}'")
    if keys:
        rows += ["PARTITIONED BY ( ", *listed(keys), ")"]
    rows += ["ROW FORMAT SERDE ", f"  '{serde.get('SerializationLibrary', '')}' "]
    if serde.get("Parameters"):
        rows += ["WITH SERDEPROPERTIES ( ", *(f"  '{k}'='{v}'," for k, v in sorted(serde["Parameters"].items()))]
        rows[-1] = rows[-1].rstrip(",") + ") "
    rows += ["STORED AS INPUTFORMAT ", f"  '{descriptor.get('InputFormat', '')}' ", "OUTPUTFORMAT ",
             f"  '{descriptor.get('OutputFormat', '')}'", "LOCATION", f"  '{descriptor.get('Location', '')}'"]
    properties = sorted((definition.get("Parameters") or {}).items())
    if properties:
        rows += ["TBLPROPERTIES ("]
        rows += [f"  '{k}'='{v}'" + ("," if i < len(properties) - 1 else ")") for i, (k, v) in enumerate(properties)]
    return rows


def _rows(kind: str, found: re.Match[str], catalog: _Catalog) -> list[str]:
    strings = [g for g in found.groups()[-1:] if g is not None]
    pattern = strings[0] if kind in ("tables", "databases", "views") and strings else None
    if kind == "databases":
        return sorted(name for name in catalog.glue.databases if _like(pattern)(name))
    if kind in ("tables", "views"):
        schema = _names(found.group("db"))[-1] if found.group("db") else catalog.database
        if schema not in catalog.glue.databases:
            raise QueryFailure(f"FAILED: SemanticException [Error 10072]: Database does not exist: {schema}",
                               error_type=1000)
        tables = catalog.glue.databases[schema].tables
        wanted = "VIRTUAL_VIEW" if kind == "views" else None
        return sorted(name for name, table in tables.items() if _like(pattern)(name)
                      and (wanted is None or table.as_dict().get("TableType") == wanted))
    if kind == "functions":
        raise QueryFailure("NOT_SUPPORTED: the demo account's Athena does not list its functions (SHOW FUNCTIONS); "
                           "see the Trino functions of Athena engine v3", error_type=1000)
    database = _names(found.group("db"))[-1] if "db" in found.groupdict() and found.group("db") else None
    table, definition, readable = catalog.table(found.group("table"), database)
    if kind == "columns":
        columns, keys = _columns(definition, readable)
        return [c["Name"] for c in [*columns, *keys]]
    if kind == "partitions":
        names = [k["Name"] for k in definition.get("PartitionKeys") or []]
        if not names:
            raise QueryFailure(f"FAILED: SemanticException Table {table.name} is not a partitioned table",
                               error_type=1000)
        return sorted("/".join(f"{k}={v}" for k, v in zip(names, p.values, strict=True))
                      for p in table.partitions.values())
    if kind == "create_view":
        raise QueryFailure(f"FAILED: SemanticException {table.name} is not a view", error_type=1000)
    if kind == "create_table":
        return _create_table(table.database_name, definition, readable)
    if kind == "tblproperties":
        properties = definition.get("Parameters") or {}
        named = found.groups()[-1]
        if named is not None:
            return [properties.get(named, f"Table {table.name} does not have property: {named}")]
        return [f"{k}\t{v}" for k, v in sorted(properties.items())]
    return _describe(definition, readable, found.group("column"))


def run_metadata(sql: str, *, database: str | None, account_id: str, region: str, output: Path,
                 access: Access | None = None) -> QueryResult:
    """SHOW or DESCRIBE answered from the Glue catalog, kept in ``output`` as a query's result is."""
    text = _COMMENTS.sub("", sql).strip().rstrip(";").strip()
    matched = next(((kind, found) for kind, pattern in _FORMS if (found := pattern.fullmatch(text)) is not None),
                   None)
    if matched is None:
        raise QueryFailure("NOT_SUPPORTED: the demo account's Athena answers the documented SHOW and DESCRIBE forms "
                           "only", error_type=1000)
    kind, found = matched
    rows = _rows(kind, found, _Catalog(account_id, region, database, access))
    with duckdb.connect(str(output)) as connection:
        connection.execute("CREATE TABLE result (c0 VARCHAR)")
        if rows:
            connection.executemany("INSERT INTO result VALUES (?)", [[row] for row in rows])
    column = ColumnInfo(_COLUMN_NAMES[kind], "varchar", 2147483647, 0)
    return QueryResult(output, (column,), len(rows), 0, header_row=False)
