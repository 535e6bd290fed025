"""permissions://tables/{database}/{table}: would a SELECT on this table run for the caller, and if not, which link
of the chain breaks, with the fix to copy.

Three waves of calls, each side by side: Glue (the table, its database, a partition), Lake Formation (registered
locations, grants, settings), the workgroups and IAM's simulation of Athena's actions; then, from the table's
location and each workgroup's result location, the S3 listing, bucket policies and default encryption; then a
one-byte read of the data (S3 and KMS), the data key's policy and the simulation of writing results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, TypedDict

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer.direct_reads import OwnerFinding, direct_read_findings
from aws_data_mcp.explainer.lake_formation import (
    SELECT,
    filter_calls,
    grant_fix,
    lake_answers,
    lake_calls,
    permissions_link,
    registration_link,
)
from aws_data_mcp.explainer.lf_grants import Readable
from aws_data_mcp.explainer.model import (
    Fix,
    Governor,
    Link,
    Unseen,
    Verdict,
    answered,
    identity_fix,
    link,
    overall,
    unseen_from_the_callers_seat,
    unsettled,
    verdict_of,
)
from aws_data_mcp.explainer.registrations import registered_resources
from aws_data_mcp.explainer.storage_links import Reads, Seat, read_chain, s3_location
from aws_data_mcp.explainer.summary import summary
from aws_data_mcp.explainer.workgroup_checks import WorkgroupChecks, first_usable
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

GLUE_ACTIONS = ("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions")


class TableAccess(TypedDict):
    summary: str
    """One line: the verdict, the link that decides it, and who fixes it how."""
    database: str
    table: str
    principal_arn: str | None
    simulated_as: str | None
    location: str | None
    query: Verdict
    """Would a SELECT on the table run: every link of the chain (in the workgroup below) holds."""
    workgroup: str | None
    """The workgroup the verdict is for: the first allowed one whose links all hold, else the default."""
    decided_by: Governor
    read_columns: list[str] | None
    """The columns Lake Formation lets the caller read (all, where it does not govern); null where unknown."""
    row_filter: str | None
    """The rows Lake Formation lets the caller read (a data cells filter's PartiQL predicate); null: every row."""
    hidden_columns: list[str]
    """The table's columns Lake Formation does not let the caller read, where the query runs (else empty)."""
    owner_findings: list[OwnerFinding]
    """For the data owner (`direct_reads`): the caller's credentials read the files past Lake Formation's grants."""
    links: list[Link]
    workgroups: dict[str, list[Link]]
    unseen: list[Unseen]





PARTITIONS = 100
"""Partitions read (one GetPartitions page): their locations, where outside the table's root or under it, are each
listed and sampled, since files under another prefix or bucket may have another policy, key or owner."""
LOCATIONS = 8
"""Partition locations sampled at most beside the root (the first of the page, in Glue's order)."""


def partition_locations(partitions: Outcome[Any, Any], root: tuple[str, str]) -> list[tuple[str, str]]:
    """The distinct locations of the partitions read, but the table's root (bounded by LOCATIONS)."""
    found: list[tuple[str, str]] = []
    for partition in (partitions.value or {}).get("Partitions", []):
        place = s3_location((partition.get("StorageDescriptor") or {}).get("Location"))
        if place is not None and place != root and place not in found:
            found.append(place)
    return found[:LOCATIONS]


def _glue_fix(seat: Seat, outcome: Outcome[Any, Any], arns: Sequence[str], database: str, table: str) -> list[Fix]:
    """Lake Formation's DESCRIBE where Lake Formation refused, else the Glue actions on the catalog, database and
    table ARNs."""
    failure = outcome.error
    if failure is not None and "lake formation" in f"{failure.message} {failure.details}".lower():
        return [grant_fix(seat.principal, database, table, seat.account)]
    return [identity_fix(seat.principal, list(GLUE_ACTIONS), list(arns))]


def _glue_links(seat: Seat, outcomes: Sequence[Outcome[Any, Any]], arns: Sequence[str], database: str,
                table: str) -> list[Link]:
    links = []
    for action, outcome in zip(GLUE_ACTIONS, outcomes, strict=True):
        if outcome.error is not None and outcome.error.code is ErrorCode.NOT_FOUND and action != "glue:GetPartitions":
            raise outcome.error
        links.append(link(action, arns[2] if action != "glue:GetDatabase" else arns[1], verdict_of(outcome),
                          answered(outcome), fix=_glue_fix(seat, outcome, arns, database, table),
                          settle=unsettled(outcome)))
    return links


def _explain(request: ResourceRequest, database: str, table: str) -> Chain[TableAccess]:
    caller, seat = request.caller, Seat.of(request.caller)
    region, account = caller.region, seat.account or "*"
    arns = [f"arn:aws:glue:{region}:{account}:catalog", f"arn:aws:glue:{region}:{account}:database/{database}",
            f"arn:aws:glue:{region}:{account}:table/{database}/{table}"]
    glue, lakeformation = request.client("glue"), request.client("lakeformation")
    checks = WorkgroupChecks.of(request, seat)
    first: list[Call[Any]] = [
        Call("glue:GetDatabase", partial(glue.get_database, Name=database)),
        Call("glue:GetTable", partial(glue.get_table, DatabaseName=database, Name=table)),
        Call("glue:GetPartitions", partial(glue.get_partitions, DatabaseName=database, TableName=table,
                                           MaxResults=PARTITIONS, ExcludeColumnSchema=True)),
        Call("lakeformation:ListResources", partial(registered_resources, lakeformation)),
        *(lake_asked := lake_calls(lakeformation, seat.principal, database, table)),
        *checks.first()]
    found = yield first
    glue_found, registered = found[:3], found[3]
    lake = lake_answers(found[4:4 + len(lake_asked)])
    workgroup_calls = checks.second(found[4 + len(lake_asked):])
    links = _glue_links(seat, glue_found, arns, database, table)
    detail = (glue_found[1].value or {}).get("Table") or {}
    descriptor = detail.get("StorageDescriptor") or {}
    columns = [c["Name"] for c in [*(descriptor.get("Columns") or []), *(detail.get("PartitionKeys") or [])]]
    location = s3_location(descriptor.get("Location"))
    readable: Readable | None = None
    decided_by: Governor = "iam"
    second: list[Call[Any]] = []
    places: list[tuple[str, str]] = []
    registered_at: tuple[str | None, bool, bool] = (None, False, registered.ok)
    if location is not None:
        registration, *place = registration_link(registered, *location)
        registered_at = (place[0], place[1], registered.ok)
        permissions, readable, lake_decides = permissions_link(seat, database, table, columns, *registered_at, lake)
        links += [registration, permissions]
        decided_by = "lake_formation" if lake_decides and registered_at[0] else "iam"
        if decided_by == "lake_formation":
            links.append(checks.data_access_link())
        places = [location, *partition_locations(glue_found[2], location)]
        second += [Call("s3:ListBucket", partial(read_chain, request, seat, *place, decided_by)) for place in places]
    elif glue_found[1].ok:
        links.append(link("s3:GetObject", str(descriptor.get("Location")), "unknown", {
            "location": descriptor.get("Location")}, settle="The table has no S3 location (a view, or another "
                                                            "catalog's table): its sources decide"))
    else:
        links.append(link("s3:GetObject", "unknown", "unknown", {}, settle="The table's location is unknown until "
                          "glue:GetTable is allowed: read this again then"))
    filtered = filter_calls(lakeformation, lake) if decided_by == "lake_formation" else []
    answers = yield second + filtered + workgroup_calls
    chains = answers[:len(second)]
    if filtered:  # the grants on the table's data cells filters: the permissions link read again with them
        lake = replace(lake, filter_grants=tuple(answers[len(second):len(second) + len(filtered)]))
        at = next(i for i, entry in enumerate(links) if entry["check"] == SELECT)
        links[at], readable, _ = permissions_link(seat, database, table, columns, *registered_at, lake)
    workgroup_links = checks.links(answers[len(second) + len(filtered):])
    for place, outcome in zip(places, chains, strict=False):  # the table's root, then each partition's location
        reads: Reads | None = outcome.value
        found = reads.links if reads is not None else [link("s3:ListBucket", f"arn:aws:s3:::{place[0]}", "unknown",
                                                            answered(outcome), settle=unsettled(outcome))]
        for entry in found:
            entry["evidence"]["location"] = f"s3://{place[0]}/{place[1]}"
        links += found
    for entry in links:
        if entry["check"].startswith(("s3:", "kms:")):
            entry["governed_by"] = decided_by
    answer = _answer(request, seat, database, table, descriptor.get("Location"), links, workgroup_links, decided_by,
                     readable)
    answer["hidden_columns"] = [c for c in columns if c not in answer["read_columns"]] if answer[
        "read_columns"] and answer["query"] != "denied" else []
    answer["owner_findings"] = direct_read_findings(request.client("s3"), seat.principal, answer)
    return answer


def _answer(request: ResourceRequest, seat: Seat, database: str, table: str, location: str | None,
            links: list[Link], workgroups: dict[str, list[Link]], decided_by: Governor,
            readable: Readable | None) -> TableAccess:
    """The query verdict: the table's own links that bind the caller (not the data's S3 and KMS where Lake
    Formation reads them with its own role), with the first workgroup whose links all hold."""
    binding = [entry for entry in links if not (decided_by == "lake_formation" and entry["check"].startswith(
        ("s3:", "kms:")))]
    chosen = first_usable(workgroups)
    if chosen is None:
        binding.append(link("athena:workgroup", "none", "denied", {
            "answered": "this deployment allows no Athena workgroup"}, fix=[Fix(
                kind="workgroup", apply_by="administrator", target="AWS_DATA_MCP_QUERY_WORKGROUPS",
                command="Set AWS_DATA_MCP_QUERY_WORKGROUPS (template parameter QueryWorkgroups) to a workgroup "
                        "whose bytes-scanned cutoff is set and enforced.")]))
    verdict = overall([*binding, *(workgroups[chosen] if chosen else [])])
    read_columns = [] if verdict == "denied" else readable.columns if readable is not None else None
    row_filter = " OR ".join(f"({f})" for f in readable.row_filters) if readable and readable.row_filters else None
    caller = request.caller
    every = [*binding, *(workgroups[chosen] if chosen else [])]
    columns = "every column" if read_columns is None or verdict != "allowed" else ", ".join(read_columns)
    columns += f"; rows where {row_filter}" if row_filter and verdict != "denied" else ""
    return TableAccess(
        summary=summary(verdict, every, f"SELECT on {database}.{table} runs in workgroup {chosen} ({columns})"),
        database=database, table=table, principal_arn=caller.principal_arn, simulated_as=seat.principal,
        location=location, query=verdict, workgroup=chosen, decided_by=decided_by, read_columns=read_columns,
        row_filter=row_filter if verdict != "denied" else None, hidden_columns=[], owner_findings=[], links=links,
        workgroups=workgroups, unseen=unseen_from_the_callers_seat())


def explain_table(request: ResourceRequest) -> TableAccess:
    database, table = request.args["database"], request.args["table"]
    outcome = request.fan_out(Call.run, [Call("glue:GetTable", partial(_explain, request, database, table))],
                              action=Call.action_of)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]

