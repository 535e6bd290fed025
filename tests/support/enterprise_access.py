"""What each demo caller gets from the `enterprise` database (demo/enterprise_lake.py), table by table, as AWS's
rules give it: the outcome the demo's Athena must give, and docs/demo.md lists.

alice's outcomes are the plain demo's caller's too (demo-analyst holds her rights). Each query reads the whole
table (`SELECT *`), every partition included.
"""

from __future__ import annotations

from dataclasses import dataclass

LAKE_FORMATION = "lakeformation"
"""Refused by Lake Formation (no grant): Athena's message names no IAM action."""


@dataclass(frozen=True)
class Reads:
    """The query runs: these columns, this many rows."""

    columns: tuple[str, ...]
    rows: int


@dataclass(frozen=True)
class Refused:
    """The query fails for access: the action Athena names (LAKE_FORMATION: none)."""

    action: str


_ORDERS = ("order_id", "customer_id", "amount_usd", "status")
_PAYMENTS = ("payment_id", "country", "amount_eur", "iban")
_LOGS = ("request_time", "path", "status")
EXPECTED: dict[str, dict[str, Reads | Refused]] = {
    "alice": {
        "hybrid_orders": Reads(("order_id", "amount_usd"), 8),  # opted in: her two granted columns only
        "lf_no_data_access": Reads(("day", "metric", "value"), 6),
        "filtered_payments": Reads(_PAYMENTS[:3], 4),  # the filter: DE rows, no iban
        "tagged_customers": Reads(("customer_id", "segment"), 5),  # granted on domain=customers
        "mixed_key_events": Refused("kms:Decrypt"),  # the second month's key is not hers
        "far_partition_sales": Refused("s3:GetObject"),  # the archive bucket denies her
        "vpce_only_logs": Refused("s3:ListBucket"),  # Athena's reads carry no aws:SourceVpce
        "vpce_exempt_logs": Reads(_LOGS, 4),  # exempt through aws:CalledVia
        "tls_only_sessions": Refused("s3:GetObject"),  # the Deny naming her role; TLS holds
        "lake_owned_invoices": Refused("s3:ListBucket"),  # the lake account's bucket grants the home account nothing
        "notprincipal_audit": Refused("s3:GetObject"),  # denied to all but bob
    },
    "bob": {
        "hybrid_orders": Reads(_ORDERS, 8),  # not opted in: IAM and S3, every column
        "lf_no_data_access": Refused(LAKE_FORMATION),
        "filtered_payments": Reads(_PAYMENTS, 8),  # granted the whole table
        "tagged_customers": Refused(LAKE_FORMATION),
        "mixed_key_events": Reads(("event_id", "event_type", "month"), 8),
        "far_partition_sales": Reads(("sale_id", "amount_usd", "region"), 6),
        "vpce_only_logs": Refused("s3:ListBucket"),
        "vpce_exempt_logs": Reads(_LOGS, 4),
        "tls_only_sessions": Reads(("session_id", "minutes"), 5),
        "lake_owned_invoices": Refused("s3:ListBucket"),
        "notprincipal_audit": Reads(("event_id", "actor"), 3),
    },
    "carol": {  # her IAM reaches one bucket (the curated one), and lacks lakeformation:GetDataAccess
        "hybrid_orders": Refused("s3:ListBucket"),
        "lf_no_data_access": Refused("lakeformation:GetDataAccess"),  # granted SELECT, refused by IAM
        "filtered_payments": Refused(LAKE_FORMATION),
        "tagged_customers": Refused(LAKE_FORMATION),
        **{name: Refused("s3:ListBucket") for name in (
            "mixed_key_events", "far_partition_sales", "vpce_only_logs", "vpce_exempt_logs", "tls_only_sessions",
            "lake_owned_invoices", "notprincipal_audit")},
    },
}
"""Caller -> enterprise table -> what the query gets."""
EXPECTED["demo-analyst"] = EXPECTED["alice"]

ENCRYPTED_RESULTS = {"alice": Refused("kms:Decrypt"), "demo-analyst": Refused("kms:Decrypt"),
                     "bob": Reads(("_col0",), 1), "carol": Refused("athena:GetWorkGroup")}
"""``SELECT 1`` in the encrypted-results workgroup: alice may write the results (GenerateDataKey), not read them;
carol may not use the workgroup (the server reads it first, as the caller)."""
WORKGROUP = {"demo-analyst": "analytics", "alice": "analytics", "bob": "analytics", "carol": "partners"}
