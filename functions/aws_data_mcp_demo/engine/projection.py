"""Partition projection as the demo's Athena applies it (demo and tests only, never in Lambda).

A table with `projection.enabled=true` has its partitions computed from its parameters, never read
from Glue. Each key lists values: `enum` its list, `integer` a range, `date` a range in its format
(`NOW-3DAYS` too). Every combination sits at `storage.location.template`, else at `key=value/`.
Existing Glue partitions are ignored, as Athena ignores them. An `injected` key needs the query to
name its values. The demo does not read them, so it fails as Athena does without that filter.
"""

import itertools
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from aws_data_mcp_demo.engine.failures import QueryFailure

_JAVA_FORMAT = (("yyyy", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S"))
_NOW = re.compile(r"^NOW(?:\s*([+-])\s*(\d+)\s*(WEEK|DAY|HOUR|MINUTE|SECOND)S?)?$", re.IGNORECASE)
_STEP = {"WEEK": timedelta(weeks=1), "DAY": timedelta(days=1), "HOUR": timedelta(hours=1),
         "MINUTE": timedelta(minutes=1), "SECOND": timedelta(seconds=1)}


def is_projected(definition: dict[str, Any]) -> bool:
    return str((definition.get("Parameters") or {}).get("projection.enabled", "")).lower() == "true"


def _strftime(java: str) -> str:
    for pattern, directive in _JAVA_FORMAT:
        java = java.replace(pattern, directive)
    return java


def _moment(text: str, fmt: str) -> datetime:
    """A date range's end: a date in the key's format, or ``NOW`` with an offset (Athena's relative ends)."""
    relative = _NOW.match(text.strip())
    if relative is None:
        return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
    moment = datetime.now(UTC)
    if relative.group(1):
        unit, count = relative.group(3).upper(), int(relative.group(2)) * (1 if relative.group(1) == "+" else -1)
        moment += _STEP[unit] * count
    return moment


def _dates(parameters: dict[str, str], key: str) -> list[str]:
    fmt = _strftime(parameters[f"projection.{key}.format"])
    low, high = (_moment(end, fmt) for end in parameters[f"projection.{key}.range"].split(","))
    unit = parameters.get(f"projection.{key}.interval.unit", "DAYS").upper().rstrip("S")
    step = _STEP.get(unit, timedelta(days=1)) * int(parameters.get(f"projection.{key}.interval", "1"))
    values, moment = [], low
    while moment <= high:
        values.append(moment.strftime(fmt))
        moment += step
    return values


def _integers(parameters: dict[str, str], key: str) -> list[str]:
    low, high = (int(end) for end in parameters[f"projection.{key}.range"].split(","))
    step = int(parameters.get(f"projection.{key}.interval", "1"))
    digits = int(parameters.get(f"projection.{key}.digits", "0"))
    return [str(value).zfill(digits) for value in range(low, high + 1, step)]


def _values(parameters: dict[str, str], key: str, table: str) -> list[str]:
    kind = parameters.get(f"projection.{key}.type", "").lower()
    if kind == "enum":
        return [value.strip() for value in parameters[f"projection.{key}.values"].split(",")]
    if kind == "integer":
        return _integers(parameters, key)
    if kind == "date":
        return _dates(parameters, key)
    raise QueryFailure(f"HIVE_METASTORE_ERROR: Partition projection of table {table}: column {key} of type "
                       f"{kind or 'none'} cannot be enumerated: filter on it with literal values", error_type=1000)


def projected_partitions(definition: dict[str, Any]) -> list[tuple[tuple[str, ...], str, None]]:
    """Every partition the table's projection makes: its values, its location, no statistics."""
    parameters = definition.get("Parameters") or {}
    keys = [key["Name"] for key in definition.get("PartitionKeys") or []]
    table = definition.get("Name", "")
    location = definition["StorageDescriptor"]["Location"].rstrip("/") + "/"
    template = parameters.get("storage.location.template") or location + "/".join(f"{k}=${{{k}}}" for k in keys)
    partitions = []
    for values in itertools.product(*(_values(parameters, key, table) for key in keys)):
        path = template
        for key, value in zip(keys, values, strict=True):
            path = path.replace(f"${{{key}}}", value)
        partitions.append((tuple(values), path, None))
    return partitions
