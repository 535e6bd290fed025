"""iceberg_files as plain functions, each wave's answers given as AWS would give them: a refused or unreadable
metadata file, manifest list or manifest leaves the files past it `unknown` with why (never `allowed`), and the
sample takes one live file per partition, the newest partitions first, never a file the snapshot deleted."""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.explainer.iceberg_files import Found, iceberg_files, sample
from aws_data_mcp.lakehouse.avro import MAGIC
from aws_data_mcp.reading.fanout import Outcome

METADATA = "s3://lake/t/metadata/00002-x.metadata.json"
LISTING = "s3://lake/t/metadata/snap-1.avro"


class _Request:
    def client(self, _service: str) -> object:
        return object()  # never called: the test answers each wave itself


def _run(chain: Generator[Any, Any, Found], *answers: list[Outcome[Any, Any]]) -> Found:
    asked = next(chain)
    for answer in answers:
        assert len(answer) == len(asked)
        try:
            asked = chain.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
    raise AssertionError("the chain asked for more")


def _document() -> bytes:
    return json.dumps({"format-version": 2, "current-snapshot-id": 1, "snapshots": [
        {"snapshot-id": 1, "manifest-list": LISTING}]}).encode()


def test_a_refused_metadata_file_leaves_the_files_unknown() -> None:
    refused = ResourceFailure(ErrorCode.ACCESS_DENIED, "s3:GetObject: AccessDenied", action="s3:GetObject")
    found = _run(iceberg_files(_Request(), METADATA, None), [Outcome(METADATA, error=refused)])  # type: ignore[arg-type]
    assert found.data == [] and found.metadata == [METADATA]
    assert found.reads["unknown"] is not None and "could not be read as the caller" in found.reads["unknown"]


def test_a_manifest_list_in_an_unread_codec_is_named() -> None:
    snappy = MAGIC + b"\x02\x14avro.codec\x0csnappy\x00"
    found = _run(iceberg_files(_Request(), METADATA, None),  # type: ignore[arg-type]
                 [Outcome(METADATA, value=_document())], [Outcome(LISTING, value=snappy)])
    assert found.metadata == [METADATA, LISTING] and found.data == []
    assert found.reads["manifest_list"] == LISTING and "snappy" in (found.reads["unknown"] or "")


def test_one_live_file_per_partition_the_newest_first() -> None:
    def entry(status: int, day: int, name: str) -> dict[str, Any]:
        return {"status": status, "data_file": {"file_path": f"s3://lake/t/data/{name}", "partition": {"d": day}}}

    entries = [entry(1, 10, "a"), entry(0, 10, "b"), entry(2, 12, "gone"), entry(0, 11, "c"), entry(1, 9, "d")]
    assert sample(entries, limit=3) == ["s3://lake/t/data/c", "s3://lake/t/data/a", "s3://lake/t/data/d"]
    assert sample(entries, limit=10)[-1] == "s3://lake/t/data/b"  # a second file of a partition once each has one
