"""How fresh and how good a table's data is, on the table resource: the newest partition and when it was written,
the partition indexes, and Glue Data Quality's latest result.

Every read is bounded whatever the number of partitions: one GetPartitions page (at most 1,000, without their
columns) for the newest partition, one GetPartitionIndexes, one ListDataQualityResults page; all in the table
read's one wave. Only where Data Quality has a result for the table, one GetDataQualityResult follows (its score and
rules are not in the listing). An Iceberg table's newest snapshot is its metadata file's (`iceberg`), not read
again here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, NotRequired, TypedDict

from aws_data_mcp.reading.fanout import Call, Outcome
from aws_data_mcp.reading.resolving import ItemError, iso
from aws_data_mcp.registry import ResourceRequest

PARTITIONS_PAGE = 1_000
"""GetPartitions' largest page: the newest partition is found within it, or said to be of the first page only."""
DQ_RESULTS_PAGE = 25


class Partition(TypedDict):
    values: dict[str, str]
    written: str | None
    """When Glue registered it (CreationTime)."""


class PartitionIndex(TypedDict):
    name: str
    keys: list[str]
    status: str | None


class QualityResult(TypedDict):
    result_id: str
    ruleset: str | None
    score: float | None
    """Glue's score: the share of rules passed, 0..1."""
    completed: str | None
    rules: int
    failed_rules: list[dict[str, str | None]]
    """Each failed rule: its name, its DQDL and Glue's message."""


class Freshness(TypedDict):
    newest_partition: NotRequired[Partition | None]
    partitions_complete: NotRequired[bool]
    """False: the table has more than one page of partitions, and the newest is of the first 1,000 listed."""
    partition_indexes: NotRequired[list[PartitionIndex]]
    """The keys a filter should use for Glue to find partitions by index (none: Glue reads every partition's
    entry to filter)."""
    data_quality: QualityResult | None
    """Glue Data Quality's latest result for the table; null where it has none."""
    errors: NotRequired[dict[str, ItemError]]
    """Each part that could not be read, by name."""
    note: str


def freshness_calls(glue: Any, database: str, table: str, found: Mapping[str, Any]) -> dict[str, list[Call[Any]]]:
    """The bounded calls, by part; a table with no partition keys (or projected ones) lists no partitions."""
    names = {"DatabaseName": database, "TableName": table}
    keys = found.get("PartitionKeys") or []
    projected = (found.get("Parameters") or {}).get("projection.enabled") == "true"
    calls: dict[str, list[Call[Any]]] = {"data_quality": [Call("glue:ListDataQualityResults", partial(
        glue.list_data_quality_results, Filter={"DataSource": {"GlueTable": dict(names)}},
        MaxResults=DQ_RESULTS_PAGE))]}
    if keys and not projected:
        calls["partitions"] = [Call("glue:GetPartitions", partial(
            glue.get_partitions, **names, ExcludeColumnSchema=True, MaxResults=PARTITIONS_PAGE))]
        calls["partition_indexes"] = [Call("glue:GetPartitionIndexes", partial(glue.get_partition_indexes,
                                                                                **names))]
    return calls


def _newest(found: Mapping[str, Any], page: Mapping[str, Any]) -> Partition | None:
    """The partition with the greatest values (compared as Hive orders them: key by key, as text)."""
    keys = [k["Name"] for k in found.get("PartitionKeys") or []]
    partitions = page.get("Partitions") or []
    if not partitions:
        return None
    newest = max(partitions, key=lambda p: tuple(p.get("Values") or []))
    return Partition(values=dict(zip(keys, newest.get("Values") or [], strict=False)),
                     written=iso(newest.get("CreationTime")))


def newest_result_id(outcomes: Sequence[Outcome[Call[Any], Any]]) -> str | None:
    """The latest Data Quality result's id, from ListDataQualityResults' page."""
    listed = (outcomes[0].value or {}).get("Results") or [] if outcomes and outcomes[0].error is None else []
    if not listed:
        return None
    return str(max(listed, key=lambda r: str(iso(r.get("StartedOn")) or ""))["ResultId"])


def result_call(request: ResourceRequest, result_id: str) -> Call[Any]:
    return Call("glue:GetDataQualityResult", partial(request.client("glue").get_data_quality_result,
                                                     ResultId=result_id))


def quality_result(result: Mapping[str, Any]) -> QualityResult:
    rules = result.get("RuleResults") or []
    failed = [{"name": r.get("Name"), "rule": r.get("EvaluatedRule") or r.get("Description"),
               "message": r.get("EvaluationMessage")} for r in rules if r.get("Result") in ("FAIL", "ERROR")]
    return QualityResult(result_id=str(result.get("ResultId")), ruleset=result.get("RulesetName"),
                         score=result.get("Score"), completed=iso(result.get("CompletedOn")), rules=len(rules),
                         failed_rules=failed)


def freshness(found: Mapping[str, Any], outcomes: Mapping[str, Sequence[Outcome[Call[Any], Any]]],
              result: Outcome[Call[Any], Any] | None) -> Freshness:
    """The parts `freshness_calls` read, each error kept beside the others."""
    errors = {name: listed[0].error.brief() for name, listed in outcomes.items()
              if listed and listed[0].error is not None}
    if result is not None and result.error is not None:
        errors["data_quality"] = result.error.brief()
    answer = Freshness(data_quality=quality_result(result.value or {}) if result is not None and result.ok
                       else None, note="")
    if "partitions" in outcomes and "partitions" not in errors:
        page = outcomes["partitions"][0].value or {}
        answer["newest_partition"] = _newest(found, page)
        answer["partitions_complete"] = not page.get("NextToken")
    if "partition_indexes" in outcomes and "partition_indexes" not in errors:
        answer["partition_indexes"] = [
            PartitionIndex(name=str(i.get("IndexName")), keys=[k.get("Name") for k in i.get("Keys") or []],
                           status=i.get("IndexStatus"))
            for i in (outcomes["partition_indexes"][0].value or {}).get("PartitionIndexDescriptorList") or []]
    if errors:
        answer["errors"] = errors
    answer["note"] = _note(answer)
    return answer


def _note(answer: Freshness) -> str:
    parts = []
    newest = answer.get("newest_partition")
    if newest:
        shown = ", ".join(f"{k}={v}" for k, v in newest["values"].items())
        scope = "" if answer.get("partitions_complete") else " (of the first 1,000 partitions listed)"
        parts.append(f"Newest partition{scope}: {shown}, registered {newest['written']}.")
    if answer.get("partition_indexes") == []:
        parts.append("No partition index: Glue reads every partition's entry to filter on the keys.")
    quality = answer["data_quality"]
    if quality is not None:
        parts.append(f"Data Quality's latest result scores {quality['score']} with {len(quality['failed_rules'])} "
                     f"of {quality['rules']} rules failed.")
    elif "data_quality" not in answer.get("errors", {}):
        parts.append("Glue Data Quality has no result for this table.")
    return " ".join(parts)
