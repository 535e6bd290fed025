"""The objects Athena reads for an Iceberg table, found as Athena finds them: the current metadata file (Glue's
`metadata_location`), the current snapshot's manifest list, its manifests, and from those the live data and
delete files; not a listing of the table's location, which holds dropped files and superseded metadata too.

Each is read as the caller (whole, within a size cap: a refusal here is the same refusal Athena meets), so where a
read is refused or a file cannot be parsed the files past it stay `unknown`, with why. The files then probed (one
byte each, their heads, keys and owners) are a bounded sample: every manifest read, and one data file per
partition, the newest partitions first, where a key or owner that differs by partition shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypedDict

from aws_data_mcp.lakehouse.avro import AvroUnreadable, avro_records
from aws_data_mcp.lakehouse.metadata_file import MAX_METADATA_BYTES, MetadataUnreadable, metadata_document
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

MANIFESTS = 4
"""Manifests of the current snapshot read at most (a snapshot of a large table has hundreds)."""
DATA_FILES = 6
"""Data and delete files sampled at most: one per partition, the newest partitions first."""
MAX_AVRO_BYTES = 8 * 1024 * 1024
"""The most of a manifest list or manifest read: past it the file is not parsed (its files stay unknown)."""
DELETED = 2
"""A manifest entry's status for a file the snapshot removed (0 existing, 1 added)."""


class IcebergReads(TypedDict):
    """What the explainer found where Athena reads an Iceberg table, and what it sampled."""

    metadata_location: str
    manifest_list: str | None
    manifests_in_snapshot: int | None
    manifests_read: list[str]
    live_files_seen: int | None
    """Data and delete files the manifests read list as live in the current snapshot."""
    files_sampled: list[str]
    write_data_path: str | None
    unknown: str | None
    """Why the data files (or part of them) could not be found: a refused or unparsable read; null where none."""
    not_sampled: str | None
    """The manifests past the bound, whose files are not sampled (a sample, as a Hive table's partitions are)."""


@dataclass
class Found:
    """The objects to probe, by role, with the description above."""

    reads: IcebergReads
    metadata: list[str] = field(default_factory=list)
    """The metadata file, the manifest list and the manifests read (s3:// URIs)."""
    data: list[str] = field(default_factory=list)


def _split(uri: str) -> tuple[str, str]:
    bucket, _, key = uri.removeprefix("s3://").removeprefix("s3a://").partition("/")
    return bucket, key


def _body(s3: Any, uri: str, cap: int) -> bytes:
    """The object's first `cap` bytes (and one more, so an object past the cap shows)."""
    bucket, key = _split(uri)
    answer = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{cap}")
    with answer["Body"] as body:
        return bytes(body.read())


def _refused(what: str, uri: str, outcome: Outcome[Any, Any]) -> str:
    failure = outcome.error
    brief = f"{failure.message}" if failure is not None else "no answer"
    return f"the {what} ({uri}) could not be read as the caller: {brief}"


def _parsed_avro(outcome: Outcome[Any, Any], what: str, uri: str) -> tuple[list[dict[str, Any]], str | None]:
    if outcome.error is not None:
        return [], _refused(what, uri, outcome)
    if len(outcome.value) > MAX_AVRO_BYTES:
        return [], f"the {what} ({uri}) is larger than {MAX_AVRO_BYTES:,} bytes: not parsed"
    try:
        return avro_records(outcome.value)[1], None
    except AvroUnreadable as exc:
        return [], f"the {what} ({uri}) could not be parsed: {exc}"


def _partition_order(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    """A file's partition values, comparable (nulls first), so the newest day or hour sorts last."""
    values = (entry.get("data_file") or {}).get("partition") or {}
    return tuple((value is not None, str(type(value)), value) for value in values.values())


def sample(entries: Sequence[Mapping[str, Any]], limit: int = DATA_FILES) -> list[str]:
    """One live file per partition, the newest partitions first (then a second per partition, while room)."""
    live = [e for e in entries if e.get("status") != DELETED and (e.get("data_file") or {}).get("file_path")]
    by_partition: dict[tuple[Any, ...], list[str]] = {}
    for entry in sorted(live, key=_partition_order, reverse=True):
        by_partition.setdefault(_partition_order(entry), []).append(str(entry["data_file"]["file_path"]))
    chosen: list[str] = []
    for rank in range(max((len(v) for v in by_partition.values()), default=0)):
        chosen += [paths[rank] for paths in by_partition.values() if len(paths) > rank]
    return list(dict.fromkeys(chosen))[:limit]


def iceberg_files(request: ResourceRequest, metadata_location: str, write_data_path: str | None) -> Chain[Found]:
    """Three waves, each depending on the last: the metadata file, the manifest list, the manifests."""
    s3 = request.client("s3")
    reads = IcebergReads(metadata_location=metadata_location, manifest_list=None, manifests_in_snapshot=None,
                         manifests_read=[], live_files_seen=None, files_sampled=[],
                         write_data_path=write_data_path, unknown=None, not_sampled=None)
    found = Found(reads, metadata=[metadata_location])
    (document_read,) = yield [Call("s3:GetObject", partial(_body, s3, metadata_location, MAX_METADATA_BYTES))]
    if document_read.error is not None:
        reads["unknown"] = _refused("metadata file", metadata_location, document_read)
        return found
    try:
        document = metadata_document(document_read.value)
    except MetadataUnreadable as exc:
        reads["unknown"] = f"the metadata file ({metadata_location}) could not be parsed: {exc}"
        return found
    current = next((s for s in document.get("snapshots") or []
                    if s.get("snapshot-id") == document.get("current-snapshot-id")), None)
    if current is None:
        reads["live_files_seen"] = 0
        return found  # no snapshot yet: Athena reads no data file
    manifests: list[str] = list(current.get("manifests") or [])  # a v1 snapshot may list them inline
    if listing := current.get("manifest-list"):
        reads["manifest_list"] = listing
        found.metadata.append(listing)
        (listed,) = yield [Call("s3:GetObject", partial(_body, s3, listing, MAX_AVRO_BYTES))]
        records, why = _parsed_avro(listed, "manifest list", listing)
        if why:
            reads["unknown"] = why
            return found
        manifests = [str(r["manifest_path"]) for r in records if r.get("manifest_path")]
    reads["manifests_in_snapshot"] = len(manifests)
    chosen = manifests[:MANIFESTS]
    answers = yield [Call("s3:GetObject", partial(_body, s3, uri, MAX_AVRO_BYTES)) for uri in chosen]
    entries: list[dict[str, Any]] = []
    problems = []
    for uri, outcome in zip(chosen, answers, strict=True):
        records, why = _parsed_avro(outcome, "manifest", uri)
        entries += records
        if why:
            problems.append(why)
    if len(manifests) > len(chosen):
        reads["not_sampled"] = (f"{len(manifests) - len(chosen)} of the snapshot's {len(manifests)} manifests were "
                                f"not read (at most {MANIFESTS}): their files are not sampled")
    reads["manifests_read"] = chosen
    found.metadata += chosen
    reads["live_files_seen"] = sum(1 for e in entries if e.get("status") != DELETED)
    found.data = sample(entries)
    reads["files_sampled"] = found.data
    reads["unknown"] = "; ".join(problems) or None
    return found


def _base(uri: str, bases: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The (bucket, prefix) a file is probed under: the table's location or `write.data.path` that holds it, else
    its own folder."""
    bucket, key = _split(uri)
    own = (bucket, key.rpartition("/")[0] + "/")
    return next(((b, p) for b, p in bases if b == bucket and key.startswith(p)), own)


def placed(found: Found, bases: Sequence[tuple[str, str]]) -> list[tuple[str, tuple[str, str], list[str]]]:
    """The files to probe, grouped: (what they are, (bucket, prefix), their keys), metadata before data."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for role, uris in (("metadata files", found.metadata), ("data files", found.data)):
        for uri in uris:
            bucket, prefix = _base(uri, bases)
            groups.setdefault((role, bucket, prefix), []).append(_split(uri)[1])
    return [(role, (bucket, prefix), keys) for (role, bucket, prefix), keys in groups.items()]
