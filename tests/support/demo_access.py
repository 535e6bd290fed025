"""What each demo caller may query, table by table, as the demo's account is seeded (``demo/seed_data.py``): the
outcome real Athena would give, which the demo's Athena must give too."""

from __future__ import annotations

from aws_data_mcp_demo.account.lake_tables import lake_files

READ = None
"""The table reads (with a Lake Formation column grant, the granted columns only)."""
LAKE_FORMATION = "lakeformation"
"""Refused by Lake Formation (no grant): Athena's message names no IAM action."""

_ANALYST = {
    "sales.raw_orders": "s3:GetObject",  # the raw bucket's policy denies the analysts and admins
    "marketing.campaigns": "kms:Decrypt",  # the campaign key is the admins'
    "marketing.shop_access_logs": "s3:GetObject",  # their IAM policy denies the logs' objects
    "ml_features.churn_labels": LAKE_FORMATION,  # granted to the admins only
}
REFUSED: dict[str, dict[str, str]] = {
    "demo-analyst": _ANALYST,
    "alice": _ANALYST,
    "bob": {
        "sales.raw_orders": "s3:GetObject",
        "marketing.web_sessions": "kms:Decrypt",  # the raw bucket's key is not the admins'
        "marketing.email_sends": "kms:Decrypt",
        "ml_features.product_embeddings": LAKE_FORMATION,
    },
    "carol": {
        "sales.customers": "s3:GetObject",  # the curated bucket's policy keeps PII from the contractors
        "sales.raw_orders": "s3:ListBucket", "marketing.web_sessions": "s3:ListBucket",
        "marketing.email_sends": "s3:ListBucket", "marketing.shop_access_logs": "s3:ListBucket",
        "marketing.campaigns": "kms:Decrypt",
        "ml_features.customer_features": LAKE_FORMATION, "ml_features.churn_labels": LAKE_FORMATION,
        "ml_features.product_embeddings": LAKE_FORMATION,
    },
}
"""Caller -> table -> the action Athena names when it refuses (every other table reads)."""
WORKGROUP = {"demo-analyst": "analytics", "alice": "analytics", "bob": "analytics", "carol": "partners"}
"""Where each caller's queries run."""
RESULTS_REFUSED = {"demo-analyst": "partners", "alice": "partners", "bob": "finance-restricted",
                   "carol": "finance-restricted"}
"""A workgroup each caller may use but whose results they cannot write (Athena fails the query)."""


def count_query(name: str) -> tuple[str, int]:
    """A count of the table's first partition (under any cutoff) and the rows its files hold."""
    partition, rows = min(lake_files()[name].rows.items())
    where = f" WHERE {partition.split('=')[0]} = '{partition.split('=')[1]}'" if partition else ""
    return f"SELECT count(*) AS n FROM {name}{where}", rows
