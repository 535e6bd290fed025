"""The AWS reads behind an open table format's description on the table resource, as the caller.

GetTable asks Glue for its latest Iceberg metadata beside the Hive definition (one call, as before). Snapshots,
branches and tags are only in the Iceberg metadata file, so it is read from S3 (one GET, capped, in the table
read's one wave beside the Lake Formation calls); where it cannot be read the description keeps what Glue gave and
says what is missing, and why. Imported on a table's first read: a cold start never needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NotRequired, TypedDict, TypeVar

from botocore.exceptions import ClientError, ParamValidationError

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.lakehouse.formats import DeltaTable, HudiTable, describe_delta, describe_hudi
from aws_data_mcp.lakehouse.iceberg import IcebergTable, describe_iceberg, from_glue
from aws_data_mcp.lakehouse.metadata_file import MAX_METADATA_BYTES, MetadataUnreadable, metadata_document
from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.registry import ResourceRequest

T = TypeVar("T")

ICEBERG_ATTRIBUTES = ["DEFAULT", "LATEST_ICEBERG_METADATA"]
_ATTRIBUTES_REFUSED = frozenset({"InvalidInputException", "ValidationException"})
"""How Glue refuses an attribute list it does not take (a federated catalog's table, an older endpoint)."""
_S3_SCHEMES = ("s3://", "s3a://", "s3n://")


class FormatDetails(TypedDict):
    """What the table resource adds for an open table format: one key, the format's."""

    iceberg: NotRequired[IcebergTable]
    delta: NotRequired[DeltaTable]
    hudi: NotRequired[HudiTable]
    partitioning: NotRequired[str]
    """An Iceberg table's partitioning and how to filter on it (Glue lists no partition keys for Iceberg)."""


def with_iceberg_metadata(call: Callable[..., T], **arguments: Any) -> T:
    """`call` (a Glue GetTable or GetTables) asking for Glue's latest Iceberg metadata beside the table; where the
    attribute list is refused (by Glue, or by an older botocore that does not know it), asked as it always was."""
    try:
        return call(**arguments, AttributesToGet=ICEBERG_ATTRIBUTES)
    except ParamValidationError:
        pass
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in _ATTRIBUTES_REFUSED:
            raise
    return call(**arguments)


def get_table(glue: Any, database: str, name: str, **where: str) -> dict[str, Any]:
    """GetTable (in the catalog `where` names: its `CatalogId`) with Glue's latest Iceberg metadata."""
    return with_iceberg_metadata(glue.get_table, DatabaseName=database, Name=name, **where)["Table"]


def _bucket_and_key(location: str) -> tuple[str, str]:
    scheme = next((s for s in _S3_SCHEMES if location.startswith(s)), None)
    bucket, _, key = location[len(scheme):].partition("/") if scheme else ("", "", "")
    if not bucket or not key:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"metadata_location {location!r} is not an S3 object")
    return bucket, key


def read_metadata(s3: Any, location: str, cap: int = MAX_METADATA_BYTES) -> dict[str, Any]:
    """The metadata document at `location`: one ranged GET of at most `cap` bytes and one more, so a larger file is
    told by its size, never read whole."""
    bucket, key = _bucket_and_key(location)
    answer = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{cap}")
    size = int(str(answer.get("ContentRange") or "/0").rpartition("/")[2] or 0)
    if size > cap:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                              f"the metadata file is {size:,} bytes, over the {cap:,} this server reads")
    try:
        return metadata_document(answer["Body"].read(cap + 1), cap)
    except MetadataUnreadable as exc:
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, str(exc)) from exc


def _metadata_location(found: Mapping[str, Any]) -> str | None:
    return (found.get("Parameters") or {}).get("metadata_location")


def format_calls(request: ResourceRequest, found: Mapping[str, Any], table_format: str | None) -> list[Call[Any]]:
    """The calls describing the table's format needs beyond GetTable: an Iceberg table's metadata file."""
    location = _metadata_location(found)
    if table_format != "iceberg" or not location:
        return []
    return [Call("s3:GetObject", partial(read_metadata, request.client("s3"), location))]


def format_details(found: Mapping[str, Any], table_format: str | None, names: Sequence[str],
                   outcomes: Sequence[Outcome[Call[Any], Any]]) -> FormatDetails:
    """The table's format described from GetTable and `format_calls`' outcomes; `names` name it in SQL."""
    location = (found.get("StorageDescriptor") or {}).get("Location")
    if table_format == "delta":
        return FormatDetails(delta=describe_delta(location))
    if table_format == "hudi":
        return FormatDetails(hudi=describe_hudi(found))
    if table_format != "iceberg":
        return FormatDetails()
    iceberg = _iceberg(found, names, outcomes[0] if outcomes else None)
    details = FormatDetails(iceberg=iceberg)
    if iceberg["partition_spec"] is not None:
        details["partitioning"] = iceberg["partition_spec"]["hint"]
    return details


def _iceberg(found: Mapping[str, Any], names: Sequence[str],
             read: Outcome[Call[Any], Any] | None) -> IcebergTable:
    """From the metadata file where it was read; else from Glue's copy, saying what is missing and why."""
    location = _metadata_location(found)
    if read is not None and read.error is None:
        return describe_iceberg(read.value or {}, names, "metadata_file", location)
    glue = found.get("IcebergTableMetadata")
    described = describe_iceberg(from_glue(glue) if glue else {}, names, "glue" if glue else "none", location)
    why = (f"{read.error.message} ({read.error.action or 's3:GetObject'})" if read is not None and read.error
           else "the table names no metadata_location")
    described["unread"] = f"The metadata file (snapshots, branches, tags) could not be read: {why}."
    return described
