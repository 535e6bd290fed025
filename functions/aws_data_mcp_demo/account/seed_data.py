"""What the demo account holds: the demo data lake, declared as data.

`seed.py` and `seed_athena.py` create it through boto3 against the emulated account. This module
only says what there is: buckets, Glue tables, workgroups and past queries, IAM, providers, Identity
Center. Entries that depend on the seeding (the account, the region, today, the providers' ARNs) are
functions.
"""

import json
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from aws_data_mcp.workflows.table import DEFAULT_TABLE_NAME, TABLE_ACTIONS

DEMO_CALLER_USER = "demo-analyst"
DENIED_WORKGROUP = "finance-restricted"


# --------------------------------------------------------------------------- S3 + Glue

BUCKET_RAW = "acme-datalake-raw"
BUCKET_CURATED = "acme-datalake-curated"
BUCKET_RESULTS = "acme-athena-results"
BUCKET_ML = "acme-ml-features"
BUCKET_LOGS = "acme-logs-archive"
BUCKET_FINANCE = "acme-finance-secure"
BUCKETS: tuple[str, ...] = (BUCKET_RAW, BUCKET_CURATED, BUCKET_RESULTS, BUCKET_ML, BUCKET_LOGS, BUCKET_FINANCE)
BUCKET_TAGS: dict[str, str] = {"team": "data-platform", "env": "prod"}
VERSIONED_BUCKETS: tuple[str, ...] = (BUCKET_RAW, BUCKET_CURATED, BUCKET_FINANCE)

Column = tuple[str, str, str]  # name, Athena type, comment

FORMATS: dict[str, dict[str, Any]] = {
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
    "parquet_uncompressed": {  # sales.orders: uncompressed, so a full scan is more than analytics' cutoff
        "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        "SerdeInfo": {
            "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            "Parameters": {"serialization.format": "1"},
        },
        "TableParameters": {"classification": "parquet", "compressionType": "none"},
        "Compressed": False,
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
class Table:
    database: str
    name: str
    bucket: str
    prefix: str
    fmt: str
    description: str
    columns: tuple[Column, ...]
    partition_keys: tuple[Column, ...] = ()
    owner: str = "data-platform"


DATABASES: dict[str, dict[str, Any]] = {
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

DEMO_DATA_STORY = (
    "The demo account's data is Acme Outdoor, a small online shop, from 2026-01-01 to 2026-04-30. Glue database "
    "`sales`: orders (250,000, partitioned by order_date), order_items, customers, products, exchange_rates and the "
    "raw order feed; "
    "`marketing`: campaigns, campaign_events, web_sessions and email_sends; `ml_features`: customer_features, "
    "churn_labels and product_embeddings. Tables join on customer_id, order_id, product_id and campaign_id. "
    "Order amounts are in each order's currency (USD, EUR, GBP): sales.exchange_rates converts them to USD. "
    "Queries run in the `analytics` workgroup, which stops any query that would read more than 10 MB: filter "
    "partitioned tables on their date key (e.g. order_date), and ask estimate_only first when unsure."
)
"""What the demo data is, in a few sentences: for the demo's server instructions and banner."""

TABLES: tuple[Table, ...] = (
    Table(
        "sales", "orders", BUCKET_CURATED, "sales/orders/", "parquet_uncompressed",
        "One row per order (250,000 orders, 2026-01-01 to 2026-04-30), deduplicated from the raw feed; "
        "partitioned by order_date. Amounts are in each order's own currency (USD, EUR or GBP, column currency): "
        "convert with sales.exchange_rates (on currency and the order's month) before adding them up.",
        (
            ("order_id", "string", "Order identifier (ORD-nnnnnnn)"),
            ("customer_id", "string", "Customer identifier, joins sales.customers"),
            ("order_ts", "timestamp", "When the order was placed (UTC)"),
            ("status", "string", "placed | shipped | delivered | returned | cancelled"),
            ("currency", "string", "ISO 4217 code of total_amount: USD, EUR or GBP (a customer pays in one)"),
            ("total_amount", "decimal(12,2)", "Order total including tax, in the order's currency (not USD: "
                                              "see sales.exchange_rates)"),
            ("items_count", "int", "Number of order lines"),
            ("channel", "string", "web | mobile | store"),
        ),
        (("order_date", "string", "Order date, yyyy-MM-dd"),),
    ),
    Table(
        "sales", "order_items", BUCKET_CURATED, "sales/order_items/", "parquet",
        "Order lines: product, quantity and price, in the order's currency (sales.orders.currency); the lines "
        "of an order add up to its total_amount. Partitioned by order_date, as sales.orders.",
        (
            ("order_id", "string", "Order identifier, joins sales.orders"),
            ("line_no", "int", "Line number within the order"),
            ("product_id", "string", "Product identifier, joins sales.products"),
            ("quantity", "int", "Units ordered"),
            ("unit_price", "decimal(10,2)", "Price per unit at order time, in the order's currency"),
            ("discount", "decimal(10,2)", "Discount applied to the line, in the order's currency"),
        ),
        (("order_date", "string", "Order date, yyyy-MM-dd"),),
    ),
    Table(
        "sales", "customers", BUCKET_CURATED, "sales/customers/", "parquet",
        "Customer master data, one row per customer (60,000; PII: name; e-mail is stored hashed).",
        (
            ("customer_id", "string", "Customer identifier"),
            ("full_name", "string", "PII: customer name"),
            ("email_sha256", "string", "SHA-256 of the lower-cased e-mail address"),
            ("country", "string", "ISO 3166-1 alpha-2 country code"),
            ("segment", "string", "consumer | smb | enterprise"),
            ("created_at", "timestamp", "Account creation time (UTC)"),
            ("is_active", "boolean", "False once the account is closed"),
        ),
    ),
    Table(
        "sales", "products", BUCKET_CURATED, "sales/products/", "parquet",
        "Product catalogue snapshot (400 products in 5 categories).",
        (
            ("product_id", "string", "Product identifier"),
            ("sku", "string", "Stock keeping unit"),
            ("name", "string", "Display name"),
            ("category", "string", "Top-level category"),
            ("subcategory", "string", "Second-level category"),
            ("list_price", "decimal(10,2)", "Current list price"),
            ("attributes", "map<string,string>", "Free-form product attributes"),
        ),
    ),
    Table(
        "sales", "exchange_rates", BUCKET_CURATED, "sales/exchange_rates/", "csv",
        "What one unit of each order currency was worth in US dollars, per month (the month's average rate, "
        "from finance): join sales.orders on currency and date_trunc('month', order_ts) = rate_month to add up "
        "amounts in USD.",
        (
            ("currency", "string", "ISO 4217 code, as sales.orders.currency"),
            ("rate_month", "date", "First day of the month the rate applies to"),
            ("usd_per_unit", "decimal(10,4)", "US dollars per one unit of the currency (USD: 1)"),
        ),
    ),
    Table(
        "sales", "raw_orders", BUCKET_RAW, "sales/orders/", "csv",
        "Raw order export as delivered by the commerce platform (one CSV per daily ingest, the last 14 days "
        "kept; duplicates and unparsed amounts included).",
        (
            ("order_id", "string", "Order identifier"),
            ("customer_id", "string", "Customer identifier"),
            ("order_ts", "string", "ISO-8601 timestamp as text"),
            ("status", "string", "Order status as text"),
            ("currency", "string", "Currency code of total_amount (USD, EUR or GBP)"),
            ("total_amount", "string", "Order total as text, in its currency"),
            ("payload_version", "int", "Export schema version"),
        ),
        (("ingest_date", "string", "Ingest date, yyyy-MM-dd"),),
        owner="ingestion",
    ),
    Table(
        "marketing", "campaigns", BUCKET_CURATED, "marketing/campaigns/", "parquet",
        "Marketing campaigns with budget and owner (24 campaigns over 2026-01 to 2026-04).",
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
    ),
    Table(
        "marketing", "campaign_events", BUCKET_CURATED, "marketing/campaign_events/", "parquet",
        "Impressions, clicks and conversions attributed to campaigns; a conversion is an order (same "
        "customer, minutes before order_ts). Partitioned by event_date.",
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
    Table(
        "marketing", "web_sessions", BUCKET_RAW, "marketing/web_sessions/", "json",
        "Web analytics sessions (gzip JSON lines from the tracking pipeline); every web or mobile order has "
        "its session. Partitioned by dt.",
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
    Table(  # in the list-only logs bucket: the demo's table whose data the caller cannot read
        "marketing", "shop_access_logs", BUCKET_LOGS, "alb/shop-prod/", "json",
        "Shop load-balancer access logs, parsed to JSON lines by the log shipper (the last 7 days).",
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
    Table(
        "marketing", "email_sends", BUCKET_RAW, "marketing/email_sends/", "csv",
        "E-mail sends and engagement flags exported from the ESP (the e-mail campaigns' sends).",
        (
            ("send_id", "string", "Send identifier"),
            ("campaign_id", "string", "Campaign identifier"),
            ("customer_id", "string", "Recipient customer identifier"),
            ("sent_at", "string", "Send time as text"),
            ("opened", "boolean", "Opened at least once"),
            ("clicked", "boolean", "Clicked at least once"),
            ("bounced", "boolean", "Hard or soft bounce"),
        ),
        owner="ingestion",
    ),
    Table(
        "ml_features", "customer_features", BUCKET_ML, "features/customer_features/", "parquet",
        "Customer feature snapshot for the churn model, computed from orders, sessions and e-mails (one "
        "partition per monthly snapshot_date).",
        (
            ("customer_id", "string", "Customer identifier"),
            ("recency_days", "int", "Days since last order"),
            ("frequency_90d", "int", "Orders in the last 90 days"),
            ("monetary_90d", "double", "Spend in the last 90 days, in USD (converted at sales.exchange_rates)"),
            ("avg_basket", "double", "Average order value, in USD (converted at sales.exchange_rates)"),
            ("sessions_30d", "int", "Web sessions in the last 30 days"),
            ("email_open_rate", "double", "Share of e-mails opened, 0..1"),
            ("churn_risk_bucket", "string", "low | medium | high (previous model run)"),
        ),
        (("snapshot_date", "string", "Snapshot date, yyyy-MM-dd"),),
        owner="data-science",
    ),
    Table(
        "ml_features", "churn_labels", BUCKET_ML, "labels/churn_labels/", "parquet",
        "Ground-truth churn labels, 60 days after the snapshot (label_date = the snapshot_date labelled).",
        (
            ("customer_id", "string", "Customer identifier"),
            ("churned", "boolean", "No order within 60 days"),
            ("churn_date", "date", "Date the customer was considered churned"),
            ("label_source", "string", "rule_v2 | manual_review"),
        ),
        (("label_date", "string", "Label date, yyyy-MM-dd"),),
        owner="data-science",
    ),
    Table(
        "ml_features", "product_embeddings", BUCKET_ML, "embeddings/product_embeddings/", "parquet",
        "Product embeddings produced by the recommendation model.",
        (
            ("product_id", "string", "Product identifier"),
            ("embedding", "array<float>", "256-dimensional embedding"),
            ("trained_at", "timestamp", "Training run end time (UTC)"),
        ),
        (("model_version", "string", "Model version, e.g. v4"),),
        owner="data-science",
    ),
)

PARQUET_PLACEHOLDER = b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1"


def extra_objects(account_id: str, region: str, today: date) -> list[tuple[str, str, bytes]]:
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
        (BUCKET_FINANCE, f"ledger/close_date={day.isoformat()}/part-00000.snappy.parquet", PARQUET_PLACEHOLDER),
        (BUCKET_FINANCE, "exports/board-pack-q3.xlsx", b"PK\x03\x04 placeholder"),
        (BUCKET_RESULTS, "analytics/tables/.keep", b""),
    ]


# --------------------------------------------------------------------------- Athena

QUERY_CUTOFF_BYTES = 10_000_000
"""analytics' cutoff: Athena's smallest, below a full scan of sales.orders, so the guard is real in the demo."""

WORKGROUPS: dict[str, dict[str, Any]] = {
    "analytics": {
        "Description": "BI dashboards and ad-hoc analytics (10 MB per-query cutoff, enforced).",
        "Configuration": {
            "ResultConfiguration": {
                "OutputLocation": f"s3://{BUCKET_RESULTS}/analytics/",
                "EncryptionConfiguration": {"EncryptionOption": "SSE_S3"},
            },
            "EnforceWorkGroupConfiguration": True,
            "PublishCloudWatchMetricsEnabled": True,
            "BytesScannedCutoffPerQuery": QUERY_CUTOFF_BYTES,
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

WORKGROUPS["partners"] = {
    "Description": "Ad-hoc queries by contractors and partners (10 MB per-query cutoff, enforced); results kept apart.",
    "Configuration": {
        "ResultConfiguration": {"OutputLocation": f"s3://{BUCKET_RESULTS}/partners/"},
        "EnforceWorkGroupConfiguration": True,
        "PublishCloudWatchMetricsEnabled": True,
        "BytesScannedCutoffPerQuery": QUERY_CUTOFF_BYTES,
        "EngineVersion": {"SelectedEngineVersion": "Athena engine version 3"},
    },
    "Tags": [{"Key": "team", "Value": "partners"}],
}

# moto creates `primary` without these (and has no UpdateWorkGroup): set in-process.
PRIMARY_RESULT_LOCATION = f"s3://{BUCKET_RESULTS}/primary/"
PRIMARY_DESCRIPTION = "Default workgroup for ad-hoc queries."



@dataclass(frozen=True)
class Query:
    """A query text with its typical cost and, for SELECTs, a canned first page of results."""

    database: str
    sql: str
    scanned_bytes: int
    runtime_ms: int
    columns: tuple[tuple[str, str], ...] = ()  # (name, Athena result type)
    rows: tuple[tuple[str, ...], ...] = ()


def queries_for(today: date) -> dict[str, Query]:
    week_ago = (today - timedelta(days=7)).isoformat()
    yesterday = (today - timedelta(days=1)).isoformat()
    days = [(today - timedelta(days=offset)).isoformat() for offset in (1, 2, 3)]
    return {
        "create_sales": Query("default", "CREATE DATABASE IF NOT EXISTS sales", 0, 412),
        "create_marketing": Query("default", "CREATE DATABASE IF NOT EXISTS marketing", 0, 398),
        "create_ml": Query("default", "CREATE DATABASE IF NOT EXISTS ml_features", 0, 405),
        "repair_orders": Query("sales", "MSCK REPAIR TABLE sales.orders", 0, 5210),
        "daily_revenue": Query(
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
        "top_customers": Query(
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
        "category_sales": Query(
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
        "campaign_funnel": Query(
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
        "sessions_by_device": Query(
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
        "email_open_rate": Query(
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
        "risk_buckets": Query(
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
        "training_set": Query(
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
        "embedding_versions": Query(
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
        "bad_column": Query("sales", "SELECT order_id, revenue\nFROM sales.orders\nLIMIT 100", 0, 310),
        "bad_table": Query("sales", "SELECT *\nFROM sales.order_lines\nLIMIT 10", 0, 280),
        "bad_data": Query(
            "sales",
            "SELECT CAST(total_amount AS decimal(12,2)) AS total\n"
            "FROM sales.raw_orders\n"
            f"WHERE ingest_date = '{yesterday}'",
            12_582_912,
            2_050,
        ),
        "full_scan": Query("marketing", "SELECT *\nFROM marketing.web_sessions", 10 * 1024**3, 61_200),
        "big_join": Query(
            "sales",
            "SELECT o.*, oi.*, p.*\n"
            "FROM sales.orders o\n"
            "JOIN sales.order_items oi ON o.order_id = oi.order_id\n"
            "JOIN sales.products p ON oi.product_id = p.product_id",
            2_684_354_560,
            95_000,
        ),
    }


ERRORS: dict[str, tuple[str, int, bool]] = {
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
HISTORY: tuple[tuple[int, str, str, str, str], ...] = (
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


# --------------------------------------------------------------------------- IAM

def policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def workflow_table_statement(account_id: str, region: str) -> dict[str, Any]:
    return {"Sid": "WorkflowStore", "Effect": "Allow", "Action": list(TABLE_ACTIONS),
            "Resource": f"arn:aws:dynamodb:{region}:{account_id}:table/{DEFAULT_TABLE_NAME}"}


QUERY_WORKGROUPS = ("analytics", "data-science", DENIED_WORKGROUP, "partners", "encrypted-results")
"""Where the demo lets athena_query run: analytics (cutoff enforced: queries run), data-science (no cutoff:
refused with the settings to add), finance-restricted (the analysts may not describe it: refused; whoever may has
no use of its results' KMS key: Athena fails the query), partners (the contractors'; the analysts may not write
its results) and encrypted-results (the enterprise lake's: results under a key the analysts may encrypt with, not
decrypt)."""


def explain_own_access_statement() -> dict[str, Any]:
    """What a caller needs to see its own access as AWS lets it (permissions://tables): Lake Formation's
    registrations and settings, its own grants (ListPermissions answers a non-administrator with the permissions it
    holds), and the policies of the keys that encrypt what it reads."""
    return {"Sid": "ExplainOwnAccess", "Effect": "Allow", "Resource": "*", "Action": [
        "lakeformation:ListResources", "lakeformation:ListPermissions", "lakeformation:GetDataLakeSettings",
        "lakeformation:DescribeResource", "lakeformation:ListLakeFormationOptIns", "lakeformation:ListDataCellsFilter",
        "lakeformation:GetDataCellsFilter", "lakeformation:GetResourceLFTags", "lakeformation:ListLFTags",
        "lakeformation:GetLFTag", "kms:GetKeyPolicy", "kms:DescribeKey",
        "kms:ListAliases"]}


def caller_read_policy() -> str:
    """The demo caller's allow-list: read the data estate, write Athena results."""
    return policy(
        {
            "Sid": "ReadCatalogQueriesAndIdentity",
            "Effect": "Allow",
            "Action": [
                "athena:List*", "athena:Get*", "athena:BatchGet*",
                "glue:Get*", "glue:BatchGet*", "glue:SearchTables", "glue:ListDataQualityResults",
                "iam:List*", "iam:Get*", "iam:SimulatePrincipalPolicy",
                "sso:List*", "sso:Describe*", "sso:Get*",
                "identitystore:List*", "identitystore:Describe*",
                "sts:GetCallerIdentity",
            ],
            "Resource": "*",
        },
        {"Sid": "RunQueries", "Effect": "Allow", "Action": ["athena:StartQueryExecution", "athena:StopQueryExecution",
                                                            "lakeformation:GetDataAccess"],
         "Resource": "*"},
        explain_own_access_statement(),
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
    return policy(
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
        {
            "Sid": "PartnerResultsAreThePartners",
            "Effect": "Deny",
            "Action": "s3:PutObject",
            "Resource": f"arn:aws:s3:::{BUCKET_RESULTS}/partners/*",
        },
    )


_SAML_CERTIFICATE = (  # placeholder signing certificate body (not a real key)
    "MIIDpDCCAoygAwIBAgIGAYDEMOACMEDEMOxDQYJKoZIhvcNAQELBQAwgZIxCzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlh"
    "MRYwFAYDVQQHDA1TYW4gRnJhbmNpc2NvMQ0wCwYDVQQKDARPa3RhMRQwEgYDVQQLDAtTU09Qcm92aWRlcjETMBEGA1UEAwwKYWNtZS1k"
    "ZW1vMRwwGgYJKoZIhvcNAQkBFg1pbmZvQG9rdGEuY29tMB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowgZIxCzAJBgNVBAYT"
)

SAML_METADATA = f"""<?xml version="1.0" encoding="UTF-8"?>
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


PASSWORD = "Demo-Only-Not-A-Secret-1!"  # the people's console passwords (login profiles)
ROLE_TAGS: dict[str, str] = {"managed-by": "terraform"}


POLICIES: dict[str, tuple[str, str]] = {  # customer managed policies: name -> (description, document)
    "AcmeDataLakeReadOnly": ("Read access to the data lake, catalog and query history.", caller_read_policy()),
    "AcmeDataEngineerAccess": (
        "Build and operate the data lake.",
        policy({"Effect": "Allow", "Action": ["glue:*", "athena:*", "s3:*"], "Resource": "*"}),
    ),
    "AcmePlatformAdmin": (
        "Full administrative access.",
        policy({"Effect": "Allow", "Action": "*", "Resource": "*"}),
    ),
    "AcmeEtlLambdaAccess": (
        "Raw-to-curated ETL.",
        policy(
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
             "Resource": [f"arn:aws:s3:::{BUCKET_RAW}", f"arn:aws:s3:::{BUCKET_RAW}/*"]},
            {"Effect": "Allow", "Action": ["s3:PutObject", "s3:DeleteObject"],
             "Resource": f"arn:aws:s3:::{BUCKET_CURATED}/*"},
            {"Effect": "Allow", "Action": ["glue:GetTable", "glue:BatchCreatePartition"], "Resource": "*"},
        ),
    ),
}


GROUPS: dict[str, str] = {  # group -> its attached policy
    "data-analysts": "AcmeDataLakeReadOnly",
    "data-engineers": "AcmeDataEngineerAccess",
    "platform-admins": "AcmePlatformAdmin",
}


@dataclass(frozen=True)
class User:
    groups: tuple[str, ...]
    login: bool  # a console password (login profile)
    path: str
    tags: dict[str, str]


USERS: dict[str, User] = {
    DEMO_CALLER_USER: User(("data-analysts",), False, "/", {"purpose": "aws-data-mcp demo caller"}),
    "alice.nguyen": User(("data-engineers", "data-analysts"), True, "/people/", {"team": "data-platform"}),
    "bob.martinez": User(("data-analysts",), True, "/people/", {"team": "growth-marketing"}),
    "carol.smith": User(("platform-admins",), True, "/people/", {"team": "platform"}),
    "svc-airflow": User(("data-engineers",), False, "/service/", {"owner": "data-platform", "rotation": "90d"}),
}
SERVICE_USER_WITH_KEY = "svc-airflow"  # a programmatic key, so listings show one


def caller_inline_policies(account_id: str, region: str) -> dict[str, str]:
    """The demo caller's inline policies: name -> document."""
    return {
        "restricted-finance-and-logs": caller_restrictions_policy(account_id, region),
        # In the plain demo the server runs with the demo caller's keys, which then also reach the workflow table.
        "workflow-store": policy(workflow_table_statement(account_id, region)),
    }


@dataclass(frozen=True)
class OidcProvider:
    url: str
    client_ids: tuple[str, ...]
    thumbprints: tuple[str, ...]
    tags: dict[str, str]


GITHUB_OIDC = OidcProvider("https://token.actions.githubusercontent.com", ("sts.amazonaws.com",),
                           ("6938fd4d98bab03faadb97b34396831e3780aea1",), {"purpose": "GitHub Actions deployments"})
OKTA_OIDC = OidcProvider("https://acme.okta.com/oauth2/default", ("aws-data-mcp",),
                         ("9e99a48a9960b14926bb7f3b02e22da2b0ab7280",), {})
SAML_PROVIDER = "AcmeOkta"


@dataclass(frozen=True)
class Role:
    description: str
    trust: dict[str, Any]  # the one statement of its trust policy
    max_session_seconds: int
    policy: str  # its attached policy


def roles(github: str, okta_oidc: str, saml: str) -> dict[str, Role]:
    """The account's roles, given the ARNs of the identity providers some of them trust."""
    return {
        "acme-etl-lambda-role": Role(
            "Lambda ETL: raw to curated.",
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"},
            3600,
            "AcmeEtlLambdaAccess",
        ),
        "acme-glue-crawler-role": Role(
            "Glue crawlers for the raw zone.",
            {"Effect": "Allow", "Principal": {"Service": "glue.amazonaws.com"}, "Action": "sts:AssumeRole"},
            3600,
            "AcmeDataEngineerAccess",
        ),
        "acme-partner-analytics-readonly": Role(
            "Read-only access for the analytics partner's account.",
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::210987654321:root"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"sts:ExternalId": "acme-partner-7731"}},
            },
            7200,
            "AcmeDataLakeReadOnly",
        ),
        "acme-github-actions-deploy": Role(
            "Deployments from the data-platform repository.",
            {
                "Effect": "Allow",
                "Principal": {"Federated": github},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
                    "StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme-corp/data-platform:*"},
                },
            },
            3600,
            "AcmeDataEngineerAccess",
        ),
        "acme-okta-data-analyst": Role(
            "Analysts signing in through Okta (SAML).",
            {
                "Effect": "Allow",
                "Principal": {"Federated": saml},
                "Action": ["sts:AssumeRoleWithSAML", "sts:TagSession"],
                "Condition": {"StringEquals": {"SAML:aud": "https://signin.aws.amazon.com/saml"}},
            },
            43200,
            "AcmeDataLakeReadOnly",
        ),
        "aws-data-mcp-caller": Role(
            "Role that aws-data-mcp assumes for OIDC callers (AssumeRoleWithWebIdentity).",
            {
                "Effect": "Allow",
                "Principal": {"Federated": okta_oidc},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {"StringEquals": {"acme.okta.com/oauth2/default:aud": "aws-data-mcp"}},
            },
            3600,
            "AcmeDataLakeReadOnly",
        ),
    }


# "Last used" times, minutes before seeding (moto documents these attributes as public: set in-process).
ROLES_LAST_USED: dict[str, int] = {"acme-etl-lambda-role": 14, "acme-glue-crawler-role": 600,
                                   "acme-github-actions-deploy": 2_900, "acme-okta-data-analyst": 75}
PASSWORDS_LAST_USED: dict[str, int] = {"alice.nguyen": 190, "carol.smith": 4_400}


# --------------------------------------------------------------------------- IAM Identity Center

IDENTITY_CENTER_NAME = "acme-identity-center"
PERMISSION_SETS: tuple[tuple[str, str, str], ...] = (  # name, description, session duration
    ("DataAnalyst", "Query the data lake through Athena.", "PT8H"),
    ("DataEngineer", "Operate Glue, Athena and the data lake buckets.", "PT4H"),
    ("PlatformAdmin", "Administer the data platform account.", "PT1H"),
)


# --------------------------------------------------------------------------- who may read what, beyond IAM

ANALYST_ROLE, ADMIN_ROLE, CONTRACTOR_ROLE = "demo-analyst-role", "demo-admin-role", "demo-contractor-role"
"""The hosted demos' caller roles (``callers.py``), named here because the lake's policies and grants name them."""


def _principal(account_id: str, name: str) -> str:
    kind = "role" if name.endswith("-role") else "user"
    return f"arn:aws:iam::{account_id}:{kind}/{name}"


@dataclass(frozen=True)
class KmsKey:
    alias: str
    description: str
    users: tuple[str, ...]
    """The users and roles (names) the key policy lets use the key; the account's IAM administers it, not use it."""


RAW_KEY = KmsKey("alias/acme-datalake-raw", "Default SSE-KMS key of the raw zone (acme-datalake-raw).",
                 (DEMO_CALLER_USER, ANALYST_ROLE, "acme-etl-lambda-role", "acme-glue-crawler-role"))
CAMPAIGN_KEY = KmsKey("alias/acme-campaign-budgets", "Campaign budgets (marketing.campaigns), confidential.",
                      (ADMIN_ROLE, "acme-etl-lambda-role"))
LAKEHOUSE_DAY_KEY = KmsKey("alias/acme-lakehouse-open-day",
                           "The lakehouse's newest day of orders, until finance closes it (lakehouse.orders_iceberg).",
                           (DEMO_CALLER_USER, ADMIN_ROLE, "acme-etl-lambda-role"))
"""Not the analysts' role: alice reads orders_iceberg's closed days, not its newest (the demo-analyst user may)."""
ENCRYPTED_BUCKET = BUCKET_RAW
"""The SSE-KMS bucket: every object written there is encrypted with RAW_KEY by default."""
ENCRYPTED_PREFIXES: tuple[tuple[str, str, KmsKey], ...] = ((BUCKET_CURATED, "marketing/campaigns/", CAMPAIGN_KEY),)
"""Objects re-encrypted with their own key after they are written (bucket, prefix, key)."""


def key_policy(account_id: str, key: KmsKey) -> str:
    """A key policy as KMS's console writes one: the account administers the key; only `key.users` use it."""
    return policy(
        {"Sid": "AccountAdministersTheKey", "Effect": "Allow",
         "Principal": {"AWS": f"arn:aws:iam::{account_id}:root"},
         "Action": ["kms:Create*", "kms:Describe*", "kms:Enable*", "kms:List*", "kms:Put*", "kms:Update*",
                    "kms:Revoke*", "kms:Disable*", "kms:Get*", "kms:Delete*", "kms:TagResource",
                    "kms:UntagResource", "kms:ScheduleKeyDeletion", "kms:CancelKeyDeletion"],
         "Resource": "*"},
        {"Sid": "KeyUsers", "Effect": "Allow", "Principal": {"AWS": [_principal(account_id, u) for u in key.users]},
         "Action": ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*", "kms:DescribeKey"],
         "Resource": "*"},
    )


def bucket_policies(account_id: str) -> dict[str, str]:
    """Bucket policies that deny roles what their IAM policies allow."""
    return {
        BUCKET_RAW: policy({
            "Sid": "RawOrderFeedIsTheIngestionPipelines", "Effect": "Deny",
            "Principal": {"AWS": [_principal(account_id, n) for n in (DEMO_CALLER_USER, ANALYST_ROLE, ADMIN_ROLE)]},
            "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET_RAW}/sales/orders/*"}),
        BUCKET_CURATED: policy({
            "Sid": "NoCustomerPiiForContractors", "Effect": "Deny",
            "Principal": {"AWS": _principal(account_id, CONTRACTOR_ROLE)},
            "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET_CURATED}/sales/customers/*"}),
    }


LAKE_FORMATION_LOCATION = f"arn:aws:s3:::{BUCKET_ML}"
"""Registered with Lake Formation: the ml_features database's tables are read with LF's grants, not S3's."""
CUSTOMER_FEATURE_COLUMNS = ("customer_id", "recency_days", "frequency_90d", "monetary_90d", "snapshot_date")
"""The columns of ml_features.customer_features the analysts are granted (not the model's outputs)."""


def lake_formation_grants(account_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(principal ARN, LF resource) granted SELECT: churn_labels to the admins only, customer_features whole to the
    admins and some columns to the analysts, product_embeddings to the analysts; nothing to the contractors."""
    analysts = [_principal(account_id, n) for n in (DEMO_CALLER_USER, ANALYST_ROLE)]
    admin = _principal(account_id, ADMIN_ROLE)

    def table(name: str) -> dict[str, Any]:
        return {"Table": {"DatabaseName": "ml_features", "Name": name}}

    columns = {"TableWithColumns": {"DatabaseName": "ml_features", "Name": "customer_features",
                                    "ColumnNames": list(CUSTOMER_FEATURE_COLUMNS)}}
    return [(admin, table("churn_labels")), (admin, table("customer_features")),
            *((arn, columns) for arn in analysts), *((arn, table("product_embeddings")) for arn in analysts)]
