"""Which columns each table read needs, and the bytes Athena counts for it (demo and tests only).

Athena bills what it reads. Of Parquet, that is the footer and the chunks of the columns used. Of
text, it is the whole file. sqlglot qualifies each column of the statement, traced to its table
read. A statement sqlglot cannot qualify is charged every column: never less than Athena
(docs/demo.md).
"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import duckdb
from sqlglot import exp
from sqlglot.dialects import Athena
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope

from aws_data_mcp_demo.engine.files import Source, is_parquet, local_copy, sql_string

READ_INDEX = "aws_data_mcp_read"
"""Meta key on a statement's lake tables: the position of that read among the statement's reads."""


def _schema(sources: Sequence[Source]) -> dict[str, dict[str, dict[str, str]]]:
    """The tables as sqlglot's schema: database -> table -> the columns the caller may read (partition keys last)."""
    schema: dict[str, dict[str, dict[str, str]]] = {}
    for source in sources:
        definition = source.definition
        columns = [*definition["StorageDescriptor"]["Columns"], *(definition.get("PartitionKeys") or [])]
        readable = {c["Name"].lower(): "VARCHAR" for c in columns
                    if source.readable is None or c["Name"] in source.readable}
        schema.setdefault(source.view.args["db"].name, {})[source.view.name] = readable
    return schema


def _named_read(scope: Scope | None, table: str) -> int | None:
    """The read a column qualified by `table` names: the innermost scope that has a source of that name."""
    while scope is not None:
        source = scope.sources.get(table)
        if source is not None:
            return source.meta.get(READ_INDEX) if isinstance(source, exp.Table) and source.meta else None
        scope = scope.parent
    return None


def columns_read(tree: exp.Expression, sources: Sequence[Source], database: str | None,
                 ) -> list[frozenset[str] | None]:
    """The columns each read of `tree` needs, by read position (its lake tables carry ``READ_INDEX``); None for a
    read whose columns cannot be traced: it is charged every column."""
    try:
        qualified = qualify(tree.copy(), schema=_schema(sources), db=database or "default", dialect=Athena,
                            validate_qualify_columns=False, quote_identifiers=False, identify=False)
        scopes = list(traverse_scope(qualified))
    except SqlglotError:
        return [None] * len(sources)
    needed: list[set[str]] = [set() for _ in sources]
    for scope in scopes:
        for column in scope.columns:
            index = _named_read(scope, column.table) if column.table else None
            if index is not None and index < len(needed):
                needed[index].add(column.name.lower())
    return [frozenset(names) for names in needed]


_CHUNK_SIZES: dict[str, Mapping[str, int]] = {}
"""Local copy (one per object version, so never stale) -> its compressed bytes per top-level column."""


def _chunk_sizes(files: list[str]) -> list[Mapping[str, int]]:
    """Each Parquet file's compressed bytes per top-level column over all its row groups, read in one pass for the
    files not read before (a full scan of a table is a hundred files: one connection, not a hundred)."""
    missing = sorted({local for local in files if local not in _CHUNK_SIZES})
    if missing:
        try:
            _CHUNK_SIZES.update(_read_chunk_sizes(missing))
        except duckdb.Error:  # a file that is not Parquet: counted whole, the query then fails reading it
            for local in missing:
                try:
                    _CHUNK_SIZES.update(_read_chunk_sizes([local]))
                except duckdb.Error:
                    _CHUNK_SIZES[local] = {}
    return [_CHUNK_SIZES[local] for local in files]


def _read_chunk_sizes(files: list[str]) -> dict[str, dict[str, int]]:
    listing = "[" + ", ".join(sql_string(local) for local in files) + "]"
    found: dict[str, dict[str, int]] = {local: {} for local in files}
    with duckdb.connect() as connection:
        for local, name, size in connection.execute(
                "SELECT file_name, split_part(path_in_schema, ', ', 1), sum(total_compressed_size) "
                f"FROM parquet_metadata({listing}) GROUP BY 1, 2").fetchall():
            found[str(local)][str(name).lower()] = int(size)
    return found


def scanned_bytes(source: Source, columns: Iterable[str] | None, cache: Path) -> int:
    """What Athena counts for one read of `source` needing `columns` (None: every column)."""
    if columns is None or not is_parquet(source.definition):
        return source.scanned_bytes
    wanted = {name.lower() for name in columns}
    locals_ = [local_copy(cache, path, key) for _, path, key in source.objects]
    total = 0
    for (_, _, key), sizes in zip(source.objects, _chunk_sizes(locals_), strict=True):
        footer = key.size - sum(sizes.values())  # the footer (and magic) every read of the file starts with
        total += footer + sum(size for name, size in sizes.items() if name in wanted)
    return total
