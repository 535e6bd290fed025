"""An Iceberg metadata file's bytes as its JSON document, within a size cap (plain or gzip-compressed, as
`write.metadata.compression-codec=gzip` writes `*.gz.metadata.json`)."""

from __future__ import annotations

import json
import zlib
from typing import Any

MAX_METADATA_BYTES = 8 * 1024 * 1024
"""The most of a metadata file read, compressed or not: a table with years of snapshots can keep tens of MB there,
more than one read should hold in memory."""
_GZIP_MAGIC = b"\x1f\x8b"


class MetadataUnreadable(ValueError):
    """The file is not an Iceberg metadata document, or is larger than the cap."""


def metadata_document(body: bytes, cap: int = MAX_METADATA_BYTES) -> dict[str, Any]:
    """The JSON document in `body`; gzip is undone, never past `cap` bytes."""
    if body[:2] == _GZIP_MAGIC:
        inflater = zlib.decompressobj(wbits=31)
        body = inflater.decompress(body, cap + 1)
        if len(body) > cap or inflater.unconsumed_tail:
            raise MetadataUnreadable(f"the metadata file inflates to more than {cap:,} bytes")
    if len(body) > cap:
        raise MetadataUnreadable(f"the metadata file is more than {cap:,} bytes")
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MetadataUnreadable(f"the metadata file is not JSON: {exc}") from exc
    if not isinstance(document, dict) or "format-version" not in document:
        raise MetadataUnreadable("the metadata file is not an Iceberg table metadata document")
    return document
