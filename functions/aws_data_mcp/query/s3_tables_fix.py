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
    qualified = re.search(rf'"?{re.escape(catalog)}"?\s*\.\s*"?([\w-]+)"?\s*\.\s*"?{table}"?', sql or "", re.I) \
        if table else None
    owner = qualified.group(1) if qualified else database
    if table and owner:
        details.append(f"athena://catalogs/{quote(catalog, safe='')}/databases/{owner}/tables/{table} describes the "
                       f"table; {catalog_table_uri(catalog, owner, table)} explains each link of your access.")
    return details
