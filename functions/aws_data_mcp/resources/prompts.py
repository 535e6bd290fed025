"""The MCP prompts: the tasks a person picks from a client's prompt menu, each a walk through this server's
resources and tools. Registered like resources, so `prompts/list`, completion and `info://capabilities` read them
from the registry; their arguments complete with the same completers as the templates (databases, tables).

A prompt renders text only: it calls no AWS, so picking one never fails on a permission; the reads it leads to
run as the caller, as every read does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import PromptArgument, ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import complete_database, glue_databases, glue_table_names

_NAME = r'[^\s."/]+'
"""A Glue database or table name as a prompt writes it into a URI and SQL: no space, dot, quote or slash."""
_DATABASE = re.compile(f"^{_NAME}$")
_TABLE = re.compile(f"^({_NAME})\\.({_NAME})$")
_S3 = re.compile(r"^s3://([a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(?:/(\S*))?$")
S3_SCHEME = "s3://"


def _checked_database(database: str) -> None:
    if not _DATABASE.match(database):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT, "database must be a Glue database name: no space, dot, "
                              "quote or slash", details=["athena://databases lists the databases you can read."])


def _database(description: str, required: bool = True) -> PromptArgument:
    return PromptArgument("database", description, required=required, completer=complete_database,
                          check=_checked_database)


# --- explore_database ---------------------------------------------------------------------------


@registry.prompt(
    name="explore_database",
    title="Explore a database",
    description="Walk through one Glue database: its tables with their descriptions, a table's columns, and a "
    "small sample of each under the workgroup's cost cutoff.",
    arguments=[_database("The Glue database to explore (athena://databases lists the ones you can read).")],
)
def explore_database(arguments: Mapping[str, str]) -> str:
    database = arguments["database"]
    return f"""Explore the Glue database "{database}" through the aws-data-mcp server. Every read runs as me, \
with my AWS credentials, so it shows what I may read.

1. Read athena://databases/{database}/tables: list its tables with their descriptions, formats and partition keys. \
A database of many tables pages: to find the tables about something, search instead, \
athena://search?q=<words>&database={database} (names, columns, comments and descriptions, in one read).
2. For the tables that look central (and any I name), read athena://databases/{database}/tables/{{table}}: \
columns, types, comments and partition keys.
3. Sample each with the athena_query tool (database "{database}"): SELECT the columns you need FROM the table \
LIMIT 10, filtering on a partition key where the table has one. Queries run in a workgroup whose bytes-scanned \
cutoff Athena enforces: for a large table, call athena_query with estimate_only=true first, and narrow the filter \
rather than retry a query the cutoff stopped.
4. Summarise for me: what each table holds, the keys that join them, and what each query scanned and cost.

If a read is denied, quote its error and read permissions://recommendations for what is missing."""


# --- answer_with_cost_check ---------------------------------------------------------------------


@registry.prompt(
    name="answer_with_cost_check",
    title="Answer a question, with a cost check",
    description="Answer a question from the data with Athena: find the tables, estimate the query's scan and cost "
    "first (estimate_only), run it within the workgroup's cutoff, and report the answer with what it cost.",
    arguments=[
        PromptArgument("question", "The question to answer from the data, in plain words.", max_chars=2_000,
                       multiline=True),
        _database("The Glue database to answer from; without it, the agent finds one (athena://databases).",
                  required=False),
    ],
)
def answer_with_cost_check(arguments: Mapping[str, str]) -> str:
    database = arguments.get("database")
    where = (f'Use the Glue database "{database}": read athena://databases/{database}/tables for its tables and '
             "their descriptions." if database else
             "Find the tables first: search athena://search?q=<the question's key words> (table names, column names, "
             "comments and descriptions across every database, in one read; the team's saved queries too: one that "
             "answers the question runs with athena_query named_query_id). In a small estate athena://databases and "
             "athena://databases/{database}/tables list the same.")
    return f"""Answer this question from the data through the aws-data-mcp server, checking the cost before \
spending it. Every call runs as me, with my AWS credentials.

Question: {arguments["question"]}

1. {where} Read athena://databases/{{database}}/tables/{{table}} for the columns of the tables you need.
2. Write one read-only SELECT: only the columns needed, filtered on partition keys where the tables have them.
3. Call athena_query with estimate_only=true first and note the bytes it would scan and its estimated cost. The \
query runs in a workgroup whose bytes-scanned cutoff Athena enforces (athena://workgroups says which are usable \
for you): if the estimate is over the cutoff, narrow the query and estimate again rather than run it.
4. Run it with athena_query. If the answer says it is still running, read the athena://queries/{{execution_id}} \
link it gives until it has finished.
5. Answer the question from the rows, then report the cost: the data scanned and the cost the answer states, \
beside the estimate. If no estimate was available, say so."""


# --- why_cant_i_read ----------------------------------------------------------------------------


def _checked_target(target: str) -> None:
    if not (_TABLE.match(target) or _S3.match(target)):
        raise ResourceFailure(ErrorCode.INVALID_ARGUMENT,
                              "target must be a table as database.table, or an S3 location as s3://bucket/prefix",
                              details=["e.g. sales.orders, or s3://my-bucket/raw/2026/"])


def complete_target(request: ResourceRequest, prefix: str) -> list[str]:
    """Databases (as `database.`, then that database's tables as `database.table`), or the caller's buckets once
    the prefix starts `s3://`."""
    if prefix.startswith(S3_SCHEME):
        buckets = request.client("s3").list_buckets().get("Buckets", [])
        return [uri for bucket in buckets if (uri := f"{S3_SCHEME}{bucket['Name']}/").startswith(prefix)]
    database, dot, table = prefix.partition(".")
    if dot:
        return [f"{database}.{name}" for name in glue_table_names(request.client("glue"), database)
                if name.startswith(table)]
    return [f"{d['Name']}." for d in glue_databases(request.client("glue")) if d["Name"].startswith(prefix)]


def _table_steps(database: str, table: str) -> str:
    return f"""2. Read athena://databases/{database}/tables/{table}. If it is denied, Glue is where I am refused \
(glue:GetTable on the database and the table): that denial is the evidence. If it reads, note the table's S3 \
location.
3. Read permissions://tables/{database}/{table}: every link a SELECT of it needs, checked as me (Glue, Lake \
Formation and the columns it lets me read, the data's bucket and key by a one-byte read as Athena reads it, each \
query workgroup: its cutoff, starting queries, its result location and key), each with its verdict, evidence and \
fix; `workgroup` is the one a query of mine would run in.
4. Read permissions://discover and find the bucket of that location: my access level to it (none/list/read/write) \
and the evidence of each check.
5. To see Athena's own answer, call athena_query on SELECT * FROM "{database}"."{table}" LIMIT 1 (database \
"{database}", no workgroup: it runs in the first one usable for me and says which). It reads data, so a refused \
bucket, key or column fails as it would for me. estimate_only=true is no test of access: an estimate reads no \
data, so it answers even where the data's bucket or key refuses me."""


def _location_steps(bucket: str, prefix: str) -> str:
    where = f"s3://{bucket}/{prefix}" if prefix else f"s3://{bucket}"
    return f"""2. Read permissions://discover and find the bucket "{bucket}": whether I can see it at all, my \
access level to it (none/list/read/write) and the evidence of each check (listing, reading an object, its region).
3. If the bucket is listed as readable but {where} is not, the cause is narrower than the bucket: a prefix in a \
policy condition, or the objects' encryption key (kms:Decrypt).
4. Read tabulator://buckets: whether a table of the catalog is stored there, and so whether Athena reads it."""


@registry.prompt(
    name="why_cant_i_read",
    title="Why can't I read this?",
    description="Explain why a table (database.table) or an S3 location (s3://bucket/prefix) cannot be read as "
    "you: the evidence of the denial from the permission resources, and the fix (the IAM action and resource ARN "
    "to grant).",
    arguments=[PromptArgument("target", "A table as database.table, or an S3 location as s3://bucket/prefix "
                              "(completes databases, then tables; buckets after s3://).",
                              completer=complete_target, max_chars=1_024, check=_checked_target)],
)
def why_cant_i_read(arguments: Mapping[str, str]) -> str:
    target = arguments["target"]
    table = _TABLE.match(target)
    if table:
        steps = _table_steps(table.group(1), table.group(2))
    else:
        location = _S3.match(target)
        assert location is not None  # `_checked_target` admitted only these two forms
        steps = _location_steps(location.group(1), location.group(2) or "")
    return f"""Find out why I cannot read {target} through the aws-data-mcp server, and what would fix it. Every \
call runs as me, with my AWS credentials, so the server sees exactly the denials I get.

1. Read auth://status: who I am (principal, account, auth mode). If I am not authenticated, that is the answer.
{steps}
{6 if table else 5}. Read permissions://recommendations: the missing IAM action and resource ARN for anything above.

Report: the evidence of the denial (the call refused, with the error code and message as answered), the cause in \
one sentence, and the fix: the IAM actions and resource ARNs to grant me, or another workgroup or location to use. \
Do not guess beyond the evidence: say what could not be checked."""
