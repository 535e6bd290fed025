"""Avro object container files as Iceberg writes its manifest lists and manifests: their records as dicts.

The Lambda layer has no Avro library (pyiceberg and fastavro stay out: the package budget), and the
explainer needs only the files Athena reads from a snapshot's manifests, so this reads the Avro binary encoding
(the specification's "Object Container Files" and "Binary Encoding") with its writer's schema, uncompressed or
deflate (Iceberg's default `write.avro.compression-codec`, gzip, is Avro's deflate). Another codec is refused by
name, so the caller says the files stay unknown and why.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

MAGIC = b"Obj\x01"
SYNC_SIZE = 16
CODECS = ("null", "deflate")
_PRIMITIVE_SIZES = {"float": ("<f", 4), "double": ("<d", 8)}


class AvroUnreadable(ValueError):
    """Not an Avro container file, a truncated one, or one written with a codec this reader does not inflate."""


class _Reader:
    """The binary decoder over one buffer: Avro's zig-zag varints, lengths and blocks."""

    def __init__(self, body: bytes) -> None:
        self.body, self.at = body, 0

    def take(self, size: int) -> bytes:
        if size < 0 or self.at + size > len(self.body):
            raise AvroUnreadable("the Avro file ends early (truncated, or larger than the read)")
        chunk = self.body[self.at:self.at + size]
        self.at += size
        return chunk

    def long(self) -> int:
        shift = result = 0
        while True:
            byte = self.take(1)[0]
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (result >> 1) ^ -(result & 1)
            shift += 7
            if shift > 63:
                raise AvroUnreadable("an Avro varint runs past 64 bits")

    def blocks(self) -> Iterator[None]:
        """One step per item of an array or map (a negative count carries its block's byte size)."""
        while count := self.long():
            if count < 0:
                count = -count
                self.long()
            for _ in range(count):
                yield None


class _Schema:
    """A writer's schema, its named types resolvable by name (a manifest's r102 partition, for one)."""

    def __init__(self, schema: Any) -> None:
        self.named: dict[str, Any] = {}
        self._collect(schema, "")
        self.root = schema

    def _collect(self, schema: Any, space: str) -> None:
        if isinstance(schema, list):
            for branch in schema:
                self._collect(branch, space)
        elif isinstance(schema, Mapping):
            kind = schema.get("type")
            if kind in ("record", "enum", "fixed", "error"):
                space = schema.get("namespace", space)
                name = schema["name"]
                self.named[name] = schema
                self.named[f"{space}.{name}" if space and "." not in name else name] = schema
            for field in schema.get("fields") or []:
                self._collect(field["type"], space)
            for nested in ("items", "values"):
                if nested in schema:
                    self._collect(schema[nested], space)
            if isinstance(kind, list | Mapping):
                self._collect(kind, space)

    def read(self, schema: Any, reader: _Reader) -> Any:
        if isinstance(schema, list):  # a union: the branch's index, then its value
            index = reader.long()
            if not 0 <= index < len(schema):
                raise AvroUnreadable("an Avro union names a branch its schema lacks")
            return self.read(schema[index], reader)
        if isinstance(schema, str):
            if schema in self.named:
                return self.read(self.named[schema], reader)
            return self._primitive(schema, reader)
        kind = schema["type"]
        if kind in ("record", "error"):
            return {field["name"]: self.read(field["type"], reader) for field in schema["fields"]}
        if kind == "array":
            return [self.read(schema["items"], reader) for _ in reader.blocks()]
        if kind == "map":
            return {self._primitive("string", reader): self.read(schema["values"], reader) for _ in reader.blocks()}
        if kind == "enum":
            return schema["symbols"][reader.long()]
        if kind == "fixed":
            return reader.take(int(schema["size"]))
        return self.read(kind, reader)  # {"type": "long", "logicalType": ...}: the logical type's encoding

    @staticmethod
    def _primitive(kind: str, reader: _Reader) -> Any:
        if kind == "null":
            return None
        if kind == "boolean":
            return reader.take(1) != b"\x00"
        if kind in ("int", "long"):
            return reader.long()
        if kind in _PRIMITIVE_SIZES:
            form, size = _PRIMITIVE_SIZES[kind]
            return struct.unpack(form, reader.take(size))[0]
        if kind == "bytes":
            return reader.take(reader.long())
        if kind == "string":
            return reader.take(reader.long()).decode("utf-8", "replace")
        raise AvroUnreadable(f"unknown Avro type {kind!r}")


def avro_records(body: bytes) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """The container's metadata (its `iceberg.schema`, `partition-spec`... besides `avro.schema`) and records."""
    reader = _Reader(body)
    if reader.take(len(MAGIC)) != MAGIC:
        raise AvroUnreadable("not an Avro object container file")
    metadata = {reader.take(reader.long()).decode("utf-8", "replace"): reader.take(reader.long())
                for _ in reader.blocks()}
    codec = metadata.get("avro.codec", b"null").decode()
    if codec not in CODECS:
        raise AvroUnreadable(f"the Avro file is {codec}-compressed: only {' and '.join(CODECS)} are read here")
    try:
        schema = _Schema(json.loads(metadata["avro.schema"]))
    except (KeyError, ValueError) as exc:
        raise AvroUnreadable(f"the Avro file has no readable schema: {exc}") from None
    sync = reader.take(SYNC_SIZE)
    records: list[dict[str, Any]] = []
    while reader.at < len(body):
        count, size = reader.long(), reader.long()
        block = reader.take(size)
        if codec == "deflate":
            try:
                block = zlib.decompress(block, wbits=-15)
            except zlib.error as exc:
                raise AvroUnreadable(f"an Avro block does not inflate: {exc}") from None
        inner = _Reader(block)
        records += [schema.read(schema.root, inner) for _ in range(count)]
        if reader.take(SYNC_SIZE) != sync:
            raise AvroUnreadable("an Avro block ends without the file's sync marker")
    return metadata, records
