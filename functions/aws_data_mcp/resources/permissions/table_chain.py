"""permissions://tables/{database}/{table}: would a SELECT on this table run for the caller, and if not, which link
of the chain breaks, with the fix to copy.

Three waves of calls, each side by side: Glue (the table, its database, a partition), Lake Formation (registered
locations, grants, settings), the workgroups and IAM's simulation of Athena's actions; then, from the table's
location and each workgroup's result location, the S3 listing, bucket policies and default encryption; then a
one-byte read of the data (S3 and KMS), the data key's policy and the simulation of writing results.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, TypedDict

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources.permissions.lake_formation import (
    grant_fix,
    permissions_link,
    registration_link,
    table_permissions,
)
from aws_data_mcp.resources.permissions.links import (
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
from aws_data_mcp.resources.permissions.registrations import registered_locations
from aws_data_mcp.resources.permissions.storage import (
    Reads,
    Seat,
    read_chain,
    s3_location,
)
from aws_data_mcp.resources.permissions.workgroup_checks import WorkgroupChecks, first_usable

GLUE_ACTIONS = ("glue:GetDatabase", "glue:GetTable", "glue:GetPartitions")


class TableAccess(TypedDict):
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
    links: list[Link]
    workgroups: dict[str, list[Link]]
    unseen: list[Unseen]





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
                                           MaxResults=1)),
        Call("lakeformation:ListResources", partial(registered_locations, lakeformation)),
        Call("lakeformation:ListPermissions", partial(table_permissions, lakeformation, {
            "Table": {"DatabaseName": database, "Name": table}})),
        Call("lakeformation:GetDataLakeSettings", lakeformation.get_data_lake_settings),
        *checks.first()]
    found = yield first
    glue_found, (registered, grants, lake_settings) = found[:3], found[3:6]
    links = _glue_links(seat, glue_found, arns, database, table)
    detail = (glue_found[1].value or {}).get("Table") or {}
    descriptor = detail.get("StorageDescriptor") or {}
    columns = [c["Name"] for c in [*(descriptor.get("Columns") or []), *(detail.get("PartitionKeys") or [])]]
    location = s3_location(descriptor.get("Location"))
    read_columns: list[str] | None = None
    decided_by: Governor = "iam"
    second: list[Call[Any]] = []
    if location is not None:
        registration, registered_at = registration_link(registered, *location)
        decided_by = registration["governed_by"]
        permissions, read_columns = permissions_link(seat, database, table, columns, registered_at, registered.ok,
                                                     grants, lake_settings)
        links += [registration, permissions]
        if permissions["evidence"].get("answered", "").startswith("IAM_ALLOWED_PRINCIPALS"):
            decided_by = "iam"
        second.append(Call("s3:ListBucket", partial(read_chain, request, seat, *location, decided_by)))
    elif glue_found[1].ok:
        links.append(link("s3:GetObject", str(descriptor.get("Location")), "unknown", {
            "location": descriptor.get("Location")}, settle="The table has no S3 location (a view, or another "
                                                            "catalog's table): its sources decide"))
    else:
        links.append(link("s3:GetObject", "unknown", "unknown", {}, settle="The table's location is unknown until "
                          "glue:GetTable is allowed: read this again then"))
    workgroup_calls = checks.second(found[6:])
    answers = yield second + workgroup_calls
    chains = answers[:len(second)]
    workgroup_links = checks.links(answers[len(second):])
    if location is not None:
        reads: Reads | None = chains[0].value
        links += reads.links if reads is not None else [link("s3:ListBucket", f"arn:aws:s3:::{location[0]}",
                                                             "unknown", answered(chains[0]),
                                                             settle=unsettled(chains[0]))]
        for entry in links:
            if entry["check"].startswith(("s3:", "kms:")):
                entry["governed_by"] = decided_by
    return _answer(request, seat, database, table, descriptor.get("Location"), links, workgroup_links, decided_by,
                   read_columns)


def _answer(request: ResourceRequest, seat: Seat, database: str, table: str, location: str | None,
            links: list[Link], workgroups: dict[str, list[Link]], decided_by: Governor,
            read_columns: list[str] | None) -> TableAccess:
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
    if verdict == "denied" or read_columns is None:
        read_columns = [] if verdict == "denied" else read_columns
    caller = request.caller
    return TableAccess(
        database=database, table=table, principal_arn=caller.principal_arn, simulated_as=seat.principal,
        location=location, query=verdict, workgroup=chosen, decided_by=decided_by, read_columns=read_columns,
        links=links, workgroups=workgroups,
        unseen=unseen_from_the_callers_seat())


def explain_table(request: ResourceRequest) -> TableAccess:
    database, table = request.args["database"], request.args["table"]
    outcome = request.fan_out(Call.run, [Call("glue:GetTable", partial(_explain, request, database, table))],
                              action=Call.action_of)[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]

