"""An Iceberg table as a reader writing Athena SQL needs it: schema with field ids, partitioning and how to filter
on it, sort order, the properties that decide where and how data is written, snapshots, branches and tags, and the
time-travel SQL to read one.

The source is the table metadata document (the JSON at the table's `metadata_location`, in the Iceberg spec's
names). Glue's `IcebergTableMetadata` (GetTable with `LATEST_ICEBERG_METADATA`) holds the same schemas, specs and
sort orders in its own names and no snapshots: `from_glue` turns it into the spec's names, so one reading serves
both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, NotRequired, TypedDict

RECENT_SNAPSHOTS = 5
"""Snapshots listed, the newest first; `snapshot_count` counts them all."""
PROPERTIES = (
    "write.data.path", "write.format.default", "write.metadata.path", "write.object-storage.enabled",
    "write.object-storage.path", "write.delete.mode", "write.update.mode", "write.merge.mode",
    "write.parquet.compression-codec", "history.expire.max-snapshot-age-ms", "history.expire.min-snapshots-to-keep",
)
"""The properties that say where data files go, in which format, how deletes are written and how long history is
kept; the rest are counted."""
METADATA_TABLES = ("snapshots", "history", "files", "manifests", "partitions", "refs")
"""Athena's Iceberg metadata tables: `"table$snapshots"` and the rest."""
_TEMPORAL = ("year", "month", "day", "hour")

Source = Literal["metadata_file", "glue", "none"]


class IcebergField(TypedDict):
    id: int | None
    name: str
    type: str
    required: bool
    doc: NotRequired[str]
    fields: NotRequired[list[IcebergField]]
    """A struct's own fields, with their ids."""


class IcebergSchema(TypedDict):
    schema_id: int | None
    identifier_field_ids: list[int]
    fields: list[IcebergField]


class PartitionField(TypedDict):
    name: str
    source: str | None
    """The column it is computed from (by `source-id` in the current schema); null where that column is gone."""
    source_id: int | None
    transform: str
    field_id: int | None


class PartitionSpec(TypedDict):
    spec_id: int | None
    fields: list[PartitionField]
    hint: str
    """How a query prunes: "partitioned by day(order_ts): filter on order_ts"."""


class SortField(TypedDict):
    source: str | None
    transform: str
    direction: str | None
    null_order: str | None


class SortOrder(TypedDict):
    order_id: int | None
    fields: list[SortField]


class Snapshot(TypedDict):
    snapshot_id: int
    parent_snapshot_id: int | None
    committed: str | None
    operation: str | None
    added_records: int | None
    deleted_records: int | None
    total_records: int | None
    total_data_files: int | None
    sql: str
    """This snapshot's rows, in Athena SQL."""


class Ref(TypedDict):
    name: str
    snapshot_id: int | None
    sql: str | None


class TimeTravel(TypedDict):
    by_version: str | None
    by_timestamp: str | None
    metadata_tables: list[str]
    note: str


class IcebergTable(TypedDict):
    source: Source
    """Where this was read: the metadata file (everything), Glue's copy (no snapshots, branches or tags), or
    nowhere (Glue gave no Iceberg metadata and the file could not be read)."""
    metadata_location: str | None
    format_version: int | None
    table_uuid: str | None
    location: str | None
    current_schema: IcebergSchema | None
    partition_spec: PartitionSpec | None
    partition_spec_count: int
    """Specs the table has had: an older spec's files keep their own partitioning."""
    sort_order: SortOrder | None
    properties: dict[str, str]
    property_count: int
    current_snapshot: Snapshot | None
    snapshots: list[Snapshot] | None
    """The newest snapshots (null: not read, see `unread`)."""
    snapshot_count: int | None
    branches: list[Ref] | None
    tags: list[Ref] | None
    time_travel: TimeTravel
    unread: NotRequired[str]
    """What could not be read, and why: the metadata file's snapshots, branches and tags."""


def quoted(*names: str) -> str:
    """An Athena identifier path: each part in double quotes, quotes doubled."""
    return ".".join('"' + name.replace('"', '""') + '"' for name in names)


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None and value != "" else None
    except (TypeError, ValueError):
        return None


def _type_text(kind: Any) -> str:
    """An Iceberg type as Athena spells it: struct<a: long>, array<string>, map<string, long>, or the primitive."""
    if not isinstance(kind, Mapping):
        return str(kind)
    nested = kind.get("type")
    if nested == "struct":
        return "struct<" + ", ".join(f"{f.get('name')}: {_type_text(f.get('type'))}"
                                     for f in kind.get("fields") or []) + ">"
    if nested == "list":
        return f"array<{_type_text(kind.get('element'))}>"
    if nested == "map":
        return f"map<{_type_text(kind.get('key'))}, {_type_text(kind.get('value'))}>"
    return str(nested)


def _field(raw: Mapping[str, Any]) -> IcebergField:
    kind = raw.get("type")
    field = IcebergField(id=_int(raw.get("id")), name=str(raw.get("name")), type=_type_text(kind),
                         required=bool(raw.get("required")))
    if raw.get("doc"):
        field["doc"] = str(raw["doc"])
    if isinstance(kind, Mapping) and kind.get("type") == "struct":
        field["fields"] = [_field(f) for f in kind.get("fields") or []]
    return field


def _current(items: Sequence[Mapping[str, Any]], id_key: str, current: Any) -> Mapping[str, Any] | None:
    """The item whose `id_key` is `current`, else the last (v1 metadata may name none)."""
    return next((i for i in items if i.get(id_key) == current), items[-1] if items else None)


def _schema(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    schemas = document.get("schemas") or ([document["schema"]] if document.get("schema") else [])
    return _current(schemas, "schema-id", document.get("current-schema-id"))


def _described_schema(schema: Mapping[str, Any]) -> IcebergSchema:
    return IcebergSchema(schema_id=_int(schema.get("schema-id")),
                         identifier_field_ids=list(schema.get("identifier-field-ids") or []),
                         fields=[_field(f) for f in schema.get("fields") or []])


def _columns(schema: Mapping[str, Any] | None) -> dict[int, str]:
    """Field id -> dotted column name, nested struct fields included (a partition may use one)."""
    names: dict[int, str] = {}

    def walk(fields: Sequence[Mapping[str, Any]], prefix: str) -> None:
        for field in fields:
            name = f"{prefix}{field.get('name')}"
            if (field_id := _int(field.get("id"))) is not None:
                names[field_id] = name
            kind = field.get("type")
            if isinstance(kind, Mapping) and kind.get("type") == "struct":
                walk(kind.get("fields") or [], f"{name}.")

    walk((schema or {}).get("fields") or [], "")
    return names


def _term(field: PartitionField) -> str:
    source = field["source"] or f"field {field['source_id']}"
    return source if field["transform"] == "identity" else f"{field['transform']}({source})"


def partition_hint(fields: Sequence[PartitionField]) -> str:
    """How a query prunes this partitioning: filter on the source columns (Athena maps a predicate on `order_ts` to
    `day(order_ts)`); a bucket prunes on equality only."""
    live = [f for f in fields if f["transform"] != "void"]
    if not live:
        return "not partitioned: a query reads every data file of the snapshot (file statistics may skip some)"
    filters = []
    for field in live:
        source = field["source"] or f"field {field['source_id']}"
        if field["transform"].startswith("bucket"):
            filters.append(f"{source} (= or IN)")
        elif source not in filters:
            filters.append(source)
    return f"partitioned by {', '.join(_term(f) for f in live)}: filter on {', '.join(dict.fromkeys(filters))}"


def _spec(document: Mapping[str, Any], columns: Mapping[int, str]) -> PartitionSpec | None:
    specs = document.get("partition-specs") or (
        [{"spec-id": 0, "fields": document["partition-spec"]}] if document.get("partition-spec") else [])
    spec = _current(specs, "spec-id", document.get("default-spec-id"))
    if spec is None:
        return None
    fields = [PartitionField(name=str(f.get("name")), source=columns.get(_int(f.get("source-id")) or -1),
                             source_id=_int(f.get("source-id")), transform=str(f.get("transform")),
                             field_id=_int(f.get("field-id"))) for f in spec.get("fields") or []]
    return PartitionSpec(spec_id=_int(spec.get("spec-id")), fields=fields, hint=partition_hint(fields))


def _sort_order(document: Mapping[str, Any], columns: Mapping[int, str]) -> SortOrder | None:
    order = _current(document.get("sort-orders") or [], "order-id", document.get("default-sort-order-id"))
    if order is None:
        return None
    return SortOrder(order_id=_int(order.get("order-id")), fields=[
        SortField(source=columns.get(_int(f.get("source-id")) or -1), transform=str(f.get("transform")),
                  direction=f.get("direction"), null_order=f.get("null-order")) for f in order.get("fields") or []])


def _when(millis: Any) -> datetime | None:
    value = _int(millis)
    return datetime.fromtimestamp(value / 1000, UTC) if value is not None else None


def by_version(table: str, snapshot_id: int) -> str:
    return f"SELECT * FROM {table} FOR VERSION AS OF {snapshot_id}"


def by_timestamp(table: str, when: datetime) -> str:
    """Athena takes a timestamp with its zone; milliseconds kept, so a snapshot's own commit time reads it."""
    millis = f"{when.microsecond // 1000:03d}"
    return f"SELECT * FROM {table} FOR TIMESTAMP AS OF TIMESTAMP '{when:%Y-%m-%d %H:%M:%S}.{millis} UTC'"


def _snapshot(raw: Mapping[str, Any], table: str) -> Snapshot:
    summary = raw.get("summary") or {}
    snapshot_id = int(raw["snapshot-id"])
    when = _when(raw.get("timestamp-ms"))
    return Snapshot(snapshot_id=snapshot_id, parent_snapshot_id=_int(raw.get("parent-snapshot-id")),
                    committed=when.isoformat() if when else None, operation=summary.get("operation"),
                    added_records=_int(summary.get("added-records")),
                    deleted_records=_int(summary.get("deleted-records")),
                    total_records=_int(summary.get("total-records")),
                    total_data_files=_int(summary.get("total-data-files")), sql=by_version(table, snapshot_id))


def _refs(document: Mapping[str, Any], current: int | None, table: str) -> tuple[list[Ref], list[Ref]]:
    """Branches and tags; v1 metadata (no `refs`) has only `main`, at the current snapshot."""
    refs = document.get("refs")
    if refs is None:
        refs = {"main": {"snapshot-id": current, "type": "branch"}} if current is not None else {}
    found: dict[str, list[Ref]] = {"branch": [], "tag": []}
    for name, ref in sorted(refs.items()):
        snapshot_id = _int(ref.get("snapshot-id"))
        entry = Ref(name=name, snapshot_id=snapshot_id,
                    sql=by_version(table, snapshot_id) if snapshot_id is not None else None)
        found.setdefault(str(ref.get("type", "branch")), []).append(entry)
    return found["branch"], found["tag"]


def describe_iceberg(document: Mapping[str, Any], names: Sequence[str], source: Source = "metadata_file",
                     metadata_location: str | None = None) -> IcebergTable:
    """`document` (a table metadata document, or `from_glue`'s) described; `names` name the table in SQL
    (database, table)."""
    table = quoted(*names)
    metadata_tables = [f"SELECT * FROM {quoted(*names[:-1], f'{names[-1]}${kind}')}" for kind in METADATA_TABLES]
    schema = _schema(document)
    columns = _columns(schema)
    properties = {str(k): str(v) for k, v in (document.get("properties") or {}).items()}
    current_id = _int(document.get("current-snapshot-id"))
    current_id = None if current_id == -1 else current_id
    answer = IcebergTable(
        source=source, metadata_location=metadata_location, format_version=_int(document.get("format-version")),
        table_uuid=document.get("table-uuid"), location=document.get("location"),
        current_schema=_described_schema(schema) if schema else None,
        partition_spec=_spec(document, columns), partition_spec_count=len(document.get("partition-specs") or []),
        sort_order=_sort_order(document, columns),
        properties={k: properties[k] for k in PROPERTIES if k in properties}, property_count=len(properties),
        current_snapshot=None, snapshots=None, snapshot_count=None, branches=None, tags=None,
        time_travel=TimeTravel(by_version=None, by_timestamp=None, metadata_tables=metadata_tables, note=""),
    )
    if source != "metadata_file":
        answer["time_travel"]["note"] = ("Snapshots, branches and tags are in the metadata file, which could not "
                                         "be read: FOR VERSION AS OF takes a snapshot id from the $snapshots "
                                         "table.")
        return answer
    snapshots = sorted((_snapshot(s, table) for s in document.get("snapshots") or [] if "snapshot-id" in s),
                       key=lambda s: (s["committed"] or "", s["snapshot_id"]), reverse=True)
    current = next((s for s in snapshots if s["snapshot_id"] == current_id), None)
    branches, tags = _refs(document, current_id, table)
    answer |= IcebergTable(current_snapshot=current, snapshots=snapshots[:RECENT_SNAPSHOTS],  # type: ignore[typeddict-item]
                           snapshot_count=len(snapshots), branches=branches, tags=tags)
    if current is not None:
        when = datetime.fromisoformat(current["committed"]) if current["committed"] else None
        answer["time_travel"] = TimeTravel(
            by_version=current["sql"], by_timestamp=by_timestamp(table, when) if when else None,
            metadata_tables=metadata_tables,
            note="FOR VERSION AS OF takes a snapshot id (a tag or branch: the id it points to, listed beside it); "
                 "FOR TIMESTAMP AS OF reads the snapshot that was current at that time. Each snapshot's own SQL is "
                 "beside it.")
    else:
        answer["time_travel"]["note"] = "The table has no snapshot yet: nothing to travel to."
    return answer


def _glue_type(kind: Any) -> Any:
    """Glue's IcebergDocument type: the spec's own JSON for a nested type, a string for a primitive."""
    return kind.get("type", kind) if isinstance(kind, Mapping) and set(kind) == {"type"} else kind


def from_glue(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Glue's `IcebergTableMetadata` in the metadata document's names (Glue keeps no snapshots)."""
    return {
        "format-version": _int(metadata.get("FormatVersion")), "table-uuid": metadata.get("TableUuid"),
        "location": metadata.get("Location"), "properties": metadata.get("Properties") or {},
        "current-schema-id": metadata.get("CurrentSchemaId"),
        "schemas": [{"schema-id": s.get("SchemaId"), "identifier-field-ids": s.get("IdentifierFieldIds") or [],
                     "type": "struct",
                     "fields": [{"id": f.get("Id"), "name": f.get("Name"), "type": _glue_type(f.get("Type")),
                                 "required": f.get("Required", False), "doc": f.get("Doc")}
                                for f in s.get("Fields") or []]} for s in metadata.get("Schemas") or []],
        "default-spec-id": metadata.get("DefaultSpecId"),
        "partition-specs": [{"spec-id": p.get("SpecId"),
                             "fields": [{"source-id": f.get("SourceId"), "transform": f.get("Transform"),
                                         "name": f.get("Name"), "field-id": f.get("FieldId")}
                                        for f in p.get("Fields") or []]} for p in metadata.get("PartitionSpecs") or []],
        "default-sort-order-id": metadata.get("DefaultSortOrderId"),
        "sort-orders": [{"order-id": o.get("OrderId"),
                         "fields": [{"source-id": f.get("SourceId"), "transform": f.get("Transform"),
                                     "direction": f.get("Direction"), "null-order": f.get("NullOrder")}
                                    for f in o.get("Fields") or []]} for o in metadata.get("SortOrders") or []],
    }
