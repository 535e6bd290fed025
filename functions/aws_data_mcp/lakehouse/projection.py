"""Athena partition projection: what the `projection.*` parameters and `storage.location.template` say.

Once `projection.enabled` is true Athena computes the partitions from these settings and ignores the table's Glue
partitions, so a reader needs each key's type and range to write a filter that prunes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import NotRequired, TypedDict

PREFIX = "projection."
TEMPLATE = "storage.location.template"


class ProjectedKey(TypedDict):
    name: str
    type: str | None
    """date, integer, enum or injected; null where the key has settings but no type (Athena refuses the query)."""
    range: NotRequired[str]
    format: NotRequired[str]
    interval: NotRequired[str]
    interval_unit: NotRequired[str]
    digits: NotRequired[str]
    values: NotRequired[list[str]]
    note: str


class PartitionProjection(TypedDict):
    """A table's partition projection, each key described."""

    enabled: bool
    keys: list[ProjectedKey]
    location_template: str | None
    """Where each partition's files are (storage.location.template); null: Hive-style under the location."""
    note: str
    problems: NotRequired[list[str]]
    """What Athena would refuse or miss: a partition key without projection, a projected key that is not one."""


_NOTES = {
    "date": "a date or time key: filter on it with a range within {range}",
    "integer": "an integer key: filter on it with a range within {range}",
    "enum": "one of the listed values: filter on it with = or IN",
    "injected": "no range: every query must give it with = or IN, or Athena refuses it",
}


def _settings(parameters: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """`projection.<key>.<setting>` as {key: {setting: value}}; `projection.enabled` is not a key's."""
    found: dict[str, dict[str, str]] = {}
    for name, value in parameters.items():
        if not name.startswith(PREFIX) or name == f"{PREFIX}enabled":
            continue
        key, _, setting = name[len(PREFIX):].partition(".")
        if key and setting:
            found.setdefault(key, {})[setting] = str(value)
    return found


def _key(name: str, settings: Mapping[str, str]) -> ProjectedKey:
    kind = settings.get("type", "").lower() or None
    key = ProjectedKey(name=name, type=kind, note="")
    for setting, field in (("range", "range"), ("format", "format"), ("interval", "interval"),
                           ("interval.unit", "interval_unit"), ("digits", "digits")):
        if setting in settings:
            key[field] = settings[setting]  # type: ignore[literal-required]
    if "values" in settings:
        key["values"] = [v.strip() for v in settings["values"].split(",") if v.strip()]
    template = _NOTES.get(kind or "", "no projection type: Athena refuses a query of this table")
    key["note"] = template.format(range=settings.get("range", "its range"))
    return key


def describe_projection(parameters: Mapping[str, str],
                        partition_keys: Sequence[str] = ()) -> PartitionProjection | None:
    """The projection the parameters declare, keys in the table's partition order; None without any."""
    if not any(name.startswith(PREFIX) for name in parameters):
        return None
    enabled = str(parameters.get(f"{PREFIX}enabled", "")).lower() == "true"
    settings = _settings(parameters)
    order = [*partition_keys, *sorted(set(settings) - set(partition_keys))]
    keys = [_key(name, settings[name]) for name in order if name in settings]
    answer = PartitionProjection(
        enabled=enabled, keys=keys, location_template=parameters.get(TEMPLATE),
        note="Athena computes the partitions from these settings and ignores the Glue partitions." if enabled else
        "projection.enabled is not true: Athena reads the Glue partitions, not these settings.")
    problems = [f"partition key {name} has no projection settings" for name in partition_keys if name not in settings]
    if partition_keys:
        problems += [f"projection.{name} is not a partition key of the table" for name in settings
                     if name not in partition_keys]
    if problems:
        answer["problems"] = problems
    return answer


_JAVA_DIRECTIVES = {"yyyy": "%Y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}
_RELATIVE = re.compile(r"^NOW(?:\s*([+-])\s*(\d+)\s*(WEEK|DAY|HOUR|MINUTE|SECOND)S?)?$", re.IGNORECASE)
_UNITS = {"WEEK": timedelta(weeks=1), "DAY": timedelta(days=1), "HOUR": timedelta(hours=1),
          "MINUTE": timedelta(minutes=1), "SECOND": timedelta(seconds=1)}


def _end(text: str, fmt: str, now: datetime) -> datetime:
    """A date range's end: a date in the key's format, or NOW with an offset (Athena's relative ends)."""
    relative = _RELATIVE.match(text.strip())
    if relative is None:
        return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
    sign = {"+": 1, "-": -1}.get(relative.group(1) or "+", 1)
    return now + _UNITS[(relative.group(3) or "DAY").upper()] * sign * int(relative.group(2) or 0)


def _newest(key: ProjectedKey, limit: int, now: datetime) -> list[str]:
    """Up to `limit` of the key's values, the newest (the range's high end) first; [] where none can be listed."""
    if key["type"] == "enum":
        return key.get("values", [])[:limit]
    low, _, high = key.get("range", "").partition(",")
    step = int(key.get("interval", "1") or 1)
    if key["type"] == "integer" and low and high:
        digits = int(key.get("digits", "0") or 0)
        return [str(v).zfill(digits) for v in range(int(high), int(low) - 1, -step)][:limit]
    if key["type"] != "date" or not (low and high and key.get("format")):
        return []
    fmt = key["format"]
    for java, directive in _JAVA_DIRECTIVES.items():
        fmt = fmt.replace(java, directive)
    start, moment = _end(low, fmt, now), _end(high, fmt, now)
    unit = _UNITS.get(key.get("interval_unit", "DAYS").upper().rstrip("S"), _UNITS["DAY"]) * step
    found: list[str] = []
    while moment >= start and len(found) < limit:
        found.append(moment.strftime(fmt))
        moment -= unit
    return found


def projected_locations(projection: PartitionProjection, location: str, limit: int,
                        now: datetime | None = None) -> tuple[list[str], str | None]:
    """Up to `limit` of the locations Athena projects, the newest values first (where a lake's recent data is),
    and why some cannot be listed (an injected key: each query gives its values)."""
    keys = projection["keys"]
    untyped = [k["name"] for k in keys if k["type"] not in ("enum", "integer", "date")]
    if untyped:
        return [], (f"{', '.join(untyped)}: injected or untyped, so each query names the values and no location "
                    "can be projected without them")
    template = projection["location_template"] or location.rstrip("/") + "/" + "/".join(
        f"{k['name']}=${{{k['name']}}}" for k in keys)
    values = [_newest(k, limit, now or datetime.now(UTC)) for k in keys]
    found = []
    for combination in itertools.islice(itertools.product(*values), limit):
        path = template
        for key, value in zip(keys, combination, strict=True):
            path = path.replace(f"${{{key['name']}}}", value)
        found.append(path)
    return found, None
