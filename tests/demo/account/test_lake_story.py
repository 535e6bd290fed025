"""The demo lake answers its own questions: amounts say their currency and convert, channels return differently,
orders follow the seasons, and some customers drift away so that the features predict the churn labels. Read from
the generated files themselves (DuckDB over the files, as an analyst would), and from ``order_values``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import duckdb
import pytest

from aws_data_mcp_demo.account.lake_data import CURRENCIES, DAY_COUNTS, ORDER_ROWS, order_values
from aws_data_mcp_demo.account.lake_tables import lake_files
from aws_data_mcp_demo.account.seed_data import TABLES


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """Every generated table as a DuckDB view over its files (hive partitions as columns)."""
    root = tmp_path_factory.mktemp("lake")
    connection = duckdb.connect()
    for name, table in lake_files().items():
        for key, body in table.files.items():
            path = root / name / key
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        glob = str(root / name / ("*/*" if table.table.partition_keys else "*"))
        reader = "read_parquet" if ".parquet" in next(iter(table.files)) else None
        if reader:
            connection.execute(f"CREATE VIEW {name.split('.')[1]} AS SELECT * FROM read_parquet('{glob}', "
                               "hive_partitioning = true)")
        elif name == "sales.exchange_rates":
            connection.execute(f"CREATE VIEW exchange_rates AS SELECT * FROM read_csv('{glob}', header = true)")
    yield connection
    connection.close()


def test_amounts_say_their_currency_and_an_exchange_rate_converts_each() -> None:
    orders = next(t for t in TABLES if t.name == "orders")
    comments = dict((name, comment) for name, _, comment in orders.columns)
    assert "currency" in comments["total_amount"] and "exchange_rates" in orders.description
    assert "USD" in comments["currency"] and "EUR" in comments["currency"]
    rates = lake_files()["sales.exchange_rates"]
    assert rates.rows[""] == len(CURRENCIES) * 4  # each currency, each month
    features = next(t for t in TABLES if t.name == "customer_features")
    assert all("USD" in comment for name, _, comment in features.columns if name in ("monetary_90d", "avg_basket"))


def test_returns_differ_by_channel_and_seasons_shape_the_days() -> None:
    orders = [order_values(row) for row in range(0, ORDER_ROWS, 7)]
    count = Counter(order.channel for order in orders)
    returned = Counter(order.channel for order in orders if order.status == "returned")
    rate = {channel: returned[channel] / count[channel] for channel in count}
    assert rate["mobile"] > rate["web"] + 0.03 > rate["store"] + 0.06, rate
    assert max(DAY_COUNTS) > 2 * min(DAY_COUNTS) and sum(DAY_COUNTS) == ORDER_ROWS
    assert sum(DAY_COUNTS[:14]) > sum(DAY_COUNTS[31:45])  # the winter sale against the February lull


def test_some_customers_are_inactive_for_over_60_days_and_the_features_predict_churn(
        lake: duckdb.DuckDBPyConnection) -> None:
    inactive = lake.execute("SELECT count(*) FROM customer_features WHERE snapshot_date = '2026-05-01' "
                            "AND recency_days > 60").fetchone()[0]
    assert inactive > 5_000
    rates = dict(lake.execute(
        "SELECT f.churn_risk_bucket, avg(CAST(l.churned AS INTEGER)) FROM customer_features f JOIN churn_labels l "
        "ON l.customer_id = f.customer_id AND l.label_date = f.snapshot_date GROUP BY 1").fetchall())
    assert rates["high"] > 3 * rates["low"], rates
    opened = dict(lake.execute(
        "SELECT l.churned, avg(f.email_open_rate) FROM customer_features f JOIN churn_labels l "
        "ON l.customer_id = f.customer_id AND l.label_date = f.snapshot_date GROUP BY 1").fetchall())
    assert opened[False] > 1.5 * opened[True], opened


def test_campaign_channels_convert_differently(lake: duckdb.DuckDBPyConnection) -> None:
    per_day = dict(lake.execute(
        "SELECT c.channel, count(*) / count(DISTINCT e.event_date || c.campaign_id) FROM campaign_events e "
        "JOIN campaigns c USING (campaign_id) WHERE e.event_type = 'conversion' GROUP BY 1").fetchall())
    assert per_day["email"] > 2 * per_day["display"], per_day

