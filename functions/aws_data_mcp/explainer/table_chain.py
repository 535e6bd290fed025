"""permissions://tables/{database}/{table}: would a SELECT on this table run for the caller, and if not, which link
of the chain breaks, with the fix to copy.

Three waves of calls, each side by side: Glue (the table, its database, a partition), Lake Formation (registered
locations, grants, settings), the workgroups and IAM's simulation of Athena's actions; then, from the table's
location and each workgroup's result location, the S3 listing, bucket policies and default encryption; then a
one-byte read of the data (S3 and KMS), the data key's policy and the simulation of writing results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, NotRequired, TypedDict

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer.direct_reads import OwnerFinding, direct_read_findings
from aws_data_mcp.explainer.iceberg_files import Found, IcebergReads, iceberg_files, placed
from aws_data_mcp.explainer.lake_formation import (
    SELECT,
    LakeAnswers,
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
from aws_data_mcp.explainer.storage_links import Reads, Subject, read_chain, s3_location
from aws_data_mcp.explainer.summary import summary
from aws_data_mcp.explainer.workgroup_checks import WorkgroupChecks, first_usable, no_workgroup_link
from aws_data_mcp.lakehouse.projection import PartitionProjection, describe_projection, projected_locations
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
    read_from: NotRequired[dict[str, Any]]
    """Where the data links read: an Iceberg table's files found from its metadata file and manifests (`iceberg`),
    the newest locations a projection makes (`projected`), or a Hive table's root and partitions (`hive`); and
    what stays unknown there, and why."""
    resource_link: NotRequired[dict[str, Any]]
    """A resource link: its target (account, database, table), the target's location and columns, and the first
    check that refuses (`refused_at`: DESCRIBE on the link, glue:GetTable or SELECT on the target), or null."""





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


def _glue_fix(subject: Subject, outcome: Outcome[Any, Any], arns: Sequence[str], database: str,
              table: str) -> list[Fix]:
    """Lake Formation's DESCRIBE where Lake Formation refused, else the Glue actions on the catalog, database and
    table ARNs."""
    failure = outcome.error
    if failure is not None and "lake formation" in f"{failure.message} {failure.details}".lower():
        return [grant_fix(subject.principal, database, table, subject.account)]
    return [identity_fix(subject.principal, list(GLUE_ACTIONS), list(arns), subject.reach)]


def _glue_link(subject: Subject, action: str, outcome: Outcome[Any, Any], arns: Sequence[str], database: str,
               table: str) -> Link:
    if outcome.error is not None and outcome.error.code is ErrorCode.NOT_FOUND and action != "glue:GetPartitions":
        raise outcome.error
    return link(action, arns[2] if action != "glue:GetDatabase" else arns[1], verdict_of(outcome),
                answered(outcome), fix=_glue_fix(subject, outcome, arns, database, table), settle=unsettled(outcome))


Placed = tuple[str | None, tuple[str, str], Outcome[Any, Any]]
"""One read chain's outcome: what it read (Iceberg's metadata or data files; None: a location), where."""


def _partition_reads(request: ResourceRequest, subject: Subject, database: str, table: str, root: tuple[str, str],
                     decided_by: Governor) -> Chain[tuple[Outcome[Any, Any], list[Placed]]]:
    """A Hive table's partitions (one page), then a read chain at each location they add to the root's."""
    glue = request.client("glue")
    (partitions,) = yield [Call("glue:GetPartitions", partial(
        glue.get_partitions, DatabaseName=database, TableName=table, MaxResults=PARTITIONS,
        ExcludeColumnSchema=True))]
    places = partition_locations(partitions, root)
    reads = yield [Call("s3:ListBucket", partial(read_chain, request, subject, *place, decided_by, table=root))
                   for place in places]
    return partitions, [(None, place, outcome) for place, outcome in zip(places, reads, strict=True)]


def _iceberg_reads(request: ResourceRequest, subject: Subject, detail: Mapping[str, Any], location: tuple[str, str],
                   decided_by: Governor) -> Chain[tuple[IcebergReads, list[Placed]]]:
    """The files Athena reads (iceberg_files), then a read chain per group of them: no partition, no listing."""
    parameters = detail.get("Parameters") or {}
    data_path = s3_location(parameters.get("write.data.path"))
    found: Found = yield from iceberg_files(request, parameters["metadata_location"],
                                            parameters.get("write.data.path"))
    groups = placed(found, [location, *([data_path] if data_path else [])])
    reads = yield [Call("s3:ListBucket", partial(read_chain, request, subject, *place, decided_by, files=keys))
                   for _, place, keys in groups]
    return found.reads, [(role, place, outcome) for (role, place, _), outcome in zip(groups, reads, strict=True)]


def _projected_reads(request: ResourceRequest, subject: Subject, projection: PartitionProjection, location: str,
                     decided_by: Governor) -> Chain[tuple[dict[str, Any], list[Placed]]]:
    """A read chain at each of the newest locations the projection makes (Athena reads no Glue partition)."""
    uris, why = projected_locations(projection, location, LOCATIONS)
    places = [place for place in dict.fromkeys(s3_location(uri) for uri in uris) if place is not None]
    root = s3_location(location)
    reads = yield [Call("s3:ListBucket", partial(read_chain, request, subject, *place, decided_by, table=root))
                   for place in places]
    return {"projected_locations": [f"s3://{b}/{p}" for b, p in places], "unknown": why}, [
        ("projected location", place, outcome) for place, outcome in zip(places, reads, strict=True)]


def _kind(detail: Mapping[str, Any]) -> str:
    parameters = detail.get("Parameters") or {}
    if str(parameters.get("table_type", "")).upper() == "ICEBERG" and parameters.get("metadata_location"):
        return "iceberg"
    return "projected" if str(parameters.get("projection.enabled", "")).lower() == "true" else "hive"


def _place_links(role: str | None, place: tuple[str, str], outcome: Outcome[Any, Any]) -> list[Link]:
    """A read chain's links, each naming its location; a projected location that holds no file adds no read (a
    query reads nothing there)."""
    reads: Reads | None = outcome.value
    found = reads.links if reads is not None else [link("s3:ListBucket", f"arn:aws:s3:::{place[0]}", "unknown",
                                                        answered(outcome), settle=unsettled(outcome))]
    if role == "projected location" and reads is not None and reads.links[0]["evidence"].get("objects_seen") == 0:
        found = found[:1]
    for entry in found:
        entry["evidence"]["location"] = f"s3://{place[0]}/{place[1]}"
        if role:
            entry["evidence"]["reads"] = role
    return found


def _unknown_files(why: str, location: str) -> Link:
    return link("s3:GetObject", location, "unknown", {"reads": "data files"},
                settle=f"{why}: the files Athena reads there are established once it can be read")


def _second_wave(request: ResourceRequest, subject: Subject, database: str, table: str, detail: Mapping[str, Any],
                 location: tuple[str, str], decided_by: Governor) -> list[Call[Any]]:
    """Where Athena reads the table's data: an Iceberg table's files, the locations a projection makes, or a Hive
    table's root beside its partitions' locations."""
    kind = _kind(detail)
    if kind == "iceberg":
        return [Call("s3:GetObject", partial(_iceberg_reads, request, subject, detail, location, decided_by))]
    if kind == "projected":
        keys = [k["Name"] for k in detail.get("PartitionKeys") or []]
        projection = describe_projection(detail.get("Parameters") or {}, keys)
        assert projection is not None  # projection.enabled is one of its parameters
        return [Call("s3:ListBucket", partial(_projected_reads, request, subject, projection,
                                              f"s3://{location[0]}/{location[1]}", decided_by))]
    return [Call("s3:ListBucket", partial(read_chain, request, subject, *location, decided_by)),
            Call("glue:GetPartitions", partial(_partition_reads, request, subject, database, table, location,
                                               decided_by))]


def _data_links(subject: Subject, kind: str, answers: Sequence[Outcome[Any, Any]], arns: Sequence[str], database: str,
                table: str, location: tuple[str, str]) -> tuple[list[Link], list[Link], dict[str, Any]]:
    """The second wave's answers as (Glue's partition link, the S3 and KMS links, what was read from)."""
    glue: list[Link] = []
    placed_reads: list[Placed] = []
    read_from: dict[str, Any] = {"kind": kind}
    root = f"arn:aws:s3:::{location[0]}/{location[1]}*"
    if kind == "hive":
        placed_reads.append((None, location, answers[0]))
        partitions = answers[1]
        if partitions.value is not None:
            listed, more = partitions.value
            placed_reads += more
            read_from["partition_locations"] = [f"s3://{b}/{p}" for _, (b, p), _ in more]
        else:
            listed = partitions
        glue = [_glue_link(subject, "glue:GetPartitions", listed, arns, database, table)]
    else:
        outcome = answers[0]
        if outcome.value is None:
            return [], [_unknown_files(unsettled(outcome), root)], read_from
        described, placed_reads = outcome.value
        read_from |= described
    links = [entry for role, place, outcome in placed_reads for entry in _place_links(role, place, outcome)]
    if read_from.get("unknown"):
        links.append(_unknown_files(read_from["unknown"], root))
    if kind == "projected" and not any(e["check"] == "s3:GetObject" for e in links) and not read_from["unknown"]:
        links.append(_unknown_files(f"none of the {len(placed_reads)} newest projected locations holds a file",
                                    root))
    return glue, links, read_from


def _explain(request: ResourceRequest, database: str, table: str) -> Chain[TableAccess]:
    caller, subject = request.caller, Subject.of(request.caller)
    region, account = caller.region, subject.account or "*"
    arns = [f"arn:aws:glue:{region}:{account}:catalog", f"arn:aws:glue:{region}:{account}:database/{database}",
            f"arn:aws:glue:{region}:{account}:table/{database}/{table}"]
    glue, lakeformation = request.client("glue"), request.client("lakeformation")
    checks = WorkgroupChecks.of(request, subject)
    first: list[Call[Any]] = [
        Call("glue:GetDatabase", partial(glue.get_database, Name=database)),
        Call("glue:GetTable", partial(glue.get_table, DatabaseName=database, Name=table)),
        Call("lakeformation:ListResources", partial(registered_resources, lakeformation)),
        *(lake_asked := lake_calls(lakeformation, subject.principal, database, table)),
        *checks.first()]
    found = yield first
    glue_found, registered = found[:2], found[2]
    lake = lake_answers(found[3:3 + len(lake_asked)])
    workgroup_calls = checks.second(found[3 + len(lake_asked):])
    links = [_glue_link(subject, action, outcome, arns, database, table)
             for action, outcome in zip(GLUE_ACTIONS, glue_found, strict=False)]
    detail = (glue_found[1].value or {}).get("Table") or {}
    if detail.get("TargetTable"):  # a resource link: Lake Formation checks the link, then its target
        return (yield from _linked(request, subject, database, table, detail, links, lake, checks, workgroup_calls))
    descriptor = detail.get("StorageDescriptor") or {}
    columns = [c["Name"] for c in [*(descriptor.get("Columns") or []), *(detail.get("PartitionKeys") or [])]]
    location = s3_location(descriptor.get("Location"))
    readable: Readable | None = None
    decided_by: Governor = "iam"
    second: list[Call[Any]] = []
    registered_at: tuple[str | None, bool, bool] = (None, False, registered.ok)
    if location is not None:
        registration, *place = registration_link(registered, *location)
        registered_at = (place[0], place[1], registered.ok)
        permissions, readable, lake_decides = permissions_link(subject, database, table, columns, *registered_at, lake)
        links += [registration, permissions]
        decided_by = "lake_formation" if lake_decides and registered_at[0] else "iam"
        if decided_by == "lake_formation":
            links.append(checks.data_access_link())
        second = _second_wave(request, subject, database, table, detail, location, decided_by)
    elif glue_found[1].ok:
        links.append(link("s3:GetObject", str(descriptor.get("Location")), "unknown", {
            "location": descriptor.get("Location")}, settle="The table has no S3 location (a view, or another "
                                                            "catalog's table): its sources decide"))
    else:
        links.append(link("s3:GetObject", "unknown", "unknown", {}, settle="The table's location is unknown until "
                          "glue:GetTable is allowed: read this again then"))
    filtered = filter_calls(lakeformation, lake) if decided_by == "lake_formation" else []
    answers = yield second + filtered + workgroup_calls
    if filtered:  # the grants on the table's data cells filters: the permissions link read again with them
        lake = replace(lake, filter_grants=tuple(answers[len(second):len(second) + len(filtered)]))
        at = next(i for i, entry in enumerate(links) if entry["check"] == SELECT)
        links[at], readable, _ = permissions_link(subject, database, table, columns, *registered_at, lake)
    workgroup_links = checks.links(answers[len(second) + len(filtered):])
    read_from: dict[str, Any] | None = None
    if location is not None:
        partition_link, data, read_from = _data_links(subject, _kind(detail), answers[:len(second)], arns, database,
                                                      table, location)
        links[2:2] = partition_link
        links += data
    for entry in links:
        if entry["check"].startswith(("s3:", "kms:")):
            entry["governed_by"] = decided_by
    answer = _answer(request, subject, database, table, descriptor.get("Location"), links, workgroup_links, decided_by,
                     readable)
    if read_from is not None:
        answer["read_from"] = read_from
    answer["hidden_columns"] = _hidden(columns, answer)
    answer["owner_findings"] = direct_read_findings(request.client("s3"), subject.principal, answer)
    return answer


def _hidden(columns: Sequence[str], answer: TableAccess) -> list[str]:
    """The table's columns the caller may not read, where its query runs."""
    read = answer["read_columns"]
    return [c for c in columns if c not in read] if read and answer["query"] != "denied" else []


def _linked(request: ResourceRequest, subject: Subject, database: str, table: str, detail: Mapping[str, Any],
            links: list[Link], lake: LakeAnswers, checks: WorkgroupChecks,
            workgroup_calls: list[Call[Any]]) -> Chain[TableAccess]:
    """A resource link's answer: its chain (`resource_links`), judged as any table's, Lake Formation deciding."""
    from aws_data_mcp.explainer.resource_links import explain_link

    every, workgroups, readable, part = yield from explain_link(request, subject, database, table, detail, links,
                                                                lake, checks, workgroup_calls)
    answer = _answer(request, subject, database, table, part["location"], every, workgroups, "lake_formation",
                     readable)
    answer["resource_link"] = part
    answer["hidden_columns"] = _hidden(part["columns"], answer)
    return answer


def _answer(request: ResourceRequest, subject: Subject, database: str, table: str, location: str | None,
            links: list[Link], workgroups: dict[str, list[Link]], decided_by: Governor,
            readable: Readable | None) -> TableAccess:
    """The query verdict: the table's own links that bind the caller (not the data's S3 and KMS where Lake
    Formation reads them with its own role), with the first workgroup whose links all hold."""
    binding = [entry for entry in links if not (decided_by == "lake_formation" and entry["check"].startswith(
        ("s3:", "kms:")))]
    chosen = first_usable(workgroups)
    if chosen is None:
        binding.append(no_workgroup_link())
    verdict = overall([*binding, *(workgroups[chosen] if chosen else [])])
    read_columns = [] if verdict == "denied" else readable.columns if readable is not None else None
    row_filter = " OR ".join(f"({f})" for f in readable.row_filters) if readable and readable.row_filters else None
    caller = request.caller
    every = [*binding, *(workgroups[chosen] if chosen else [])]
    columns = "every column" if read_columns is None or verdict != "allowed" else ", ".join(read_columns)
    columns += f"; rows where {row_filter}" if row_filter and verdict != "denied" else ""
    return TableAccess(
        summary=summary(verdict, every, f"SELECT on {database}.{table} runs in workgroup {chosen} ({columns})",
                        request.settings.summary_resource_chars),
        database=database, table=table, principal_arn=caller.principal_arn, simulated_as=subject.principal,
        location=location, query=verdict, workgroup=chosen, decided_by=decided_by, read_columns=read_columns,
        row_filter=row_filter if verdict != "denied" else None, hidden_columns=[], owner_findings=[], links=links,
        workgroups=workgroups, unseen=unseen_from_the_callers_seat())


def table_access(request: ResourceRequest, database: str, table: str) -> Chain[TableAccess]:
    """One table's chain, for a chain that follows tables (a view's base tables: `views`)."""
    return _explain(request, database, table)


def explain_table(request: ResourceRequest) -> TableAccess:
    database, table = request.args["database"], request.args["table"]
    outcome = request.fan_out(Call.run, [Call("glue:GetTable", partial(_explain, request, database, table))],
                              action=Call.action_of)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]

