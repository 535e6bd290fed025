"""permissions://recommendations: what to grant where the caller's access falls short.

Each finding comes from other resources' answers and claims no more than they checked.
Buckets come from permissions://discover, workgroups from athena://workgroups.
Each other table gets its explainer, at most `EXPLAINED` a read. Bucket checks miss prefixes and keys.
The caller's own obstacles come first (`about`: tables refused or restricted, Lake Formation's hidden columns and
row filters included, and query workgroups it cannot use), then the account's set-up; the tables of databases
marked as fixtures (Glue database parameter `FIXTURE_PARAMETER`, as the demo's `enterprise` is) last, marked.
The explainers' repeated checks (workgroups, the caller's policies, bucket and key policies) are asked once per
read (`reading.call_memo`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import urlparse

from botocore.exceptions import BotoCoreError, ClientError

from aws_data_mcp.errors import ResourceFailure
from aws_data_mcp.explainer.model import Link
from aws_data_mcp.explainer.summary import deciding
from aws_data_mcp.explainer.uris import bucket_uri, table_uri
from aws_data_mcp.reading.fanout import Outcome
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import glue_databases
from aws_data_mcp.resources.permissions.discover import BucketAccess

EXPLAINED = 15
"""Tables read through permissions://tables at most per read, the caller's own databases' first. Each costs about 8
AWS calls of its own once a read asks every repeated check once (Glue's table and partitions, Lake Formation's
grants, filters and tags, the table's listing and sample): the bench's account (100 buckets, 40 workgroups, 202
tables) then reads in about 475 calls, against 960 when each explainer asked everything again, and the demo's 15
tables outside its fixtures fit; beyond, the rest are named, unexplained, in one finding."""
FIXTURE_PARAMETER = "aws-data-mcp:fixture"
"""A Glue database parameter: "true" marks a database of test or demonstration cases (the demo's `enterprise`),
whose findings are listed after the caller's own and marked `about: fixture`."""

Severity = Literal["high", "medium", "info"]
About = Literal["your_queries", "setup", "fixture"]
ABOUT_ORDER: dict[str, int] = {"your_queries": 0, "setup": 1, "fixture": 2}


class TableRef(TypedDict):
    table: str
    """database.table"""
    explain: str
    """Its permissions://tables explainer: every link checked, with the fix to copy."""


class Recommendation(TypedDict):
    severity: Severity
    about: NotRequired[About]
    """your_queries: a table (or its columns) or a query workgroup the caller's queries meet; setup: the account's
    set-up; fixture: a table of a database marked as fixtures (`FIXTURE_PARAMETER`)."""
    finding: str
    """One line."""
    missing_action: str
    resource_arn: str
    fix: str
    explain: NotRequired[str]
    """The permissions:// explainer of the bucket or table concerned: each link checked, with the fix to copy."""
    tables: NotRequired[list[TableRef]]
    """The tables the finding refuses (or leaves unverified), each with its explainer."""
    workgroup: NotRequired[str]
    """The deployment's query workgroup the finding is about (athena://workgroups' query_workgroups)."""
    retryable: NotRequired[bool]
    """For an unverified table: AWS throttled (or could not answer) the check that leaves it unknown; read again
    later."""


class Explained(TypedDict):
    tables: int
    """Tables read through their permissions://tables explainer."""
    of: int
    """Tables whose access discover's bucket verdicts did not settle (at most `EXPLAINED` are explained)."""


class Recommendations(TypedDict):
    principal_arn: str | None
    count: int
    explained: Explained
    recommendations: list[Recommendation]


def _recommend(severity: Severity, finding: str, action: str, arn: str, fix: str | None = None,
               explain: str | None = None) -> Recommendation:
    found = Recommendation(severity=severity, finding=finding, missing_action=action, resource_arn=arn,
                           fix=fix or f"Allow {action} on {arn} in a policy attached to the caller's IAM identity.")
    if explain:
        found["explain"] = explain
    return found


def _unchecked(bucket: str, action: str, arn: str, what: str) -> Recommendation:
    """A bucket discover did not see: listing covers the caller's own account's buckets only, so it is most often
    another account's. Nothing is known of it, so nothing is claimed."""
    return _recommend("info", f"{what} s3://{bucket}/, which is not among the buckets of the caller's account "
                      "(another account's?): the caller's access to it could not be checked", action, arn,
                      fix=f"If queries fail there, allow {action} on {arn} in the caller's identity policy and ask "
                      "the bucket's owner to grant it in the bucket policy (both are needed across accounts).",
                      explain=bucket_uri(bucket))


def _s3_location(uri: str) -> tuple[str, str]:
    parsed = urlparse(uri)
    return parsed.netloc, parsed.path.lstrip("/")


def _result_location_findings(name: str, location: str, seen: BucketAccess | None) -> list[Recommendation]:
    """What stops a workgroup's queries from writing their results: Athena lists and writes its result location."""
    bucket, prefix = _s3_location(location)
    results_arn = f"arn:aws:s3:::{bucket}/{prefix}*"
    if seen is None:
        return [_unchecked(bucket, "s3:PutObject", results_arn, f"Workgroup {name} writes query results to")]
    found: list[Recommendation] = []
    explain = bucket_uri(bucket)
    if seen["evidence"]["list"] == "denied":
        found.append(_recommend("high", f"Workgroup {name} writes results to s3://{bucket}/, which the caller "
                                "cannot list", "s3:ListBucket", f"arn:aws:s3:::{bucket}", explain=explain))
    if seen["write"] == "denied":
        found.append(_recommend("high", f"Workgroup {name}'s result location {location} is not writable by the "
                                "caller: its queries would fail", "s3:PutObject", results_arn, explain=explain))
    elif seen["write"] == "unknown":
        why = seen.get("write_note") or "the policy simulator was unavailable"
        found.append(_recommend("info", f"Could not confirm that the caller may write query results to {location}: "
                                f"{why}", "s3:PutObject", results_arn, explain=explain))
    return found


def _workgroup_findings(workgroups: Sequence[Mapping[str, Any]], access: Mapping[str, BucketAccess],
                        region: str, account: str) -> list[Recommendation]:
    found: list[Recommendation] = []
    for workgroup in workgroups:
        name = workgroup["name"]
        if workgroup["access"] == "denied":
            found.append(_recommend("medium", f"Workgroup {name} can be listed but not described",
                                    "athena:GetWorkGroup", f"arn:aws:athena:{region}:{account}:workgroup/{name}"))
        elif workgroup.get("result_location"):
            location = workgroup["result_location"]
            found += _result_location_findings(name, location, access.get(_s3_location(location)[0]))
    return found


def _tables_own_fix(action: str, tables: str, explain: str) -> str:
    """The table's own fix, never a grant on the whole bucket: that would reach more than the tables, and an
    explicit Deny (the usual reason a read is refused) would defeat it."""
    where = explain if explain.startswith("permissions://tables/") else \
        f"permissions://tables/{{database}}/{{table}} of each ({tables})"
    return (f"Read {where}: its {action} link carries the one grant the table's own objects need, narrowed where a "
            "Deny refuses it, and says who applies it.")


def _tables_finding(bucket: str, tables: str, seen: BucketAccess | None, explain: str) -> Recommendation | None:
    """Athena lists a table's location and reads its objects: what the checks say of that, claiming no more. Where
    Lake Formation governs the bucket, its grants decide, not the IAM checks: the table's explainer reads them."""
    objects, whole = f"arn:aws:s3:::{bucket}/*", f"arn:aws:s3:::{bucket}"
    if seen is None:
        return _unchecked(bucket, "s3:GetObject", objects, f"Tables {tables} are stored in")
    if seen.get("decided_by") == "lake_formation":
        return _recommend("info", f"Tables {tables} are stored in s3://{bucket}/, registered with Lake Formation: "
                          "its grants decide who reads them, not the IAM checks of permissions://discover",
                          "lakeformation:SELECT", objects, fix=f"Read {explain}: it reads Lake Formation's grants as "
                          "the caller and prints the grant to copy.", explain=explain)
    evidence = seen["evidence"]
    if evidence["read"] == "ok" or seen["level"] == "write":
        return None
    if evidence["read"] == "denied":
        return _recommend("high", f"Tables {tables} are stored in s3://{bucket}/, whose objects the caller cannot "
                          "read: queries on them would fail", "s3:GetObject", objects,
                          fix=_tables_own_fix("s3:GetObject", tables, explain), explain=explain)
    if evidence["list"] == "denied":
        return _recommend("high", f"Tables {tables} are stored in s3://{bucket}/, which the caller cannot list: "
                          "queries on them would fail", "s3:ListBucket", whole,
                          fix=_tables_own_fix("s3:ListBucket", tables, explain), explain=explain)
    if evidence["list"] == "ok":
        return _recommend("info", f"Tables {tables} are stored in s3://{bucket}/, where the caller's listing found "
                          "no object (an empty bucket?): read access is unverified", "s3:GetObject", objects,
                          fix=f"Nothing to do if the tables are empty; otherwise check s3:GetObject on {objects}.",
                          explain=explain)
    why = next((e["message"] for e in seen["errors"]), "its checks did not finish")
    return _recommend("info", f"Tables {tables} are stored in s3://{bucket}/, whose access could not be checked: "
                      f"{why}", "s3:GetObject", objects, fix="Read permissions://discover again later.",
                      explain=explain)


def _table_findings(table_buckets: Sequence[Mapping[str, Any]], access: Mapping[str, BucketAccess],
                    fixtures: set[str]) -> tuple[list[Recommendation], list[tuple[str, str]]]:
    """The findings of discover's bucket verdicts, and the tables they do not settle (to explain one by one)."""
    found: list[Recommendation] = []
    unsettled: list[tuple[str, str]] = []
    for entry in table_buckets:
        if entry.get("kind", "bucket") != "bucket":  # an S3 table bucket: its tables are not the default catalog's
            continue
        pairs = [(d["database"], t) for d in entry["databases"] for t in d["tables"]]
        names = [f"{database}.{table}" for database, table in pairs]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        explain = table_uri(*pairs[0]) if len(pairs) == 1 else bucket_uri(entry["bucket"])
        finding = _tables_finding(entry["bucket"], shown, access.get(entry["bucket"]), explain)
        if finding is not None and finding["severity"] == "high":  # the bucket refuses every table in it
            finding["tables"] = [TableRef(table=f"{database}.{table}", explain=table_uri(database, table))
                                 for database, table in pairs]
        else:
            unsettled += pairs
        if finding is not None:
            finding["about"] = "fixture" if all(database in fixtures for database, _ in pairs) else "your_queries"
            found.append(finding)
    return found, unsettled


def _binding(answer: Mapping[str, Any]) -> list[Link]:
    """The table's own links its query verdict rests on (as the explainer weighs them: not the data's S3 and KMS
    where Lake Formation reads them with its own role)."""
    governed = answer["decided_by"] == "lake_formation"
    return [entry for entry in answer["links"] if not (governed and entry["check"].startswith(("s3:", "kms:")))]


def _explained_finding(database: str, table: str, outcome: Outcome[str, Mapping[str, Any]]) -> Recommendation | None:
    """What the table's explainer established: the table link that refuses the query, in its summary's words.
    A query refused only by its workgroup is the workgroup's finding, not the table's."""
    name, explain = f"{database}.{table}", table_uri(database, table)
    ref = [TableRef(table=name, explain=explain)]
    if outcome.error is not None:
        found = _recommend("info", f"Access to {name} could not be explained: {outcome.error.message}",
                           outcome.error.action or "glue:GetTable", f"arn:aws:glue:*:*:table/{database}/{table}",
                           fix=f"Read {explain} again later.", explain=explain)
        return found | Recommendation(tables=ref)  # type: ignore[typeddict-item]
    answer = outcome.value or {}
    verdict = answer.get("query")
    if verdict == "allowed":
        return _restricted_finding(name, explain, answer, ref)
    entry = deciding(verdict, _binding(answer)) if verdict in ("denied", "unknown") else None
    if entry is None:
        return None
    refused = verdict == "denied"
    found = _recommend("high" if refused else "info",
                       f"SELECT on {name} is {'refused' if refused else 'unverified'}: {answer['summary']}",
                       entry["check"], entry["resource"], fix=f"Read {explain}: its {entry['check']} link "
                       + ("carries the fix to copy, and says who applies it." if refused else
                          "says what would settle it."), explain=explain)
    chain = [*_binding(answer), *answer.get("workgroups", {}).get(answer.get("workgroup") or "", [])]
    if not refused and any(link.get("retryable") for link in chain):  # a throttled check left it unknown
        found["retryable"] = True
    return found | Recommendation(tables=ref)  # type: ignore[typeddict-item]


def _restricted_finding(name: str, explain: str, answer: Mapping[str, Any], ref: list[TableRef]
                        ) -> Recommendation | None:
    """A query that runs on part of the table only: the columns Lake Formation hides, the rows it filters out.
    A query naming a hidden column fails (COLUMN_NOT_FOUND), so the caller meets it as an obstacle."""
    hidden, rows = answer.get("hidden_columns") or [], answer.get("row_filter")
    if not hidden and not rows:
        return None
    shown = len(answer.get("read_columns") or [])
    parts = [f"{shown} of {shown + len(hidden)} columns (Lake Formation hides {', '.join(hidden)})"] if hidden else []
    parts += [f"only the rows where {rows}"] if rows else []
    arn = next((entry["resource"] for entry in answer["links"] if entry["check"] == "lakeformation:SELECT"), "*")
    found = _recommend("medium", f"SELECT on {name} runs on {' and '.join(parts)}", "lakeformation:SELECT", arn,
                       fix=f"If you need them, ask the data owner for a Lake Formation grant: {explain}'s "
                           "lakeformation:SELECT link names the grants read.", explain=explain)
    return found | Recommendation(tables=ref)  # type: ignore[typeddict-item]


def _unexplained(pairs: Sequence[tuple[str, str]]) -> Recommendation:
    names = [f"{database}.{table}" for database, table in pairs]
    found = _recommend("info", f"{len(names)} more tables were not explained (at most {EXPLAINED} a read): "
                       f"{', '.join(names[:5])}{' ...' if len(names) > 5 else ''}", "glue:GetTable",
                       "arn:aws:glue:*:*:table/*", fix="Read permissions://tables/{database}/{table} for each.")
    refs = [TableRef(table=f"{database}.{table}", explain=table_uri(database, table)) for database, table in pairs]
    return found | Recommendation(tables=refs)  # type: ignore[typeddict-item]


def _query_workgroup_findings(query_workgroups: Sequence[Mapping[str, Any]],
                              explained: Sequence[Outcome[str, Mapping[str, Any]]], region: str,
                              account: str) -> list[Recommendation]:
    """Each query workgroup athena_query cannot use (athena://workgroups' usable false), with why_not's words and
    the link that refuses it from the table explainer's checks of the same workgroup (when a table was explained)."""
    checked: Mapping[str, Sequence[Link]] = next(
        (o.value["workgroups"] for o in explained if o.value is not None), {})  # type: ignore[index]
    found: list[Recommendation] = []
    for entry in query_workgroups:
        if entry.get("usable") is not False:
            continue
        name, arn = entry["name"], f"arn:aws:athena:{region}:{account}:workgroup/{entry['name']}"
        refusing = deciding("denied", checked.get(name, ()))
        action, resource = (refusing["check"], refusing["resource"]) if refusing else ("unknown", arn)
        why = "; ".join(entry.get("why_not") or ["its checks refuse it"])
        fix = f"Read permissions://tables/{{database}}/{{table}} of any table: its workgroups.{name} links " + (
            "carry the fix to copy, and say who applies it." if refusing else "name the check that refuses it.")
        found.append(_recommend("high", f"athena_query cannot run in workgroup {name}: {why}", action, resource,
                                fix=fix, explain="athena://workgroups") | Recommendation(  # type: ignore[operator]
                                    workgroup=name))
    return found


RELATED = {"permissions://discover": "s3:ListAllMyBuckets", "athena://workgroups": "athena:ListWorkGroups",
           "tabulator://buckets": "glue:GetDatabases"}
"""What recommendations are derived from, each with the action its whole read fails on."""


def _unread(what: str, failure: ResourceFailure, uri: str, arn: str) -> Recommendation:
    """A source that could not be read at all: what it would have shown is unknown, and why is the finding."""
    return _recommend("medium", f"{what} could not be read: {failure.message}", failure.action or RELATED[uri], arn)


def _fixture_databases(request: ResourceRequest) -> set[str]:
    """The databases marked as fixtures (`FIXTURE_PARAMETER`): the same GetDatabases tabulator://buckets asks, so
    answered from the read's memo where tabulator's was read in this read (else one listing more). Unreadable: none
    is marked (its failure is tabulator's finding)."""
    try:
        listed = glue_databases(request.client("glue"))
    except (ClientError, BotoCoreError, ResourceFailure):
        return set()
    return {d["Name"] for d in listed if str((d.get("Parameters") or {}).get(FIXTURE_PARAMETER)).lower() == "true"}


def _about(finding: Recommendation, fixtures: set[str]) -> About:
    """Whom a finding concerns: a table's (or a query workgroup's) the caller's queries, unless every table it
    names is a fixture's; else the account's set-up."""
    tables = [ref["table"].split(".", 1)[0] for ref in finding.get("tables", [])]
    if tables and all(database in fixtures for database in tables):
        return "fixture"
    return "your_queries" if tables or finding.get("workgroup") else "setup"


@registry.resource(
    "permissions://recommendations",
    name="permissions-recommendations",
    title="Permission recommendations",
    description="Concrete advice from permissions://discover, athena://workgroups and the tables' "
    "permissions://tables explainers (at most 15 a read, the caller's own databases first): first the caller's "
    "own obstacles (about: your_queries): every table it cannot query (a bucket it cannot read, a prefix a bucket "
    "policy denies, a KMS key, Lake Formation), the columns Lake Formation hides and rows it filters, every query "
    "workgroup athena_query cannot use and why; then the set-up (result locations it cannot write); tables of "
    "fixture databases last (about: fixture). One line each, naming the missing IAM action and the resource ARN, "
    "with its explainer.",
    requires="auth",
    aws_calls=["athena:ListWorkGroups", "athena:GetWorkGroup", "glue:GetDatabases", "glue:GetTables"],
    list_field="recommendations",
)
def recommendations(request: ResourceRequest) -> Recommendations:
    """Built from other resources' results: discover, athena://workgroups and tabulator://buckets, read side by
    side (each from the cache when it is warm). Only discover failing fails the read: the others' failures
    become recommendations."""
    discovery, workgroups, table_buckets = request.fan_out(request.read_related, list(RELATED),
                                                           action=RELATED.__getitem__)
    if discovery.error is not None:
        raise discovery.error
    access = {b["bucket"]: b for b in discovery.value["buckets"]}  # type: ignore[index]
    account = request.caller.account or "*"
    found: list[Recommendation] = []
    unsettled: list[tuple[str, str]] = []
    fixtures = _fixture_databases(request)
    if table_buckets.error is None:
        bucket_findings, unsettled = _table_findings(table_buckets.value["buckets"], access,  # type: ignore[index]
                                                     fixtures)
        found += bucket_findings
    else:
        found.append(_unread("Glue tables", table_buckets.error, table_buckets.item,
                             f"arn:aws:glue:*:{account}:catalog"))
    unsettled.sort(key=lambda pair: pair[0] in fixtures)  # the caller's own databases first (a stable sort)
    explained = request.fan_out(request.read_related, [table_uri(*pair) for pair in unsettled[:EXPLAINED]],
                                action="glue:GetTable")
    found += [f for pair, outcome in zip(unsettled, explained, strict=False)
              if (f := _explained_finding(*pair, outcome)) is not None]
    if len(unsettled) > EXPLAINED:
        beyond = unsettled[EXPLAINED:]
        found += [_unexplained(part) for part in ([p for p in beyond if p[0] not in fixtures],
                                                 [p for p in beyond if p[0] in fixtures]) if part]
    if workgroups.error is None:
        found += _query_workgroup_findings(workgroups.value.get("query_workgroups") or [],  # type: ignore[union-attr]
                                           explained, request.caller.region, account)
        found += _workgroup_findings(workgroups.value["workgroups"], access,  # type: ignore[index]
                                     request.caller.region, account)
    else:
        found.append(_unread("Athena workgroups", workgroups.error, workgroups.item,
                             f"arn:aws:athena:*:{account}:workgroup/*"))
    found += [_recommend("medium", f"The location of bucket {b['bucket']} could not be read, so its region is "
                         "unknown", "s3:GetBucketLocation", f"arn:aws:s3:::{b['bucket']}", explain=b["explain"])
              for b in access.values() if b["evidence"]["location"] == "denied"]
    # One finding per action, resource and tables: the first kept (a query workgroup's over the workgroup list's)
    found = list({(r["missing_action"], r["resource_arn"], str(r.get("tables"))): r for r in reversed(found)}.values())
    for finding in found:
        finding.setdefault("about", _about(finding, fixtures))
    order = {"high": 0, "medium": 1, "info": 2}
    found.sort(key=lambda r: (ABOUT_ORDER[r["about"]], order[r["severity"]], r["resource_arn"]))
    return Recommendations(principal_arn=request.caller.principal_arn, count=len(found),
                           explained=Explained(tables=len(explained), of=len(unsettled)), recommendations=found)
