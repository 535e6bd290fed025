"""Seed the embedded demo account with a small but realistic data lake.

Everything a user could build through the AWS API is built here through ordinary boto3
calls against the moto endpoint: buckets and objects, Glue databases/tables/partitions,
Athena workgroups and query executions, IAM users/groups/roles/policies, OIDC and SAML
providers, and the IAM Identity Center set-up.

A few details cannot be expressed through moto's API, so they are finished in-process on
moto's backend objects (possible because the demo runs moto's server in this very
process; when the backend is not reachable they are skipped and the inventory says so):

* past query executions: their final state (moto marks every execution SUCCEEDED),
  submission/completion times spread over the last days, statistics (bytes scanned,
  run times) and, for failed/cancelled ones, the reason; kept on each execution object
  under ``EXECUTION_DETAILS_ATTR`` and served by the Athena extensions
  (``moto_extensions.py``);
* the ``primary`` workgroup's result location (moto has no UpdateWorkGroup) and the
  descriptions of the databases Athena's own ListDatabases returns (moto keeps those apart
  from Glue and fills them only from ``CREATE DATABASE`` statements, which the history runs);
* "last used" times of roles and passwords (moto documents these attributes as public);
* the service user's access key (issued in-process so its secret never crosses botocore's
  DEBUG response logging).

Canned first pages of results for the successful SELECTs go through moto's documented
``/moto-api/static/athena/query-results`` queue, so ``GetQueryResults`` returns rows and the
result CSVs land in ``acme-athena-results`` as they would on AWS.
"""

import json
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import boto3
from botocore.config import Config

from .moto_extensions import EXECUTION_DETAILS_ATTR

DEMO_CALLER_USER = "demo-analyst"
DENIED_WORKGROUP = "finance-restricted"

BotoClient = Any  # boto3 clients are generated at runtime; no stubs in the runtime set.

# The moto endpoint is local: never route it through a proxy from the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_CLIENT_CONFIG = Config(proxies={}, retries={"max_attempts": 2, "mode": "standard"})


@dataclass(frozen=True)
class DemoInventory:
    """What the seed created: for tests and the demo banner. Never holds a secret."""

    account_id: str
    region: str
    caller_user_name: str
    caller_arn: str
    buckets: tuple[str, ...]
    object_count: int
    databases: dict[str, tuple[str, ...]]
    table_locations: dict[str, str]
    workgroups: tuple[str, ...]
    denied_workgroups: tuple[str, ...]
    query_execution_ids: tuple[str, ...]
    query_states: dict[str, int]
    query_workgroups: dict[str, int]
    users: tuple[str, ...]
    groups: tuple[str, ...]
    roles: tuple[str, ...]
    identity_center_instance_arn: str
    permission_sets: tuple[str, ...]
    oidc_providers: tuple[str, ...]
    saml_providers: tuple[str, ...]
    finished_in_process: bool = True
    notes: tuple[str, ...] = field(default=())

    @property
    def table_count(self) -> int:
        """Total number of Glue tables across all databases."""
        return sum(len(tables) for tables in self.databases.values())

    def __str__(self) -> str:
        """One line per area, for banners (the dataclass repr lists every id)."""
        return "; ".join(self.summary_lines())

    def summary_lines(self) -> list[str]:
        """Short human summary for the demo banner."""
        states = ", ".join(f"{count} {state}" for state, count in sorted(self.query_states.items()))
        return [
            f"account {self.account_id} ({self.region}), caller {self.caller_arn}",
            f"S3: {len(self.buckets)} buckets, {self.object_count} objects",
            f"Glue: {len(self.databases)} databases, {self.table_count} tables",
            f"Athena: {len(self.workgroups)} workgroups ({', '.join(self.denied_workgroups)} not describable), "
            f"{len(self.query_execution_ids)} past queries ({states})",
            f"IAM: {len(self.users)} users, {len(self.groups)} groups, {len(self.roles)} roles, "
            f"{len(self.oidc_providers)} OIDC + {len(self.saml_providers)} SAML providers",
            f"Identity Center: {self.identity_center_instance_arn} ({len(self.permission_sets)} permission sets)",
        ]


# --------------------------------------------------------------------------- S3 + Glue data

BUCKET_RAW = "acme-datalake-raw"
BUCKET_CURATED = "acme-datalake-curated"
BUCKET_RESULTS = "acme-athena-results"
BUCKET_ML = "acme-ml-features"
BUCKET_LOGS = "acme-logs-archive"
BUCKET_FINANCE = "acme-finance-secure"
BUCKETS: tuple[str, ...] = (BUCKET_RAW, BUCKET_CURATED, BUCKET_RESULTS, BUCKET_ML, BUCKET_LOGS, BUCKET_FINANCE)

Column = tuple[str, str, str]  # name, Athena type, comment

_FORMATS: dict[str, dict[str, Any]] = {
    "parquet": {
        "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        "SerdeInfo": {
            "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            "Parameters": {"serialization.format": "1"},
        },
        "TableParameters": {"classification": "parquet", "compressionType": "snappy", "parquet.compression": "SNAPPY"},
        "Compressed": True,
    },
    "csv": {
        "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "SerdeInfo": {
            "SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
            "Parameters": {"field.delim": ",", "serialization.format": ","},
        },
        "TableParameters": {"classification": "csv", "compressionType": "none", "skip.header.line.count": "1"},
        "Compressed": False,
    },
    "json": {
        "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "SerdeInfo": {
            "SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe",
            "Parameters": {"paths": "", "ignore.malformed.json": "true"},
        },
        "TableParameters": {"classification": "json", "compressionType": "gzip"},
        "Compressed": True,
    },
}


@dataclass(frozen=True)
class _Table:
    database: str
    name: str
    bucket: str
    prefix: str
    fmt: str
    description: str
    columns: tuple[Column, ...]
    partition_keys: tuple[Column, ...] = ()
    partitions: str = "dates"  # "dates" (last 3 days), "versions", or "none"
    owner: str = "data-platform"


_DATABASES: dict[str, dict[str, Any]] = {
    "sales": {
        "Description": "Orders, customers and products from the commerce platform (curated daily at 02:00 UTC).",
        "LocationUri": f"s3://{BUCKET_CURATED}/sales/",
        "Parameters": {"owner": "sales-analytics", "data_steward": "alice.nguyen", "pii": "true"},
    },
    "marketing": {
        "Description": "Campaigns, campaign events, web sessions and e-mail sends.",
        "LocationUri": f"s3://{BUCKET_CURATED}/marketing/",
        "Parameters": {"owner": "growth-marketing", "data_steward": "bob.martinez", "pii": "false"},
    },
    "ml_features": {
        "Description": "Feature store snapshots, labels and embeddings used by the churn and recommendation models.",
        "LocationUri": f"s3://{BUCKET_ML}/",
        "Parameters": {"owner": "data-science", "data_steward": "alice.nguyen", "pii": "false"},
    },
}

_TABLES: tuple[_Table, ...] = (
    _Table(
        "sales", "orders", BUCKET_CURATED, "sales/orders/", "parquet",
        "One row per order, deduplicated from the raw feed.",
        (
            ("order_id", "string", "Order identifier (ORD-nnnnnnn)"),
            ("customer_id", "string", "Customer identifier, joins sales.customers"),
            ("order_ts", "timestamp", "When the order was placed (UTC)"),
            ("status", "string", "placed | shipped | delivered | returned | cancelled"),
            ("currency", "string", "ISO 4217 currency code"),
            ("total_amount", "decimal(12,2)", "Order total including tax"),
            ("items_count", "int", "Number of order lines"),
            ("channel", "string", "web | mobile | store"),
        ),
        (("order_date", "string", "Order date, yyyy-MM-dd"),),
    ),
    _Table(
        "sales", "order_items", BUCKET_CURATED, "sales/order_items/", "parquet",
        "Order lines with quantities and prices.",
        (
            ("order_id", "string", "Order identifier, joins sales.orders"),
            ("line_no", "int", "Line number within the order"),
            ("product_id", "string", "Product identifier, joins sales.products"),
            ("quantity", "int", "Units ordered"),
            ("unit_price", "decimal(10,2)", "Price per unit at order time"),
            ("discount", "decimal(10,2)", "Discount applied to the line"),
        ),
        (("order_date", "string", "Order date, yyyy-MM-dd"),),
    ),
    _Table(
        "sales", "customers", BUCKET_CURATED, "sales/customers/", "parquet",
        "Customer master data (PII: name; e-mail is stored hashed).",
        (
            ("customer_id", "string", "Customer identifier"),
            ("full_name", "string", "PII: customer name"),
            ("email_sha256", "string", "SHA-256 of the lower-cased e-mail address"),
            ("country", "string", "ISO 3166-1 alpha-2 country code"),
            ("segment", "string", "consumer | smb | enterprise"),
            ("created_at", "timestamp", "Account creation time (UTC)"),
            ("is_active", "boolean", "False once the account is closed"),
        ),
        partitions="none",
    ),
    _Table(
        "sales", "products", BUCKET_CURATED, "sales/products/", "parquet",
        "Product catalogue snapshot.",
        (
            ("product_id", "string", "Product identifier"),
            ("sku", "string", "Stock keeping unit"),
            ("name", "string", "Display name"),
            ("category", "string", "Top-level category"),
            ("subcategory", "string", "Second-level category"),
            ("list_price", "decimal(10,2)", "Current list price"),
            ("attributes", "map<string,string>", "Free-form product attributes"),
        ),
        partitions="none",
    ),
    _Table(
        "sales", "raw_orders", BUCKET_RAW, "sales/orders/", "csv",
        "Raw order export as delivered by the commerce platform (one CSV per ingest).",
        (
            ("order_id", "string", "Order identifier"),
            ("customer_id", "string", "Customer identifier"),
            ("order_ts", "string", "ISO-8601 timestamp as text"),
            ("status", "string", "Order status as text"),
            ("currency", "string", "Currency code"),
            ("total_amount", "string", "Order total as text"),
            ("payload_version", "int", "Export schema version"),
        ),
        (("ingest_date", "string", "Ingest date, yyyy-MM-dd"),),
        owner="ingestion",
    ),
    _Table(
        "marketing", "campaigns", BUCKET_CURATED, "marketing/campaigns/", "parquet",
        "Marketing campaigns with budget and owner.",
        (
            ("campaign_id", "string", "Campaign identifier"),
            ("campaign_name", "string", "Human readable name"),
            ("channel", "string", "email | paid_search | social | display"),
            ("start_date", "date", "First day of the campaign"),
            ("end_date", "date", "Last day of the campaign"),
            ("budget_usd", "decimal(12,2)", "Approved budget in USD"),
            ("owner", "string", "Responsible marketer"),
            ("tags", "array<string>", "Free-form labels"),
        ),
        partitions="none",
    ),
    _Table(
        "marketing", "campaign_events", BUCKET_CURATED, "marketing/campaign_events/", "parquet",
        "Impressions, clicks and conversions attributed to campaigns.",
        (
            ("event_id", "string", "Event identifier"),
            ("campaign_id", "string", "Campaign identifier, joins marketing.campaigns"),
            ("customer_id", "string", "Customer identifier when known"),
            ("event_type", "string", "impression | click | conversion"),
            ("event_ts", "timestamp", "Event time (UTC)"),
            ("cost_usd", "double", "Attributed media cost"),
            ("utm", "struct<source:string,medium:string,content:string>", "UTM parameters"),
        ),
        (("event_date", "string", "Event date, yyyy-MM-dd"),),
    ),
    _Table(
        "marketing", "web_sessions", BUCKET_RAW, "marketing/web_sessions/", "json",
        "Web analytics sessions (gzip JSON lines from the tracking pipeline).",
        (
            ("session_id", "string", "Session identifier"),
            ("anonymous_id", "string", "Cookie identifier"),
            ("customer_id", "string", "Customer identifier once logged in"),
            ("started_at", "timestamp", "Session start (UTC)"),
            ("duration_seconds", "int", "Session length"),
            ("pages_viewed", "int", "Page views in the session"),
            ("landing_page", "string", "First page path"),
            ("referrer", "string", "Referrer host"),
            ("device", "struct<type:string,os:string,browser:string>", "Device details"),
        ),
        (("dt", "string", "Session date, yyyy-MM-dd"),),
        owner="ingestion",
    ),
    _Table(  # in the list-only logs bucket: the demo's table whose data the caller cannot read
        "marketing", "shop_access_logs", BUCKET_LOGS, "alb/shop-prod/", "json",
        "Shop load-balancer access logs, parsed to JSON lines by the log shipper.",
        (
            ("request_ts", "timestamp", "When the request arrived (UTC)"),
            ("client_ip", "string", "Client address"),
            ("method", "string", "HTTP method"),
            ("path", "string", "Request path"),
            ("status", "int", "HTTP status returned"),
            ("latency_ms", "double", "Target processing time"),
            ("user_agent", "string", "User agent header"),
        ),
        (("dt", "string", "Log date, yyyy-MM-dd"),),
        owner="platform-ops",
    ),
    _Table(
        "marketing", "email_sends", BUCKET_RAW, "marketing/email_sends/", "csv",
        "E-mail sends and engagement flags exported from the ESP.",
        (
            ("send_id", "string", "Send identifier"),
            ("campaign_id", "string", "Campaign identifier"),
            ("customer_id", "string", "Recipient customer identifier"),
            ("sent_at", "string", "Send time as text"),
            ("opened", "boolean", "Opened at least once"),
            ("clicked", "boolean", "Clicked at least once"),
            ("bounced", "boolean", "Hard or soft bounce"),
        ),
        partitions="none",
        owner="ingestion",
    ),
    _Table(
        "ml_features", "customer_features", BUCKET_ML, "features/customer_features/", "parquet",
        "Daily customer feature snapshot for the churn model.",
        (
            ("customer_id", "string", "Customer identifier"),
            ("recency_days", "int", "Days since last order"),
            ("frequency_90d", "int", "Orders in the last 90 days"),
            ("monetary_90d", "double", "Spend in the last 90 days (USD)"),
            ("avg_basket", "double", "Average order value (USD)"),
            ("sessions_30d", "int", "Web sessions in the last 30 days"),
            ("email_open_rate", "double", "Share of e-mails opened, 0..1"),
            ("churn_risk_bucket", "string", "low | medium | high (previous model run)"),
        ),
        (("snapshot_date", "string", "Snapshot date, yyyy-MM-dd"),),
        owner="data-science",
    ),
    _Table(
        "ml_features", "churn_labels", BUCKET_ML, "labels/churn_labels/", "parquet",
        "Ground-truth churn labels, 60 days after the snapshot.",
        (
            ("customer_id", "string", "Customer identifier"),
            ("churned", "boolean", "No order within 60 days"),
            ("churn_date", "date", "Date the customer was considered churned"),
            ("label_source", "string", "rule_v2 | manual_review"),
        ),
        (("label_date", "string", "Label date, yyyy-MM-dd"),),
        owner="data-science",
    ),
    _Table(
        "ml_features", "product_embeddings", BUCKET_ML, "embeddings/product_embeddings/", "parquet",
        "Product embeddings produced by the recommendation model.",
        (
            ("product_id", "string", "Product identifier"),
            ("embedding", "array<float>", "256-dimensional embedding"),
            ("trained_at", "timestamp", "Training run end time (UTC)"),
        ),
        (("model_version", "string", "Model version, e.g. v4"),),
        partitions="versions",
        owner="data-science",
    ),
)

_PARQUET_PLACEHOLDER = b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1"


def _partition_values(table: _Table, today: date) -> list[str]:
    if table.partitions == "versions":
        return ["v3", "v4"]
    if table.partitions == "dates" and table.partition_keys:
        return [(today - timedelta(days=offset)).isoformat() for offset in (3, 2, 1)]
    return []


def _sample_csv(table: _Table, rows: int = 3) -> bytes:
    header = ",".join(name for name, _, _ in table.columns)
    lines = [header]
    for index in range(1, rows + 1):
        values = []
        for name, athena_type, _ in table.columns:
            if athena_type == "boolean":
                values.append("true" if index % 2 else "false")
            elif athena_type == "int":
                values.append(str(index))
            elif name.endswith("_id"):
                values.append(f"{name.split('_')[0][:3].upper()}-{1000000 + index}")
            elif name.endswith("_at") or name.endswith("_ts"):
                values.append(f"2026-01-0{index}T10:1{index}:00Z")
            elif name == "total_amount":
                values.append(f"{39.9 * index:.2f}")
            elif name == "currency":
                values.append("USD")
            elif name == "status":
                values.append("delivered")
            else:
                values.append(f"{name}-{index}")
        lines.append(",".join(values))
    return ("\n".join(lines) + "\n").encode()


def _sample_json_lines(rows: int = 3) -> bytes:
    records = [
        {
            "session_id": f"s-{9000 + index}",
            "anonymous_id": f"anon-{4200 + index}",
            "customer_id": f"CUS-{1000000 + index}" if index % 2 else None,
            "started_at": f"2026-01-0{index} 09:0{index}:00",
            "duration_seconds": 60 * index,
            "pages_viewed": 2 + index,
            "landing_page": "/products/trail-runner",
            "referrer": "www.google.com",
            "device": {"type": "mobile", "os": "iOS", "browser": "Safari"},
        }
        for index in range(1, rows + 1)
    ]
    return ("\n".join(json.dumps(record) for record in records) + "\n").encode()


def _object_body(table: _Table) -> tuple[str, bytes]:
    if table.fmt == "csv":
        return ".csv", _sample_csv(table)
    if table.fmt == "json":
        return ".json.gz", _sample_json_lines()
    return ".snappy.parquet", _PARQUET_PLACEHOLDER


def _table_objects(table: _Table, today: date) -> list[tuple[str, str, bytes]]:
    """(bucket, key, body) for the files under a table's location."""
    suffix, body = _object_body(table)
    values = _partition_values(table, today)
    objects = []
    if values and table.partition_keys:
        key_name = table.partition_keys[0][0]
        for value in values:
            for part in range(2 if table.fmt == "parquet" else 1):
                key = f"{table.prefix}{key_name}={value}/part-{part:05d}-7f3c2a{part}{suffix}"
                objects.append((table.bucket, key, body))
    else:
        for part in range(2 if table.fmt == "parquet" else 1):
            objects.append((table.bucket, f"{table.prefix}part-{part:05d}-1b9e4d{part}{suffix}", body))
    return objects


def _extra_objects(account_id: str, region: str, today: date) -> list[tuple[str, str, bytes]]:
    """Objects that back no table: logs, models, finance extracts, landing files."""
    day = today - timedelta(days=1)
    ymd = f"{day.year}/{day.month:02d}/{day.day:02d}"
    stamp = day.strftime("%Y%m%d")
    gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    return [
        (BUCKET_LOGS, f"cloudtrail/AWSLogs/{account_id}/CloudTrail/{region}/{ymd}/"
         f"{account_id}_CloudTrail_{region}_{stamp}T0005Z_a1b2c3d4.json.gz", gz),
        (BUCKET_LOGS, f"cloudtrail/AWSLogs/{account_id}/CloudTrail/{region}/{ymd}/"
         f"{account_id}_CloudTrail_{region}_{stamp}T0010Z_e5f6a7b8.json.gz", gz),
        (BUCKET_LOGS, f"alb/AWSLogs/{account_id}/elasticloadbalancing/{region}/{ymd}/"
         f"{account_id}_elasticloadbalancing_{region}_app.shop-prod.5f2a_{stamp}T0000Z_10.0.1.17_3k9d.log.gz", gz),
        (BUCKET_LOGS, f"s3-access/{BUCKET_CURATED}/{day.isoformat()}-00-00-00-5C1D3E0F2A7B9C4D", b"access log\n"),
        (BUCKET_ML, "models/churn-xgb/v4/model.tar.gz", gz),
        (BUCKET_ML, "models/churn-xgb/v4/metrics.json", b'{"auc": 0.871, "logloss": 0.312}\n'),
        (BUCKET_RAW, "_landing/README.txt", b"Drop zone for partner uploads; files are moved by the ingest job.\n"),
        (BUCKET_FINANCE, f"ledger/close_date={day.isoformat()}/part-00000.snappy.parquet", _PARQUET_PLACEHOLDER),
        (BUCKET_FINANCE, "exports/board-pack-q3.xlsx", b"PK\x03\x04 placeholder"),
        (BUCKET_RESULTS, "analytics/tables/.keep", b""),
    ]


def _storage_descriptor(table: _Table, location: str) -> dict[str, Any]:
    fmt = _FORMATS[table.fmt]
    return {
        "Columns": [{"Name": name, "Type": kind, "Comment": comment} for name, kind, comment in table.columns],
        "Location": location,
        "InputFormat": fmt["InputFormat"],
        "OutputFormat": fmt["OutputFormat"],
        "Compressed": fmt["Compressed"],
        "NumberOfBuckets": -1,
        "SerdeInfo": fmt["SerdeInfo"],
        "BucketColumns": [],
        "SortColumns": [],
        "StoredAsSubDirectories": False,
    }


def _create_buckets(s3: BotoClient) -> None:
    for bucket in BUCKETS:
        s3.create_bucket(Bucket=bucket)
        s3.put_bucket_tagging(
            Bucket=bucket,
            Tagging={"TagSet": [{"Key": "team", "Value": "data-platform"}, {"Key": "env", "Value": "prod"}]},
        )
    for bucket in (BUCKET_RAW, BUCKET_CURATED, BUCKET_FINANCE):
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})


def _all_objects(account_id: str, region: str, today: date) -> list[tuple[str, str, bytes]]:
    objects = _extra_objects(account_id, region, today)
    for table in _TABLES:
        objects.extend(_table_objects(table, today))
    return objects


def _put_objects(s3: BotoClient, objects: list[tuple[str, str, bytes]]) -> None:
    for bucket, key, body in objects:
        s3.put_object(Bucket=bucket, Key=key, Body=body)


def _seed_glue(glue: BotoClient, today: date) -> None:
    for name, database in _DATABASES.items():
        glue.create_database(DatabaseInput={"Name": name, **database})
    for table in _TABLES:
        location = f"s3://{table.bucket}/{table.prefix}"
        fmt = _FORMATS[table.fmt]
        glue.create_table(
            DatabaseName=table.database,
            TableInput={
                "Name": table.name,
                "Description": table.description,
                "Owner": table.owner,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"EXTERNAL": "TRUE", "typeOfData": "file", **fmt["TableParameters"]},
                "PartitionKeys": [
                    {"Name": name, "Type": kind, "Comment": comment} for name, kind, comment in table.partition_keys
                ],
                "StorageDescriptor": _storage_descriptor(table, location),
            },
        )
        values = _partition_values(table, today)
        if values and table.partition_keys:
            key_name = table.partition_keys[0][0]
            glue.batch_create_partition(
                DatabaseName=table.database,
                TableName=table.name,
                PartitionInputList=[
                    {
                        "Values": [value],
                        "StorageDescriptor": _storage_descriptor(table, f"{location}{key_name}={value}/"),
                        "Parameters": {},
                    }
                    for value in values
                ],
            )


# --------------------------------------------------------------------------- Athena

_WORKGROUPS: dict[str, dict[str, Any]] = {
    "analytics": {
        "Description": "BI dashboards and ad-hoc analytics (10 GB per-query cutoff).",
        "Configuration": {
            "ResultConfiguration": {
                "OutputLocation": f"s3://{BUCKET_RESULTS}/analytics/",
                "EncryptionConfiguration": {"EncryptionOption": "SSE_S3"},
            },
            "EnforceWorkGroupConfiguration": True,
            "PublishCloudWatchMetricsEnabled": True,
            "BytesScannedCutoffPerQuery": 10 * 1024**3,
            "RequesterPaysEnabled": False,
            "EngineVersion": {"SelectedEngineVersion": "Athena engine version 3"},
        },
        "Tags": [{"Key": "team", "Value": "analytics"}, {"Key": "cost-center", "Value": "cc-4102"}],
    },
    "data-science": {
        "Description": "Feature engineering and model training queries.",
        "Configuration": {
            "ResultConfiguration": {"OutputLocation": f"s3://{BUCKET_RESULTS}/data-science/"},
            "EnforceWorkGroupConfiguration": False,
            "PublishCloudWatchMetricsEnabled": True,
            "EngineVersion": {"SelectedEngineVersion": "AUTO"},
        },
        "Tags": [{"Key": "team", "Value": "data-science"}],
    },
    DENIED_WORKGROUP: {
        "Description": "Finance close and board reporting. Restricted to the finance team.",
        "Configuration": {
            "ResultConfiguration": {
                "OutputLocation": f"s3://{BUCKET_RESULTS}/finance-restricted/",
                "EncryptionConfiguration": {
                    "EncryptionOption": "SSE_KMS",
                    "KmsKey": "arn:aws:kms:{region}:{account_id}:key/4f1c2e9a-7b3d-4e6f-9a21-0c5d8e7f6a31",
                },
            },
            "EnforceWorkGroupConfiguration": True,
            "PublishCloudWatchMetricsEnabled": True,
            "BytesScannedCutoffPerQuery": 1024**3,
            "EngineVersion": {"SelectedEngineVersion": "Athena engine version 3"},
        },
        "Tags": [{"Key": "team", "Value": "finance"}, {"Key": "data-classification", "Value": "confidential"}],
    },
}

_PRIMARY_RESULT_LOCATION = f"s3://{BUCKET_RESULTS}/primary/"


def _result_location(workgroup: str) -> str:
    if workgroup == "primary":
        return _PRIMARY_RESULT_LOCATION
    return str(_WORKGROUPS[workgroup]["Configuration"]["ResultConfiguration"]["OutputLocation"])


@dataclass(frozen=True)
class _Query:
    """A query text with its typical cost and, for SELECTs, a canned first page of results."""

    database: str
    sql: str
    scanned_bytes: int
    runtime_ms: int
    columns: tuple[tuple[str, str], ...] = ()  # (name, Athena result type)
    rows: tuple[tuple[str, ...], ...] = ()


def _queries(today: date) -> dict[str, _Query]:
    week_ago = (today - timedelta(days=7)).isoformat()
    yesterday = (today - timedelta(days=1)).isoformat()
    days = [(today - timedelta(days=offset)).isoformat() for offset in (1, 2, 3)]
    return {
        "create_sales": _Query("default", "CREATE DATABASE IF NOT EXISTS sales", 0, 412),
        "create_marketing": _Query("default", "CREATE DATABASE IF NOT EXISTS marketing", 0, 398),
        "create_ml": _Query("default", "CREATE DATABASE IF NOT EXISTS ml_features", 0, 405),
        "repair_orders": _Query("sales", "MSCK REPAIR TABLE sales.orders", 0, 5210),
        "daily_revenue": _Query(
            "sales",
            "SELECT order_date, count(*) AS orders, sum(total_amount) AS revenue\n"
            "FROM sales.orders\n"
            f"WHERE order_date >= '{week_ago}'\n"
            "GROUP BY order_date\n"
            "ORDER BY order_date DESC",
            184_320_512,
            2_840,
            (("order_date", "varchar"), ("orders", "bigint"), ("revenue", "decimal")),
            ((days[0], "18342", "912884.10"), (days[1], "17655", "884120.55"), (days[2], "16980", "851002.75")),
        ),
        "top_customers": _Query(
            "sales",
            "SELECT c.customer_id, c.country, sum(o.total_amount) AS lifetime_value\n"
            "FROM sales.orders o\n"
            "JOIN sales.customers c ON o.customer_id = c.customer_id\n"
            "GROUP BY 1, 2\n"
            "ORDER BY lifetime_value DESC\n"
            "LIMIT 10",
            1_422_016_870,
            9_410,
            (("customer_id", "varchar"), ("country", "varchar"), ("lifetime_value", "decimal")),
            (("CUS-1004821", "US", "48210.40"), ("CUS-1001377", "DE", "41877.95"), ("CUS-1009930", "GB", "39502.10")),
        ),
        "category_sales": _Query(
            "sales",
            "SELECT p.category, sum(oi.quantity) AS units, sum(oi.quantity * oi.unit_price) AS gross_sales\n"
            "FROM sales.order_items oi\n"
            "JOIN sales.products p ON oi.product_id = p.product_id\n"
            f"WHERE oi.order_date = '{yesterday}'\n"
            "GROUP BY p.category\n"
            "ORDER BY gross_sales DESC",
            96_468_992,
            3_120,
            (("category", "varchar"), ("units", "bigint"), ("gross_sales", "decimal")),
            (("footwear", "5210", "402118.00"), ("apparel", "8874", "311540.25"), ("accessories", "3302", "88012.40")),
        ),
        "campaign_funnel": _Query(
            "marketing",
            "SELECT c.campaign_name,\n"
            "       count_if(e.event_type = 'click') AS clicks,\n"
            "       count_if(e.event_type = 'conversion') AS conversions\n"
            "FROM marketing.campaign_events e\n"
            "JOIN marketing.campaigns c ON e.campaign_id = c.campaign_id\n"
            f"WHERE e.event_date = '{yesterday}'\n"
            "GROUP BY c.campaign_name\n"
            "ORDER BY conversions DESC",
            52_428_800,
            2_210,
            (("campaign_name", "varchar"), ("clicks", "bigint"), ("conversions", "bigint")),
            (
                ("Winter Sale 2026", "48210", "1804"),
                ("Trail Runner Launch", "22104", "911"),
                ("Newsletter W47", "9120", "240"),
            ),
        ),
        "sessions_by_device": _Query(
            "marketing",
            "SELECT device.type AS device_type, count(*) AS sessions, avg(duration_seconds) AS avg_duration_s\n"
            "FROM marketing.web_sessions\n"
            f"WHERE dt = '{yesterday}'\n"
            "GROUP BY device.type",
            311_427_072,
            4_870,
            (("device_type", "varchar"), ("sessions", "bigint"), ("avg_duration_s", "double")),
            (("mobile", "120334", "184.2"), ("desktop", "64120", "311.7"), ("tablet", "9021", "205.9")),
        ),
        "email_open_rate": _Query(
            "marketing",
            "SELECT campaign_id, avg(CAST(opened AS double)) AS open_rate, count(*) AS sends\n"
            "FROM marketing.email_sends\n"
            "GROUP BY campaign_id\n"
            "ORDER BY sends DESC\n"
            "LIMIT 20",
            20_971_520,
            1_640,
            (("campaign_id", "varchar"), ("open_rate", "double"), ("sends", "bigint")),
            (("CAM-1000012", "0.412", "250000"), ("CAM-1000015", "0.377", "180500")),
        ),
        "risk_buckets": _Query(
            "ml_features",
            "SELECT churn_risk_bucket, count(*) AS customers, avg(monetary_90d) AS avg_spend_90d\n"
            "FROM ml_features.customer_features\n"
            f"WHERE snapshot_date = '{yesterday}'\n"
            "GROUP BY churn_risk_bucket",
            73_400_320,
            1_980,
            (("churn_risk_bucket", "varchar"), ("customers", "bigint"), ("avg_spend_90d", "double")),
            (("low", "412003", "221.4"), ("medium", "98211", "140.9"), ("high", "30145", "61.2")),
        ),
        "training_set": _Query(
            "ml_features",
            "SELECT f.*, l.churned\n"
            "FROM ml_features.customer_features f\n"
            "JOIN ml_features.churn_labels l\n"
            "  ON f.customer_id = l.customer_id AND l.label_date = f.snapshot_date\n"
            f"WHERE f.snapshot_date BETWEEN '{week_ago}' AND '{yesterday}'",
            4_831_838_208,
            58_400,
            (("customer_id", "varchar"), ("recency_days", "integer"), ("churned", "boolean")),
            (("CUS-1000001", "12", "false"), ("CUS-1000002", "95", "true")),
        ),
        "embedding_versions": _Query(
            "ml_features",
            "SELECT model_version, count(*) AS products, max(trained_at) AS trained_at\n"
            "FROM ml_features.product_embeddings\n"
            "GROUP BY model_version\n"
            "ORDER BY model_version",
            8_388_608,
            920,
            (("model_version", "varchar"), ("products", "bigint"), ("trained_at", "timestamp")),
            (("v3", "48211", "2026-01-05 03:12:44.000"), ("v4", "49870", "2026-01-19 03:09:10.000")),
        ),
        "bad_column": _Query("sales", "SELECT order_id, revenue\nFROM sales.orders\nLIMIT 100", 0, 310),
        "bad_table": _Query("sales", "SELECT *\nFROM sales.order_lines\nLIMIT 10", 0, 280),
        "bad_data": _Query(
            "sales",
            "SELECT CAST(total_amount AS decimal(12,2)) AS total\n"
            "FROM sales.raw_orders\n"
            f"WHERE ingest_date = '{yesterday}'",
            12_582_912,
            2_050,
        ),
        "full_scan": _Query("marketing", "SELECT *\nFROM marketing.web_sessions", 10 * 1024**3, 61_200),
        "big_join": _Query(
            "sales",
            "SELECT o.*, oi.*, p.*\n"
            "FROM sales.orders o\n"
            "JOIN sales.order_items oi ON o.order_id = oi.order_id\n"
            "JOIN sales.products p ON oi.product_id = p.product_id",
            2_684_354_560,
            95_000,
        ),
    }


_ERRORS: dict[str, tuple[str, int, bool]] = {
    # key: (message, Athena ErrorCategory 1=SYSTEM 2=USER 3=OTHER, retryable)
    "bad_column": (
        "COLUMN_NOT_FOUND: line 1:17: Column 'revenue' cannot be resolved or requester is not authorized to "
        "access requested resources",
        2,
        False,
    ),
    "bad_table": ("TABLE_NOT_FOUND: line 2:6: Table 'awsdatacatalog.sales.order_lines' does not exist", 2, False),
    "bad_data": (
        "HIVE_BAD_DATA: Error parsing field value 'N/A' for field 5: Cannot convert value N/A of type VARCHAR to "
        "DECIMAL(12,2)",
        2,
        False,
    ),
    "training_set": ("Query exhausted resources at this scale factor", 1, True),
}

# (minutes ago, workgroup, query key, state, reason for CANCELLED)
_HISTORY: tuple[tuple[int, str, str, str, str], ...] = (
    (11_520, "primary", "create_sales", "SUCCEEDED", ""),
    (11_515, "primary", "create_marketing", "SUCCEEDED", ""),
    (11_510, "primary", "create_ml", "SUCCEEDED", ""),
    (11_400, "primary", "repair_orders", "SUCCEEDED", ""),
    (8_700, "analytics", "daily_revenue", "SUCCEEDED", ""),
    (8_650, "analytics", "top_customers", "SUCCEEDED", ""),
    (8_400, "data-science", "risk_buckets", "SUCCEEDED", ""),
    (7_300, "analytics", "campaign_funnel", "SUCCEEDED", ""),
    (7_250, "primary", "bad_table", "FAILED", ""),
    (7_240, "primary", "category_sales", "SUCCEEDED", ""),
    (5_800, "analytics", "daily_revenue", "SUCCEEDED", ""),
    (5_760, "analytics", "full_scan", "CANCELLED", "Bytes scanned limit was exceeded"),
    (5_700, "data-science", "embedding_versions", "SUCCEEDED", ""),
    (5_650, "data-science", "training_set", "FAILED", ""),
    (4_400, "analytics", "sessions_by_device", "SUCCEEDED", ""),
    (4_350, "analytics", "email_open_rate", "SUCCEEDED", ""),
    (4_300, "primary", "bad_column", "FAILED", ""),
    (4_290, "primary", "daily_revenue", "SUCCEEDED", ""),
    (2_900, "analytics", "daily_revenue", "SUCCEEDED", ""),
    (2_880, "analytics", "top_customers", "SUCCEEDED", ""),
    (2_800, "data-science", "risk_buckets", "SUCCEEDED", ""),
    (2_750, "data-science", "training_set", "SUCCEEDED", ""),
    (1_500, "primary", "big_join", "CANCELLED", "Query cancelled by user"),
    (1_480, "analytics", "campaign_funnel", "SUCCEEDED", ""),
    (1_440, "analytics", "daily_revenue", "SUCCEEDED", ""),
    (1_400, "primary", "bad_data", "FAILED", ""),
    (720, "analytics", "category_sales", "SUCCEEDED", ""),
    (600, "data-science", "embedding_versions", "SUCCEEDED", ""),
    (240, "analytics", "sessions_by_device", "SUCCEEDED", ""),
    (180, "analytics", "top_customers", "SUCCEEDED", ""),
    (95, "primary", "category_sales", "SUCCEEDED", ""),
    (60, "data-science", "risk_buckets", "SUCCEEDED", ""),
    (30, "analytics", "daily_revenue", "SUCCEEDED", ""),
    (12, "analytics", "email_open_rate", "CANCELLED", "Query cancelled by user"),
    (3, "data-science", "training_set", "RUNNING", ""),
    (1, "analytics", "campaign_funnel", "QUEUED", ""),
)


def _athena_result_payload(query: _Query, account_id: str, region: str) -> dict[str, Any]:
    """moto's /moto-api/static/athena/query-results body: header row first, as Athena returns it."""
    header = {"Data": [{"VarCharValue": name} for name, _ in query.columns]}
    rows = [{"Data": [{"VarCharValue": value} for value in row]} for row in query.rows]
    column_info = [
        {
            "CatalogName": "hive",
            "SchemaName": "",
            "TableName": "",
            "Name": name,
            "Label": name,
            "Type": kind,
            "Precision": 38 if kind == "decimal" else 0,
            "Scale": 2 if kind == "decimal" else 0,
            "Nullable": "UNKNOWN",
            "CaseSensitive": kind == "varchar",
        }
        for name, kind in query.columns
    ]
    return {
        "account_id": account_id,
        "region": region,
        "results": [{"rows": [header, *rows], "column_info": column_info}],
    }


def _post_moto_api(endpoint_url: str, path: str, payload: dict[str, Any]) -> None:
    request = urllib.request.Request(
        f"{endpoint_url.rstrip('/')}{path}",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with _DIRECT.open(request, timeout=10) as response:
        response.read()


def _seed_athena(
    athena: BotoClient, endpoint_url: str, account_id: str, region: str, now: datetime
) -> list[tuple[str, tuple[int, str, str, str, str]]]:
    athena.create_data_catalog(
        Name="AwsDataCatalog",
        Type="GLUE",
        Description="AWS Glue Data Catalog of this account",
        Parameters={"catalog-id": account_id},
    )
    for name, spec in _WORKGROUPS.items():
        configuration = json.loads(
            json.dumps(spec["Configuration"]).replace("{region}", region).replace("{account_id}", account_id)
        )
        athena.create_work_group(
            Name=name, Description=spec["Description"], Configuration=configuration, Tags=spec["Tags"]
        )

    queries = _queries(now.date())
    started = []
    for entry in _HISTORY:
        _, workgroup, key, state, _ = entry
        query = queries[key]
        if state == "SUCCEEDED" and query.columns:
            # Queue a canned result: moto attaches it to the next started execution and writes the CSV to S3.
            _post_moto_api(
                endpoint_url, "/moto-api/static/athena/query-results", _athena_result_payload(query, account_id, region)
            )
        response = athena.start_query_execution(
            QueryString=query.sql,
            QueryExecutionContext={"Catalog": "AwsDataCatalog", "Database": query.database},
            ResultConfiguration={"OutputLocation": _result_location(workgroup)},
            WorkGroup=workgroup,
        )
        started.append((response["QueryExecutionId"], entry))
    return started


def _finish_athena_in_process(
    started: list[tuple[str, tuple[int, str, str, str, str]]], account_id: str, region: str, now: datetime
) -> bool:
    """Give each seeded execution its final state, times, statistics and error; newest first.

    moto's API can only start queries (all of which it reports SUCCEEDED), so this edits
    moto's Execution objects directly. Returns False when the backend is not in this process.
    """
    from moto.athena.models import athena_backends

    backend = athena_backends[account_id][region]
    if not started or started[0][0] not in backend.executions:
        return False

    primary = backend.work_groups.get("primary")
    if primary is not None:
        primary.configuration["ResultConfiguration"] = {"OutputLocation": _PRIMARY_RESULT_LOCATION}
        primary.description = "Default workgroup for ad-hoc queries."
    # The seeded CREATE DATABASE statements made Athena's own database list; give it Glue's descriptions.
    for name, spec in _DATABASES.items():
        database = backend.databases.get(("AwsDataCatalog", name))
        if database is not None:
            database.description = spec["Description"]
            database.parameters = dict(spec["Parameters"])

    queries = _queries(now.date())
    for index, (execution_id, (minutes_ago, _, key, state, cancel_reason)) in enumerate(started):
        execution = backend.executions[execution_id]
        query = queries[key]
        jitter = 0.85 + (index % 7) * 0.05  # deterministic spread around the query's typical cost
        submitted = now - timedelta(minutes=minutes_ago, seconds=(index * 17) % 50)
        queue_ms = 90 + (index * 37) % 400
        runtime_ms = int(query.runtime_ms * jitter)
        scanned = int(query.scanned_bytes * jitter)
        details: dict[str, Any] = {"StateChangeReason": None, "AthenaError": None}
        if state == "FAILED":
            message, category, retryable = _ERRORS[key]
            runtime_ms = min(runtime_ms, 900) if category == 2 else runtime_ms
            scanned = 0 if category == 2 else scanned // 3
            details["StateChangeReason"] = message
            details["AthenaError"] = {"ErrorCategory": category, "Retryable": retryable, "ErrorMessage": message}
        elif state == "CANCELLED":
            runtime_ms = runtime_ms // 2
            scanned = scanned // 2 if cancel_reason != "Bytes scanned limit was exceeded" else query.scanned_bytes
            details["StateChangeReason"] = cancel_reason
        elif state in ("RUNNING", "QUEUED"):
            elapsed_ms = int((now - submitted).total_seconds() * 1000)
            runtime_ms = max(elapsed_ms - queue_ms, 0) if state == "RUNNING" else 0
            scanned = scanned // 4 if state == "RUNNING" else 0
            queue_ms = queue_ms if state == "RUNNING" else elapsed_ms
            # Pin the state: moto's default "immediate" progression would otherwise report SUCCEEDED.
            execution._transitions = [(state, state)]
        total_ms = queue_ms + runtime_ms
        details["Statistics"] = {
            "EngineExecutionTimeInMillis": runtime_ms,
            "DataScannedInBytes": scanned,
            "TotalExecutionTimeInMillis": total_ms,
            "QueryQueueTimeInMillis": queue_ms,
            "ServicePreProcessingTimeInMillis": 40 + index % 30,
            "QueryPlanningTimeInMillis": min(runtime_ms, 120 + (index * 13) % 200),
            "ServiceProcessingTimeInMillis": 25 + index % 40 if state not in ("RUNNING", "QUEUED") else 0,
            "ResultReuseInformation": {"ReusedPreviousResult": False},
        }
        execution.status = state
        execution.start_time = submitted.timestamp()
        terminal = state in ("SUCCEEDED", "FAILED", "CANCELLED")
        execution.end_time = (submitted + timedelta(milliseconds=total_ms)).timestamp() if terminal else None
        setattr(execution, EXECUTION_DETAILS_ATTR, details)
    return True


# --------------------------------------------------------------------------- IAM, SSO

def _policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


WORKFLOW_TABLE = "aws-data-mcp-workflows"
WORKFLOW_TABLE_ACTIONS = ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem"]
"""Exactly what the workflow store calls (template.yaml grants the function role the same)."""


def create_workflow_table(dynamodb: BotoClient) -> None:
    """The stack's workflow table, so the demo keeps workflows where the hosted product does."""
    dynamodb.create_table(TableName=WORKFLOW_TABLE, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                {"AttributeName": "sk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                     {"AttributeName": "sk", "KeyType": "RANGE"}])


def workflow_table_statement(account_id: str, region: str) -> dict[str, Any]:
    return {"Sid": "WorkflowStore", "Effect": "Allow", "Action": WORKFLOW_TABLE_ACTIONS,
            "Resource": f"arn:aws:dynamodb:{region}:{account_id}:table/{WORKFLOW_TABLE}"}


def caller_read_policy() -> str:
    """The demo caller's allow-list: read the data estate, write Athena results."""
    return _policy(
        {
            "Sid": "ReadCatalogQueriesAndIdentity",
            "Effect": "Allow",
            "Action": [
                "athena:List*", "athena:Get*", "athena:BatchGet*",
                "glue:Get*", "glue:BatchGet*", "glue:SearchTables",
                "iam:List*", "iam:Get*", "iam:SimulatePrincipalPolicy",
                "sso:List*", "sso:Describe*", "sso:Get*",
                "identitystore:List*", "identitystore:Describe*",
                "sts:GetCallerIdentity",
            ],
            "Resource": "*",
        },
        {"Sid": "ReadDataLake", "Effect": "Allow", "Action": ["s3:List*", "s3:Get*"], "Resource": "*"},
        {
            "Sid": "WriteAthenaResults",
            "Effect": "Allow",
            "Action": ["s3:PutObject", "s3:AbortMultipartUpload"],
            "Resource": f"arn:aws:s3:::{BUCKET_RESULTS}/*",
        },
    )


def caller_restrictions_policy(account_id: str, region: str) -> str:
    """Explicit denies that make the demo show partial access: one workgroup, two buckets."""
    return _policy(
        {
            "Sid": "NoFinanceWorkgroupDetails",
            "Effect": "Deny",
            "Action": "athena:GetWorkGroup",
            "Resource": f"arn:aws:athena:{region}:{account_id}:workgroup/{DENIED_WORKGROUP}",
        },
        {
            "Sid": "NoFinanceBucket",
            "Effect": "Deny",
            "Action": "s3:*",
            "Resource": [f"arn:aws:s3:::{BUCKET_FINANCE}", f"arn:aws:s3:::{BUCKET_FINANCE}/*"],
        },
        {
            "Sid": "LogsAreListOnly",
            "Effect": "Deny",
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{BUCKET_LOGS}/*",
        },
    )


_SAML_CERTIFICATE = (  # placeholder signing certificate body (not a real key)
    "MIIDpDCCAoygAwIBAgIGAYDEMOACMEDEMOxDQYJKoZIhvcNAQELBQAwgZIxCzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlh"
    "MRYwFAYDVQQHDA1TYW4gRnJhbmNpc2NvMQ0wCwYDVQQKDARPa3RhMRQwEgYDVQQLDAtTU09Qcm92aWRlcjETMBEGA1UEAwwKYWNtZS1k"
    "ZW1vMRwwGgYJKoZIhvcNAQkBFg1pbmZvQG9rdGEuY29tMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowgZIxCzAJBgNVBAYT"
)

_SAML_METADATA = f"""<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="http://www.okta.com/exk1acmedemo">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false"
      protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>
        <ds:X509Certificate>{_SAML_CERTIFICATE}</ds:X509Certificate>
      </ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
      Location="https://acme.okta.com/app/amazon_aws/exk1acmedemo/sso/saml"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
      Location="https://acme.okta.com/app/amazon_aws/exk1acmedemo/sso/saml"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
"""


def _seed_iam(iam: BotoClient, account_id: str, region: str) -> dict[str, Any]:
    policies = {
        "AcmeDataLakeReadOnly": ("Read access to the data lake, catalog and query history.", caller_read_policy()),
        "AcmeDataEngineerAccess": (
            "Build and operate the data lake.",
            _policy({"Effect": "Allow", "Action": ["glue:*", "athena:*", "s3:*"], "Resource": "*"}),
        ),
        "AcmePlatformAdmin": (
            "Full administrative access.",
            _policy({"Effect": "Allow", "Action": "*", "Resource": "*"}),
        ),
        "AcmeEtlLambdaAccess": (
            "Raw-to-curated ETL.",
            _policy(
                {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
                 "Resource": [f"arn:aws:s3:::{BUCKET_RAW}", f"arn:aws:s3:::{BUCKET_RAW}/*"]},
                {"Effect": "Allow", "Action": ["s3:PutObject", "s3:DeleteObject"],
                 "Resource": f"arn:aws:s3:::{BUCKET_CURATED}/*"},
                {"Effect": "Allow", "Action": ["glue:GetTable", "glue:BatchCreatePartition"], "Resource": "*"},
            ),
        ),
    }
    policy_arns = {}
    for name, (description, document) in policies.items():
        created = iam.create_policy(PolicyName=name, Description=description, PolicyDocument=document)
        policy_arns[name] = created["Policy"]["Arn"]

    groups = {
        "data-analysts": "AcmeDataLakeReadOnly",
        "data-engineers": "AcmeDataEngineerAccess",
        "platform-admins": "AcmePlatformAdmin",
    }
    for group, policy in groups.items():
        iam.create_group(GroupName=group)
        iam.attach_group_policy(GroupName=group, PolicyArn=policy_arns[policy])

    users: dict[str, dict[str, Any]] = {
        DEMO_CALLER_USER: {"groups": ["data-analysts"], "login": False, "path": "/",
                           "tags": {"purpose": "aws-data-mcp demo caller"}},
        "alice.nguyen": {"groups": ["data-engineers", "data-analysts"], "login": True, "path": "/people/",
                         "tags": {"team": "data-platform"}},
        "bob.martinez": {"groups": ["data-analysts"], "login": True, "path": "/people/",
                         "tags": {"team": "growth-marketing"}},
        "carol.smith": {"groups": ["platform-admins"], "login": True, "path": "/people/",
                        "tags": {"team": "platform"}},
        "svc-airflow": {"groups": ["data-engineers"], "login": False, "path": "/service/",
                        "tags": {"owner": "data-platform", "rotation": "90d"}},
    }
    caller_arn = ""
    for name, spec in users.items():
        created = iam.create_user(
            UserName=name, Path=spec["path"], Tags=[{"Key": k, "Value": v} for k, v in spec["tags"].items()]
        )
        if name == DEMO_CALLER_USER:
            caller_arn = created["User"]["Arn"]
        for group in spec["groups"]:
            iam.add_user_to_group(GroupName=group, UserName=name)
        if spec["login"]:
            iam.create_login_profile(UserName=name, Password="Demo-Only-Not-A-Secret-1!", PasswordResetRequired=False)
    iam.put_user_policy(
        UserName=DEMO_CALLER_USER,
        PolicyName="restricted-finance-and-logs",
        PolicyDocument=caller_restrictions_policy(account_id, region),
    )
    # In the plain demo the server runs with the demo caller's keys, which then also reach the workflow table.
    iam.put_user_policy(UserName=DEMO_CALLER_USER, PolicyName="workflow-store",
                        PolicyDocument=_policy(workflow_table_statement(account_id, region)))

    github = iam.create_open_id_connect_provider(
        Url="https://token.actions.githubusercontent.com",
        ClientIDList=["sts.amazonaws.com"],
        ThumbprintList=["6938fd4d98bab03faadb97b34396831e3780aea1"],
        Tags=[{"Key": "purpose", "Value": "GitHub Actions deployments"}],
    )["OpenIDConnectProviderArn"]
    okta_oidc = iam.create_open_id_connect_provider(
        Url="https://acme.okta.com/oauth2/default",
        ClientIDList=["aws-data-mcp"],
        ThumbprintList=["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"],
    )["OpenIDConnectProviderArn"]
    saml = iam.create_saml_provider(Name="AcmeOkta", SAMLMetadataDocument=_SAML_METADATA)["SAMLProviderArn"]

    roles: dict[str, dict[str, Any]] = {
        "acme-etl-lambda-role": {
            "description": "Lambda ETL: raw to curated.",
            "trust": {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"},
            "max": 3600,
            "policy": "AcmeEtlLambdaAccess",
        },
        "acme-glue-crawler-role": {
            "description": "Glue crawlers for the raw zone.",
            "trust": {"Effect": "Allow", "Principal": {"Service": "glue.amazonaws.com"}, "Action": "sts:AssumeRole"},
            "max": 3600,
            "policy": "AcmeDataEngineerAccess",
        },
        "acme-partner-analytics-readonly": {
            "description": "Read-only access for the analytics partner's account.",
            "trust": {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::210987654321:root"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"sts:ExternalId": "acme-partner-7731"}},
            },
            "max": 7200,
            "policy": "AcmeDataLakeReadOnly",
        },
        "acme-github-actions-deploy": {
            "description": "Deployments from the data-platform repository.",
            "trust": {
                "Effect": "Allow",
                "Principal": {"Federated": github},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
                    "StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme-corp/data-platform:*"},
                },
            },
            "max": 3600,
            "policy": "AcmeDataEngineerAccess",
        },
        "acme-okta-data-analyst": {
            "description": "Analysts signing in through Okta (SAML).",
            "trust": {
                "Effect": "Allow",
                "Principal": {"Federated": saml},
                "Action": ["sts:AssumeRoleWithSAML", "sts:TagSession"],
                "Condition": {"StringEquals": {"SAML:aud": "https://signin.aws.amazon.com/saml"}},
            },
            "max": 43200,
            "policy": "AcmeDataLakeReadOnly",
        },
        "aws-data-mcp-caller": {
            "description": "Role that aws-data-mcp assumes for OIDC callers (AssumeRoleWithWebIdentity).",
            "trust": {
                "Effect": "Allow",
                "Principal": {"Federated": okta_oidc},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {"StringEquals": {"acme.okta.com/oauth2/default:aud": "aws-data-mcp"}},
            },
            "max": 3600,
            "policy": "AcmeDataLakeReadOnly",
        },
    }
    for name, spec in roles.items():
        iam.create_role(
            RoleName=name,
            Description=spec["description"],
            AssumeRolePolicyDocument=_policy(spec["trust"]),
            MaxSessionDuration=spec["max"],
            Tags=[{"Key": "managed-by", "Value": "terraform"}],
        )
        iam.attach_role_policy(RoleName=name, PolicyArn=policy_arns[spec["policy"]])

    return {
        "caller_arn": caller_arn,
        "users": tuple(users),
        "groups": tuple(groups),
        "roles": tuple(roles),
        "oidc": (github, okta_oidc),
        "saml": (saml,),
    }


def _finish_iam_in_process(account_id: str, region: str, now: datetime) -> None:
    """Set "last used" times (moto documents these attributes as public) and the service user's key."""
    from moto.iam.models import iam_backends
    from moto.utilities.utils import get_partition

    backend = iam_backends[account_id][get_partition(region)]
    roles = {role.name: role for role in backend.roles.values()}
    for name, minutes_ago in (("acme-etl-lambda-role", 14), ("acme-glue-crawler-role", 600),
                              ("acme-github-actions-deploy", 2_900), ("acme-okta-data-analyst", 75)):
        if name in roles:
            roles[name].last_used = now - timedelta(minutes=minutes_ago)
            roles[name].last_used_region = region
    # A programmatic key for the service user, so listings show one. Issued in-process: botocore logs
    # response bodies at DEBUG and CreateAccessKey's body carries the secret.
    if "svc-airflow" in backend.users and not backend.users["svc-airflow"].access_keys:
        backend.create_access_key(user_name="svc-airflow")
    for name, minutes_ago in (("alice.nguyen", 190), ("carol.smith", 4_400)):
        user = backend.users.get(name)
        if user is not None:
            user.password_last_used = now - timedelta(minutes=minutes_ago)


def _seed_identity_center(sso_admin: BotoClient) -> tuple[str, tuple[str, ...]]:
    """moto pre-creates one Identity Center instance per region; name it and add permission sets."""
    instance_arn = sso_admin.list_instances()["Instances"][0]["InstanceArn"]
    sso_admin.update_instance(InstanceArn=instance_arn, Name="acme-identity-center")
    names = []
    for name, description, duration in (
        ("DataAnalyst", "Query the data lake through Athena.", "PT8H"),
        ("DataEngineer", "Operate Glue, Athena and the data lake buckets.", "PT4H"),
        ("PlatformAdmin", "Administer the data platform account.", "PT1H"),
    ):
        created = sso_admin.create_permission_set(
            InstanceArn=instance_arn, Name=name, Description=description, SessionDuration=duration
        )
        sso_admin.provision_permission_set(
            InstanceArn=instance_arn,
            PermissionSetArn=created["PermissionSet"]["PermissionSetArn"],
            TargetType="ALL_PROVISIONED_ACCOUNTS",
        )
        names.append(name)
    return instance_arn, tuple(names)


# --------------------------------------------------------------------------- entry point

def seed_data_lake(session: boto3.Session, endpoint_url: str, *, now: datetime | None = None) -> DemoInventory:
    """Create the demo data lake through boto3 calls against ``endpoint_url``.

    ``session`` must be allowed to create everything (moto accepts any keys while IAM
    enforcement is off). The demo caller user is created with its policies but no access
    key: the caller's key is issued by ``DemoAccount`` so it never passes through here.
    """
    now = now or datetime.now(UTC)
    region = session.region_name or "us-east-1"

    def client(name: str) -> BotoClient:
        return session.client(name, endpoint_url=endpoint_url, region_name=region, config=_CLIENT_CONFIG)

    clients = {name: client(name) for name in ("sts", "s3", "glue", "athena", "iam", "sso-admin", "dynamodb")}
    account_id = clients["sts"].get_caller_identity()["Account"]
    today = now.date()

    # Buckets first (objects and Athena results need them); then independent services in parallel,
    # which cuts seeding time roughly in half (moto's server is threaded; one client per thread is safe).
    _create_buckets(clients["s3"])
    objects = _all_objects(account_id, region, today)
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="demo-seed") as pool:
        puts = [pool.submit(_put_objects, clients["s3"], objects[index::4]) for index in range(4)]
        glue_done = pool.submit(_seed_glue, clients["glue"], today)
        athena_done = pool.submit(_seed_athena, clients["athena"], endpoint_url, account_id, region, now)
        iam_done = pool.submit(_seed_iam, clients["iam"], account_id, region)
        sso_done = pool.submit(_seed_identity_center, clients["sso-admin"])
        pool.submit(create_workflow_table, clients["dynamodb"]).result()
        for future in puts:
            future.result()
        glue_done.result()
        started = athena_done.result()
        iam_info = iam_done.result()
        instance_arn, permission_sets = sso_done.result()

    notes: list[str] = []
    finished = _finish_athena_in_process(started, account_id, region, now)
    if finished:
        _finish_iam_in_process(account_id, region, now)
        states = Counter(entry[3] for _, entry in started)
    else:
        notes.append("moto backend not in this process: query states left as moto reports them (SUCCEEDED)")
        states = Counter({"SUCCEEDED": len(started)})

    databases: dict[str, tuple[str, ...]] = {
        name: tuple(table.name for table in _TABLES if table.database == name) for name in _DATABASES
    }
    return DemoInventory(
        account_id=account_id,
        region=region,
        caller_user_name=DEMO_CALLER_USER,
        caller_arn=iam_info["caller_arn"],
        buckets=BUCKETS,
        object_count=len(objects),
        databases=databases,
        table_locations={f"{t.database}.{t.name}": f"s3://{t.bucket}/{t.prefix}" for t in _TABLES},
        workgroups=("primary", *_WORKGROUPS),
        denied_workgroups=(DENIED_WORKGROUP,),
        query_execution_ids=tuple(execution_id for execution_id, _ in started),
        query_states=dict(states),
        query_workgroups=dict(Counter(entry[1] for _, entry in started)),
        users=iam_info["users"],
        groups=iam_info["groups"],
        roles=iam_info["roles"],
        identity_center_instance_arn=instance_arn,
        permission_sets=permission_sets,
        oidc_providers=iam_info["oidc"],
        saml_providers=iam_info["saml"],
        finished_in_process=finished,
        notes=tuple(notes),
    )
