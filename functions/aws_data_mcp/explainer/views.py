"""The explainer of a view: the view's own links, then its base tables as Athena reads them.

An Athena view runs as the invoker: each base table's own chain (`table_chain`) runs as the caller.
A Data Catalog view runs as its definer: the caller needs Lake Formation SELECT on the view alone.
Its base tables are read with the definer's grants: checked as the definer where the caller sees
those grants, `unknown` otherwise.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict

from aws_data_mcp.errors import ErrorCode
from aws_data_mcp.explainer import table_chain
from aws_data_mcp.explainer.lake_formation import (
    IAM_ALLOWED_PRINCIPALS,
    SELECT,
    filter_calls,
    grant_fix,
    lake_answers,
    lake_calls,
    permissions_link,
    table_permissions,
)
from aws_data_mcp.explainer.lf_grants import reads
from aws_data_mcp.explainer.model import Governor, Link, Verdict, link, overall, unsettled
from aws_data_mcp.explainer.storage_links import Subject
from aws_data_mcp.explainer.summary import summary
from aws_data_mcp.explainer.table_chain import TableAccess
from aws_data_mcp.lakehouse.views import BaseTable, describe_view, is_view
from aws_data_mcp.reading.fanout import Call, Chain, Outcome
from aws_data_mcp.registry import ResourceRequest

DEPTH = 3
"""Views over views followed this deep at most; a view deeper down is `unknown`."""
BASE_TABLES = 10
"""Base tables followed per view at most (a Data Catalog view names 10 at most); more: `unknown`."""
CAPS = (
    f"views over views are followed {DEPTH} deep and {BASE_TABLES} base tables per view; "
    "beyond that a base table is unknown"
)

Checked = Literal["invoker", "definer"]


class BaseTableAccess(TypedDict):
    database: str
    table: str
    explain: str | None
    """The base table's own explainer (null for another catalog's table)."""
    checked_as: Checked
    """"invoker": its links are the caller's; "definer": the view's definer's, not the caller's."""
    query: Verdict
    """Whether Athena's read of this base table, for this view, holds."""
    decided_by: Governor
    links: list[Link]
    base_tables: NotRequired[list[BaseTableAccess]]
    """For a base table that is itself a view: its own base tables."""


class Refusal(TypedDict):
    table: str
    """The view or base table (database.table) whose link refuses."""
    check: str
    resource: str


class ViewFacts(TypedDict):
    kind: str
    runs_as: str
    definer: str | None


class ViewAccess(TableAccess):
    view: ViewFacts
    base_tables: list[BaseTableAccess]
    followed: str
    """The caps on what is followed, in words."""
    refused_at: Refusal | None
    """The first link that refuses the query (the view's own, or a base table's); null: none."""
    definer_reads: NotRequired[Verdict]
    """A Data Catalog view's: its definer's reads of the base tables, where the caller sees its
    grants. Not the caller's links: only a known refusal among them decides `query`."""


def _own(entry: BaseTableAccess) -> list[Link]:
    """A base table's own links that bind the query: not the data's S3 and KMS where Lake
    Formation's role reads them (as `table_chain`), and of the definer's only a known refusal."""
    if entry["checked_as"] == "definer":
        return [e for e in entry["links"] if e["verdict"] == "denied"]
    governed = entry["decided_by"] == "lake_formation"
    return [e for e in entry["links"] if not (governed and e["check"].startswith(("s3:", "kms:")))]


def _binding(entry: BaseTableAccess) -> list[Link]:
    """Its own binding links, then its base tables' (a view's), all the way down."""
    return [*_own(entry), *(e for b in entry.get("base_tables", []) for e in _binding(b))]


def _refusal(entry: BaseTableAccess) -> Refusal | None:
    """The first refusing link of a base table, or of its own base tables (a view's), and whose."""
    denied = next((e for e in _own(entry) if e["verdict"] == "denied"), None)
    if denied is not None:
        return Refusal(
            table=f"{entry['database']}.{entry['table']}",
            check=denied["check"],
            resource=denied["resource"],
        )
    return next((r for b in entry.get("base_tables", []) if (r := _refusal(b))), None)


def _one_link(base: BaseTable, checked_as: Checked, found: Link) -> BaseTableAccess:
    """A base table known by one link: not followed, its explainer's error, or the definer's."""
    return BaseTableAccess(
        database=base["database"],
        table=base["table"],
        explain=base["explain"],
        checked_as=checked_as,
        query=found["verdict"],
        decided_by=found["governed_by"],
        links=[found],
    )


def _not_followed(base: BaseTable, checked_as: Checked, why: str) -> BaseTableAccess:
    arn = f"{base.get('catalog', 'awsdatacatalog')}:{base['database']}.{base['table']}"
    return _one_link(base, checked_as, link("glue:GetTable", arn, "unknown", {"followed": False},
                                            settle=why))


def _invoker_entry(base: BaseTable, outcome: Outcome[Any, Any]) -> BaseTableAccess:
    """One base table of an Athena view, from its own explainer's answer (or its error)."""
    name = f"{base['database']}.{base['table']}"
    if outcome.error is not None:
        missing = outcome.error.code is ErrorCode.NOT_FOUND
        found = link(
            "glue:GetTable",
            name,
            "denied" if missing else "unknown",
            {"error": outcome.error.brief()},
            settle=unsettled(outcome),
        )
        return _one_link(base, "invoker", found)
    answer = outcome.value
    entry = BaseTableAccess(
        database=base["database"],
        table=base["table"],
        explain=base["explain"],
        checked_as="invoker",
        query=answer["query"],
        decided_by=answer["decided_by"],
        links=answer["links"],
    )
    if "base_tables" in answer:
        entry["base_tables"] = answer["base_tables"]
    return entry


def _split(
    tables: Sequence[BaseTable],
    depth: int,
    checked_as: Checked,
) -> tuple[list[BaseTable], list[BaseTableAccess]]:
    """The base tables to follow, and those left out (another catalog's, past a cap): `unknown`."""
    here = [t for t in tables if "catalog" not in t]
    left = [
        _not_followed(
            t, checked_as, "a table of another catalog: its own catalog's owner settles it"
        )
        for t in tables
        if "catalog" in t
    ]
    if depth >= DEPTH:
        return [], left + [_not_followed(t, checked_as, f"not followed: {CAPS}") for t in here]
    return here[:BASE_TABLES], left + [
        _not_followed(t, checked_as, f"not followed: {CAPS}") for t in here[BASE_TABLES:]
    ]


def _invoker(
    request: ResourceRequest, tables: Sequence[BaseTable], depth: int
) -> Chain[tuple[list[BaseTableAccess], list[Link], Refusal | None]]:
    """An Athena view's base tables, each explained as the caller (a view among them in turn)."""
    followed, left = _split(tables, depth, "invoker")
    outcomes = yield [
        Call("glue:GetTable", partial(_access, request, t["database"], t["table"], depth + 1))
        for t in followed
    ]
    entries = [*(_invoker_entry(t, o) for t, o in zip(followed, outcomes, strict=True)), *left]
    refused = next((r for entry in entries if (r := _refusal(entry))), None)
    return entries, [e for entry in entries for e in _binding(entry)], refused


# ------------------------------------------------------------- a Data Catalog view (definer)


def _admins(settings: Outcome[Any, Any]) -> set[str]:
    found = ((settings.value or {}).get("DataLakeSettings") or {}).get("DataLakeAdmins") or []
    return {str(a.get("DataLakePrincipalIdentifier")) for a in found}


def _definer_link(
    subject: Subject, definer: str | None, base: BaseTable, grants: Outcome[Any, Any], admin: bool
) -> Link:
    """The definer's SELECT on one base table: allowed where the caller sees that grant; denied
    only for a data lake administrator, who sees every grant; else unknown (Lake Formation lists a
    caller the grants its own permissions reach)."""
    database, table = base["database"], base["table"]
    resource = f"arn:aws:glue:*:{subject.account or '*'}:table/{database}/{table}"
    evidence: dict[str, Any] = {
        "checked_as": "definer",
        "definer": definer,
        "defined_with": (
            "Glue checks the definer's grantable SELECT on every base table"
            " when the view is defined"
        ),
    }
    listed = [
        g
        for g in grants.value or []
        if (g.get("Principal") or {}).get("DataLakePrincipalIdentifier") == definer and reads(g)
    ]
    if listed:
        return link(
            SELECT, resource, "allowed", evidence | {"grants": listed}, governed_by="lake_formation"
        )
    if grants.error is not None:
        return link(
            SELECT,
            resource,
            "unknown",
            evidence | {"error": grants.error.brief()},
            governed_by="lake_formation",
            settle=unsettled(grants),
        )
    if admin and definer:
        return link(
            SELECT,
            resource,
            "denied",
            evidence | {"answered": "no grant to the definer is listed"},
            governed_by="lake_formation",
            fix=[grant_fix(definer, database, table, subject.account)],
        )
    who = shlex.quote(f"DataLakePrincipalIdentifier={definer or '<the definer>'}")
    shape = shlex.quote(
        json.dumps({"Table": {"DatabaseName": database, "Name": table}}, separators=(",", ":"))
    )
    return link(
        SELECT,
        resource,
        "unknown",
        evidence | {"answered": "no grant to the definer is visible to you"},
        governed_by="lake_formation",
        settle="A data lake administrator runs aws lakeformation list-permissions "
        f"--principal {who} --resource {shape}",
    )


def _without_iam_allowed(grants: Outcome[Any, Any]) -> Outcome[Any, Any]:
    """A Data Catalog view is Lake Formation's alone: IAM_ALLOWED_PRINCIPALS grants nothing."""
    if grants.value is None:
        return grants
    kept = [
        g
        for g in grants.value
        if (g.get("Principal") or {}).get("DataLakePrincipalIdentifier") != IAM_ALLOWED_PRINCIPALS
    ]
    return replace(grants, value=kept)


def _definer(
    request: ResourceRequest,
    subject: Subject,
    database: str,
    view: str,
    columns: list[str],
    definer: str | None,
    tables: Sequence[BaseTable],
) -> Chain[tuple[Link, Any, list[BaseTableAccess]]]:
    """The caller's SELECT on the view, then the definer's on each base table."""
    lakeformation = request.client("lakeformation")
    lake = lake_answers((yield lake_calls(lakeformation, subject.principal, database, view)))
    lake = replace(lake, grants=_without_iam_allowed(lake.grants))
    followed, left = _split(tables, 0, "definer")
    filtered = filter_calls(lakeformation, lake)
    answers = yield [
        *filtered,
        *(
            Call(
                "lakeformation:ListPermissions",
                partial(
                    table_permissions,
                    lakeformation,
                    {"Table": {"DatabaseName": t["database"], "Name": t["table"]}},
                ),
            )
            for t in followed
        ),
    ]
    lake = replace(lake, filter_grants=tuple(answers[: len(filtered)]))
    # A Data Catalog view is governed as a registered location's table is, wherever its database.
    select, readable, _ = permissions_link(
        subject, database, view, columns, "a Data Catalog view", False, True, lake
    )
    admin = bool(_admins(lake.settings) & set(subject.identities))
    entries = [_one_link(base, "definer", _definer_link(subject, definer, base, grants, admin))
               for base, grants in zip(followed, answers[len(filtered) :], strict=True)]
    return select, readable, [*entries, *left]


# --------------------------------------------------------------------------- the view's answer


def _view_answer(
    request: ResourceRequest,
    name: str,
    answer: TableAccess,
    facts: ViewFacts,
    own: list[Link],
    bases: list[BaseTableAccess],
    beneath: list[Link],
    refused: Refusal | None,
    decided_by: Governor,
) -> ViewAccess:
    """The view's verdict: its own links, its workgroup's and each base table's must all hold."""
    chosen = answer["workgroup"]
    workgroup = answer["workgroups"].get(chosen or "", [])
    every = [*own, *beneath, *workgroup]
    verdict = overall(every) if chosen else "denied"
    mine = next((e for e in own if e["verdict"] == "denied"), None)
    entry = mine or (
        None if refused else next((e for e in workgroup if e["verdict"] == "denied"), None)
    )
    if (
        entry is not None
    ):  # the view's own refusal first, then its base tables', then its workgroup's
        refused = Refusal(table=name, check=entry["check"], resource=entry["resource"])
    line = (
        summary(
            verdict,
            every,
            f"SELECT on {name} runs in workgroup {chosen} (its base tables read as "
            f"{facts['runs_as']})",
            request.settings.summary_resource_chars,
        )
        if chosen
        else answer["summary"]
    )
    found = ViewAccess(
        **{
            **answer,
            "links": own,
            "query": verdict,
            "decided_by": decided_by,
            "summary": line,
            "view": facts,
            "base_tables": bases,
            "followed": CAPS,
            "refused_at": refused,
        }
    )
    if verdict == "denied":
        found["read_columns"], found["row_filter"], found["hidden_columns"] = [], None, []
    return found


def _access(
    request: ResourceRequest, database: str, table: str, depth: int = 0
) -> Chain[TableAccess]:
    """A table's explainer; for a view, its base tables followed as Athena reads them."""
    answer: TableAccess = yield from table_chain.table_access(request, database, table)
    glue_read = next((e for e in answer["links"] if e["check"] == "glue:GetTable"), None)
    if answer["location"] or glue_read is None or glue_read["verdict"] != "allowed":
        return answer
    glue = request.client("glue")  # asked by the table's chain already: the read's memo answers it
    (found,) = yield [
        Call("glue:GetTable", partial(glue.get_table, DatabaseName=database, Name=table))
    ]
    detail = (found.value or {}).get("Table") or {}
    if not is_view(detail):
        return answer
    view = describe_view(detail, database)
    own = [
        e for e in answer["links"] if not e["check"].startswith(("s3:", "kms:"))
    ]  # "no location": its sources
    facts = ViewFacts(kind=view["kind"], runs_as=view["runs_as"], definer=view.get("definer"))
    name = f"{database}.{table}"
    if view["runs_as"] == "invoker":
        bases, beneath, refused = yield from _invoker(request, view["base_tables"], depth)
        return _view_answer(
            request,
            name,
            answer,
            facts,
            own,
            bases,
            beneath,
            refused,
            next((b["decided_by"] for b in bases if b["query"] == "denied"), "iam"),
        )
    subject = Subject.of(request.caller)
    columns = [c["Name"] for c in (detail.get("StorageDescriptor") or {}).get("Columns") or []]
    select, readable, bases = yield from _definer(
        request, subject, database, table, columns, facts["definer"], view["base_tables"]
    )
    select["evidence"].pop("hybrid_access", None)
    select["evidence"]["registered_location"] = None
    select["evidence"]["governed"] = (
        "a Data Catalog view: Lake Formation alone decides who selects it"
    )
    own.append(select)
    # The definer's links are not the caller's: a known refusal binds, an unknown one is said apart.
    beneath = [e for b in bases for e in _binding(b)]
    refused = next((r for b in bases if (r := _refusal(b))), None)
    found = _view_answer(
        request, name, answer, facts, own, bases, beneath, refused, "lake_formation"
    )
    found["definer_reads"] = overall([e for b in bases for e in b["links"]])
    if found["query"] == "allowed" and found["definer_reads"] != "allowed":
        found["summary"] += (
            f"; its definer's reads of the base tables are {found['definer_reads']} from your "
            "seat (base_tables)"
        )
    if found["query"] != "denied" and readable is not None:
        found["read_columns"] = readable.columns
        found["row_filter"] = " OR ".join(f"({f})" for f in readable.row_filters) or None
        found["hidden_columns"] = [c for c in columns if c not in readable.columns]
    return found


def explain_table(request: ResourceRequest) -> TableAccess:
    """permissions://tables/{database}/{table}: a table's chain; a view's, to its base tables."""
    database, table = request.args["database"], request.args["table"]
    outcome = request.fan_out(
        Call.run,
        [Call("glue:GetTable", partial(_access, request, database, table))],
        action=Call.action_of,
    )[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value  # type: ignore[return-value]
