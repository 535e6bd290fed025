"""Where an access refusal is explained: the `permissions://` explainer URI of a table (in a catalog) or a bucket.

A leaf module (it imports nothing of the package), so any answer that refuses for access (a resource's error, an
Athena query's failure) can link the explainer without depending on the resources that serve it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

TABLE_URI = "permissions://tables/{}/{}"
CATALOG_TABLE_URI = "permissions://catalogs/{}/tables/{}/{}"
BUCKET_URI = "permissions://buckets/{}"
# Patterns, not compiled ones: `re` compiles each on its first refusal (and keeps it), not on every cold start.
_S3_PATH = r"s3://([a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(?:/|\b)"
_S3_ARN = r"arn:aws[a-z\-]*:s3:::([a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])"
_GLUE_TABLE = r"arn:aws[a-z\-]*:glue:[^:\s]*:\d*:table/([^/\s]+)/([^\s,;.\"']+)"
_LF_TABLE = r"(?i)Lake Formation permission\(s\) on (?:table )?[\"'`]?([\w\-]+)(?:\.([\w\-]+))?"


def table_uri(database: str, table: str) -> str:
    return TABLE_URI.format(quote(database, safe=""), quote(table, safe=""))


def catalog_table_uri(catalog: str, database: str, table: str) -> str:
    """A table's explainer in a catalog named by the URI (the catalog as one segment)."""
    return CATALOG_TABLE_URI.format(*(quote(part, safe="") for part in (catalog, database, table)))


def bucket_uri(bucket: str) -> str:
    return BUCKET_URI.format(bucket)


def explainer_in(message: str, database: str | None = None, sql: str | None = None) -> str | None:
    """The explainer of what an AWS refusal names: a Glue table ARN, a Lake Formation table (which Athena names
    alone: its database is the one `sql` qualifies it with, else the query's `database`), else an S3 path or bucket
    ARN; None when it names none of them."""
    if found := re.search(_GLUE_TABLE, message):
        return table_uri(found.group(1), found.group(2))
    if found := re.search(_LF_TABLE, message):
        if found.group(2):
            return table_uri(found.group(1), found.group(2))
        table = re.escape(found.group(1))
        qualified = re.findall(rf'"?([\w-]+)"?\s*\.\s*"?{table}"?(?![\w-])', sql or "", re.IGNORECASE)
        owner = qualified[-1] if qualified else database
        return table_uri(owner, found.group(1)) if owner else None
    if found := re.search(_S3_PATH, message) or re.search(_S3_ARN, message):
        return bucket_uri(found.group(1))
    return None


def explainer_of(args: Mapping[str, str]) -> str | None:
    """The explainer of what a resource's template arguments name: a table, or a bucket."""
    if args.get("database") and args.get("table"):
        return table_uri(args["database"], args["table"])
    if args.get("bucket"):
        return bucket_uri(args["bucket"])
    return None
