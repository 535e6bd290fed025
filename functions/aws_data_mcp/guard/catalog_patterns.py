"""Which catalogs a query may read: `AWS_DATA_MCP_QUERY_CATALOGS` as patterns.

So one entry allows every S3 table bucket's catalog (`s3tablescatalog/*`), with no bucket listed.
Patterns are fnmatch-style, case-insensitive, matched against the whole name. `*` is one or more
characters of one path segment, `?` one character. A Lambda connector (`lambda:...`) runs code
outside Athena. Only a pattern that itself starts with `lambda:` allows one (docs/queries.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

GLUE_CATALOG = "AwsDataCatalog"
"""Athena's name for the account's Glue Data Catalog: the query context's catalog unless another is given."""
DEFAULT_CATALOGS = (GLUE_CATALOG, "s3tablescatalog/*")
"""What queries may read unless the operator says otherwise: the Glue catalog and every S3 table bucket's."""
LAMBDA_PREFIX = "lambda:"


def _regex(pattern: str) -> re.Pattern[str]:
    parts = [{"*": "[^/]+", "?": "[^/]"}.get(char, re.escape(char)) for char in pattern.lower()]
    return re.compile("".join(parts))


def catalog_allowed(name: str, patterns: Iterable[str]) -> bool:
    """Whether a catalog `name` (as a query or the query context names it) matches one of `patterns`."""
    lowered = name.lower()
    for pattern in patterns:
        if lowered.startswith(LAMBDA_PREFIX) and not pattern.lower().startswith(LAMBDA_PREFIX):
            continue
        if _regex(pattern).fullmatch(lowered):
            return True
    return False
