"""The fix for a query S3 Tables refused: Athena names the `s3tables:` action and the table's (or bucket's) ARN, so
the statement that grants exactly that read can be given beside the refusal, with the table's resource to read.

An S3 table is read with S3 Tables' own actions (IAM mode of the integration), not S3's GetObject: the bucket
explainers' fixes do not apply to it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

from aws_data_mcp.explainer.uris import catalog_table_uri

_DENIED = (r"is not authorized to perform: (s3tables:[A-Za-z]+) on resource: "
           r"(arn:aws[a-z\-]*:s3tables:[^:\s]*:\d*:bucket/([a-z0-9\-]+)(?:/table/([\w\-]+))?)")


_TABLE_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
"""S3 Tables' id of a table, as its ARN names it on AWS (the demo's store names it by its name)."""


def s3_tables_fix(reason: str, database: str | None, sql: str | None) -> list[str]:
    """What to grant and where to look, for an S3 Tables refusal; nothing for any other."""
    found = re.search(_DENIED, reason)
    if found is None:
        return []
    action, arn, bucket, table = found.groups()
    statement = json.dumps({"Effect": "Allow", "Action": action, "Resource": arn})
    details = [f"Grant {action} on {arn} alone: {statement} in your identity policy (or the table's or table "
               "bucket's resource policy, which must not deny it)."]
    catalog = f"s3tablescatalog/{bucket}"
    owner, name = _named(catalog, table, database, sql)
    if owner and name:
        details.append(f"athena://catalogs/{quote(catalog, safe='')}/databases/{owner}/tables/{name} describes the "
                       f"table; {catalog_table_uri(catalog, owner, name)} explains each link of your access.")
    return details


def _named(catalog: str, table: str | None, database: str | None, sql: str | None) -> tuple[str | None, str | None]:
    """The refused table's database and name. AWS names a table in its ARN by its id (a UUID), so then the
    statement's one table of that catalog is it; where it names several, or none, nothing is linked."""
    if not table:
        return None, None
    found = re.findall(rf'"?{re.escape(catalog)}"?\s*\.\s*"?([\w-]+)"?\s*\.\s*"?([\w-]+)"?', sql or "", re.I)
    if not _TABLE_ID.match(table):
        return next(((db, t) for db, t in found if t == table), (database, table))
    return found[0] if len(set(found)) == 1 else (None, None)
