"""What athena_query takes from athena://: an execution id, a saved query, a workgroup.

They live here, below the resources, because resources/athena registers the tool. Imported from
there, the tool alone would run that package's `__init__`, which imports the tool again.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo

_NAMED_QUERY_ID = re.compile(r"^[A-Za-z0-9-]{1,128}$")


def validated_execution_id(value: object) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise ResourceFailure(
            ErrorCode.INVALID_ARGUMENT, f"{str(value)[:60]!r} is not an Athena query execution id",
            details=["Execution ids are UUIDs; athena://query/history lists recent ones."],
        ) from None


def validated_named_query_id(raw: object) -> str:
    if not isinstance(raw, str) or not _NAMED_QUERY_ID.match(raw):
        raise ResourceFailure(
            ErrorCode.INVALID_ARGUMENT, f"Not a named query id: {echo(str(raw))!r}",
            details=["athena://named-queries lists the saved queries with their ids."],
            valid_uris=["athena://named-queries"])
    return raw


def saved_query(athena: Any, named_query_id: str) -> dict[str, Any]:
    """One saved query as Athena holds it, its SQL whole, for athena_query to run.

    GetNamedQuery, as the caller."""
    found = athena.get_named_query(NamedQueryId=validated_named_query_id(named_query_id))
    return dict(found["NamedQuery"])


def usable_names(found: Sequence[Mapping[str, Any]]) -> list[str]:
    """The query workgroups a caller can run queries in (athena://workgroups' query_workgroups)."""
    return [entry["name"] for entry in found if entry.get("usable") is True]


def first_usable(found: Sequence[Mapping[str, Any]]) -> str | None:
    """Where a query that names no workgroup runs.

    The first usable one (no check denies it), else the first whose settings could not be read
    just now, else none. It is the table explainer's choice, from the same checks. A query in a
    workgroup with an unchecked link meets AWS's own answer there."""
    return next((e["name"] for e in found if e.get("usable") is True),
                next((e["name"] for e in found if e.get("usable") is None), None))
