"""The demo lake's rows: a small online shop (Acme Outdoor) from 2026-01-01 to 2026-04-30, as DuckDB SQL.

One SELECT per table of ``seed_data.TABLES``; ``lake_tables`` runs them and writes the files.
Values come from DuckDB's ``hash`` of row numbers: deterministic, and the tables agree.
``sales.orders`` is plain arithmetic (``order_values``), so tests can compute exact aggregates.
"""

from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

ORDERS_DATABASE = "sales"
ORDERS_TABLE = "orders"
ORDERS_BUCKET = "acme-datalake-curated"
ORDERS_PREFIX = "sales/orders/"
ORDER_ROWS = 250_000
ORDER_DAYS = 120
FIRST_ORDER_DAY = date(2026, 1, 1)

_STATUSES = ("placed", "shipped", "delivered", "returned", "cancelled")
_CHANNELS = ("web", "mobile", "store")
CURRENCIES = ("USD", "EUR", "GBP")
USD_PER_UNIT = {"USD": Decimal("1.0000"), "EUR": Decimal("1.0870"), "GBP": Decimal("1.2658")}
"""What one unit of each currency was worth in USD over 2026-01..04 (sales.exchange_rates has it by month)."""
_LOCAL_PER_10000_USD = {"USD": 10_000, "EUR": 9_200, "GBP": 7_900}
"""One order's basket priced in USD cents, then in its own currency: cents x this // 10,000."""

RETURN_PERMILLE = {"web": 90, "mobile": 140, "store": 25}
"""Of each channel's orders, per mille returned: mobile orders come back most, store purchases rarely."""
CANCEL_PERMILLE = {"web": 30, "mobile": 50, "store": 0}
CHURNERS = 15_000
"""Customers CUS-1000000..1014999 drift away: fewer orders, then none after their last day (8 to 79 days in), so
by April many have been inactive for over 60 days, and their features (recency, frequency) say so."""
ORDERING_CUSTOMERS = 50_000


def _day_weight(day: int) -> int:
    """Orders on day `day` (0 = 2026-01-01), relative: weekends busier, the winter sale's two weeks busiest, a
    February lull, spring growing through April."""
    weekday = (FIRST_ORDER_DAY + timedelta(days=day)).weekday()
    weekly = {4: 110, 5: 135, 6: 130}.get(weekday, 100)
    season = 150 if day < 14 else 80 if 31 <= day < 59 else 100 if day < 80 else 100 + 40 * (day - 80) // 39
    return weekly * season


def _day_counts(rows: int = ORDER_ROWS, days: int = ORDER_DAYS) -> tuple[int, ...]:
    """Orders per day, summing to `rows` (the largest remainders get the rows left over)."""
    weights = [_day_weight(day) for day in range(days)]
    total = sum(weights)
    counts = [rows * w // total for w in weights]
    by_remainder = sorted(range(days), key=lambda d: (-(rows * weights[d] % total), d))
    for day in by_remainder[:rows - sum(counts)]:
        counts[day] += 1
    return tuple(counts)


DAY_COUNTS = _day_counts()
DAY_STARTS = tuple(sum(DAY_COUNTS[:day]) for day in range(ORDER_DAYS))
"""Orders are numbered day by day: order `row` is on the day whose block holds it."""
_DATES = tuple(FIRST_ORDER_DAY + timedelta(days=day) for day in range(ORDER_DAYS))


def mixed(value: int, salt: int) -> int:
    """A 32-bit hash of `value` (the ``mixed`` macro of ``MACROS`` computes the same in DuckDB): integer arithmetic
    only, so Python and the generated files agree exactly."""
    x = (value * 2654435761 + salt * 97531) % 4294967296
    x = ((x ^ (x >> 16)) * 73244475) % 4294967296
    return x ^ (x >> 16)


@dataclass(frozen=True)
class OrderValues:
    """One generated order, as ``order_values`` defines it (the Parquet files hold the same values)."""

    order_id: str
    customer_id: str
    order_date: date
    seconds_into_day: int
    status: str
    currency: str
    total_amount: Decimal
    items_count: int
    channel: str


def _customer(row: int, day: int) -> int:
    """The customer's number: a drifting one (below CHURNERS) orders less, and not after its last day; their
    other orders go to a loyal customer."""
    base = (row * 7919) % ORDERING_CUSTOMERS
    if base < CHURNERS and (day > 8 + (base * 37) % 72 or mixed(row, 2) % 100 < 35):
        return CHURNERS + (base * 31 + row) % (ORDERING_CUSTOMERS - CHURNERS)
    return base


def _status(row: int, day: int, channel: str) -> str:
    draw = mixed(row, 3) % 1000
    age = ORDER_DAYS - 1 - day
    if draw < RETURN_PERMILLE[channel] and age >= 5:
        return "returned"
    if draw < RETURN_PERMILLE[channel] + CANCEL_PERMILLE[channel]:
        return "cancelled"
    if channel == "store" or age > 6:
        return "delivered"
    return "shipped" if age > 2 else "placed"


def order_values(row: int) -> OrderValues:
    """The values of order number ``row`` (0-based): what the generated files contain, for tests to check."""
    day = bisect_right(DAY_STARTS, row) - 1
    draw = mixed(row, 1) % 100
    channel = "web" if draw < 50 else "mobile" if draw < 85 else "store"
    customer = _customer(row, day)
    pick = mixed(customer, 4) % 100
    currency = "USD" if pick < 55 else "EUR" if pick < 85 else "GBP"
    usd_cents = 1500 + (mixed(row, 5) >> 16) * (mixed(row, 6) >> 16) * (14000 if channel == "store" else 30000) \
        // 4294967296
    cents = usd_cents * _LOCAL_PER_10000_USD[currency] // 10000
    return OrderValues(
        order_id=f"ORD-{1_000_000 + row}",
        customer_id=f"CUS-{1_000_000 + customer}",
        order_date=_DATES[day],
        seconds_into_day=(row * 37) % 86_400,
        status=_status(row, day, channel),
        currency=currency,
        total_amount=Decimal(cents) / 100,
        items_count=1 + min(8, usd_cents // 3000 + mixed(row, 7) % 2),
        channel=channel,
    )


def _cases(mapping: dict[str, object], key: str) -> str:
    return "CASE " + " ".join(f"WHEN {key} = '{k}' THEN {v}" for k, v in mapping.items()) + " END"


def orders_sql() -> str:
    """DuckDB SQL producing the same rows as ``order_values``."""
    blocks = ", ".join(f"({day}, {start}, {count})" for day, (start, count) in enumerate(zip(DAY_STARTS, DAY_COUNTS,
                                                                                              strict=True)))
    base = f"(i * 7919) % {ORDERING_CUSTOMERS}"
    customer = (f"CASE WHEN {base} < {CHURNERS} AND (day > 8 + ({base} * 37) % 72 OR mixed(i, 2) % 100 < 35) "
                f"THEN {CHURNERS} + ({base} * 31 + i) % {ORDERING_CUSTOMERS - CHURNERS} ELSE {base} END")
    age = f"{ORDER_DAYS - 1} - day"
    status = (f"CASE WHEN mixed(i, 3) % 1000 < {_cases(RETURN_PERMILLE, 'channel')} AND {age} >= 5 THEN 'returned' "
              f"WHEN mixed(i, 3) % 1000 < {_cases(RETURN_PERMILLE, 'channel')} + {_cases(CANCEL_PERMILLE, 'channel')} "
              f"THEN 'cancelled' WHEN channel = 'store' OR {age} > 6 THEN 'delivered' "
              f"WHEN {age} > 2 THEN 'shipped' ELSE 'placed' END")
    local = _cases(_LOCAL_PER_10000_USD, "currency")
    return f"""
SELECT 'ORD-' || (1000000 + i) AS order_id, 'CUS-' || (1000000 + customer) AS customer_id,
       CAST(DATE '{FIRST_ORDER_DAY.isoformat()}' + CAST(day AS INTEGER) AS TIMESTAMP) + to_seconds((i * 37) % 86400)
           AS order_ts, {status} AS status, currency,
       CAST((usd_cents * {local} // 10000) / 100 AS DECIMAL(12, 2)) AS total_amount,
       CAST(1 + least(8, usd_cents // 3000 + mixed(i, 7) % 2) AS INTEGER) AS items_count, channel,
       strftime(DATE '{FIRST_ORDER_DAY.isoformat()}' + CAST(day AS INTEGER), '%Y-%m-%d') AS order_date
FROM (SELECT *, CASE WHEN mixed(customer, 4) % 100 < 55 THEN 'USD' WHEN mixed(customer, 4) % 100 < 85 THEN 'EUR'
                     ELSE 'GBP' END AS currency
      FROM (SELECT i, day, channel, {customer} AS customer,
                   1500 + (mixed(i, 5) >> 16) * (mixed(i, 6) >> 16) * CASE WHEN channel = 'store' THEN 14000
                                                                           ELSE 30000 END // 4294967296 AS usd_cents
            FROM (SELECT i, day, CASE WHEN mixed(i, 1) % 100 < 50 THEN 'web' WHEN mixed(i, 1) % 100 < 85
                                      THEN 'mobile' ELSE 'store' END AS channel
                  FROM (SELECT day, start + unnest(range(n)) AS i FROM (VALUES {blocks}) AS b(day, start, n)))))
ORDER BY i"""


COMPANY_START = "DATE '2026-01-01'"
COMPANY_DAYS = ORDER_DAYS
CUSTOMERS = 60_000
"""Customers CUS-1000000..1059999: the first 50,000 order in 2026 (sales.orders), the rest are lapsed."""
PRODUCTS = 400
FEATURE_SNAPSHOTS = ("2026-02-01", "2026-03-01", "2026-04-01", "2026-05-01")
LABELLED_SNAPSHOTS = FEATURE_SNAPSHOTS[:2]
"""Snapshots old enough for their 60-day churn window to lie within the data."""

MACROS = (
    "CREATE MACRO mixed1(v, salt) AS (CAST(v AS BIGINT) * 2654435761 + salt * 97531) % 4294967296",
    "CREATE MACRO mixed2(x) AS (xor(x, x >> 16) * 73244475) % 4294967296",
    "CREATE MACRO mixed(v, salt) AS xor(mixed2(mixed1(v, salt)), mixed2(mixed1(v, salt)) >> 16)",
    "CREATE MACRO pick(x, salt, n) AS CAST(hash(x, salt) % n AS BIGINT)",
    "CREATE MACRO chance(x, salt) AS (hash(x, salt) % 1000000) / 1e6",
    "CREATE MACRO text_ts(ts) AS strftime(ts, '%Y-%m-%dT%H:%M:%SZ')",
)
"""Deterministic draws: ``mixed`` a 32-bit integer (as ``lake_data.mixed``), ``pick`` an integer below n, ``chance``
a number in [0, 1), from a value and a salt."""

_CUSTOMERS = f"""
SELECT 'CUS-' || (1000000 + i) AS customer_id, first_name || ' ' || last_name AS full_name,
       sha256(lower(first_name || '.' || last_name || '.' || i || '@example.com')) AS email_sha256,
       CASE WHEN c < 0.42 THEN 'US' WHEN c < 0.56 THEN 'GB' WHEN c < 0.68 THEN 'DE' WHEN c < 0.76 THEN 'FR'
            WHEN c < 0.84 THEN 'CA' WHEN c < 0.90 THEN 'AU' WHEN c < 0.94 THEN 'NL' WHEN c < 0.97 THEN 'ES'
            ELSE 'JP' END AS country,
       CASE WHEN s < 0.80 THEN 'consumer' WHEN s < 0.95 THEN 'smb' ELSE 'enterprise' END AS segment,
       CASE WHEN i < 50000 THEN TIMESTAMP '2023-01-01' ELSE TIMESTAMP '2022-01-01' END
           + to_seconds(pick(i, 4, 94608000)) AS created_at,
       CASE WHEN i < 50000 THEN pick(i, 5, 100) > 0 ELSE pick(i, 5, 10) >= 4 END AS is_active
FROM (SELECT i, chance(i, 3) AS c, chance(i, 6) AS s,
             ['Ava', 'Liam', 'Mia', 'Noah', 'Emma', 'Lucas', 'Sofia', 'Mateo', 'Hana', 'Omar', 'Lena', 'Ravi',
              'Chloe', 'Jonas', 'Aiko', 'Diego', 'Nora', 'Felix', 'Zara', 'Elias'][1 + pick(i, 1, 20)] AS first_name,
             ['Smith', 'Garcia', 'Müller', 'Martin', 'Rossi', 'Kim', 'Nguyen', 'Silva', 'Jansen', 'Dubois',
              'Tanaka', 'Brown', 'Novak', 'Patel', 'Larsen', 'Costa'][1 + pick(i, 2, 16)] AS last_name
      FROM range({CUSTOMERS}) AS t(i))
"""

_PRODUCTS = f"""
SELECT 'PRD-' || (10000 + i) AS product_id,
       'SKU-' || upper(left(category, 3)) || '-' || lpad(CAST(i AS VARCHAR), 4, '0') AS sku,
       ['Alpine', 'Summit', 'Ridge', 'Canyon', 'Glacier', 'Forest', 'Coastal', 'Desert'][1 + i % 8]
           || ' ' || items[1 + (i // 5) % 3] || ' ' || (1 + i // 40) AS name,
       category, subcategories[1 + (i // 5) % 3] AS subcategory,
       CAST(round(base_price * (0.6 + chance(i, 21)), 0) - 0.01 AS DECIMAL(10, 2)) AS list_price,
       MAP {{'color': ['black', 'blue', 'green', 'red', 'grey', 'orange'][1 + pick(i, 22, 6)],
             'material': ['recycled polyester', 'merino wool', 'nylon', 'aluminium', 'leather'][1 + pick(i, 23, 5)]}}
           AS attributes
FROM range({PRODUCTS}) AS t(i)
JOIN (VALUES (0, 'footwear', ['running', 'hiking', 'sandals'], ['Trail Runner', 'Hiking Boot', 'Sandal'], 120),
             (1, 'apparel', ['jackets', 'tops', 'pants'], ['Shell Jacket', 'Merino Tee', 'Trek Pant'], 70),
             (2, 'accessories', ['bags', 'hats', 'socks'], ['Daypack', 'Sun Hat', 'Wool Sock'], 25),
             (3, 'outdoor', ['tents', 'sleeping', 'cooking'], ['Tent', 'Sleeping Bag', 'Camp Stove'], 180),
             (4, 'electronics', ['watches', 'lights', 'audio'], ['GPS Watch', 'Headlamp', 'Trail Speaker'], 90))
     AS c(k, category, subcategories, items, base_price) ON c.k = i % 5
"""

# What sells when (products.category is product_id % 5: footwear, apparel, accessories, outdoor, electronics):
# layers in January, the GPS watch drop in February, tents and boots once spring comes.
_SEASONAL_CATEGORY = """(CASE month(CAST(order_date AS DATE))
    WHEN 1 THEN [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 2, 2, 2, 4, 4, 4, 3, 3, 3]
    WHEN 2 THEN [4, 4, 4, 4, 4, 4, 1, 1, 1, 1, 0, 0, 0, 2, 2, 2, 3, 3, 3, 3]
    ELSE [3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 4, 4] END)[1 + pick(r * 16 + line_no, 9, 20)]"""

# Each order's total split over its items_count lines (the remainder on line 1); a line's unit price is its share
# rounded up to the cent per unit, the rounding given back as discount: quantity * unit_price - discount adds up.
_ORDER_ITEMS = f"""
SELECT order_id, CAST(line_no AS INTEGER) AS line_no,
       'PRD-' || (10000 + {_SEASONAL_CATEGORY} + 5 * pick(r * 16 + line_no, 8, {PRODUCTS // 5})) AS product_id,
       CAST(quantity AS INTEGER) AS quantity,
       CAST(unit_cents / 100 AS DECIMAL(10, 2)) AS unit_price,
       CAST((unit_cents * quantity - line_cents) / 100 AS DECIMAL(10, 2)) AS discount, order_date
FROM (SELECT *, (line_cents + quantity - 1) // quantity AS unit_cents
      FROM (SELECT *, CASE WHEN line_cents < 2000 OR q < 0.7 THEN 1 WHEN q < 0.9 THEN 2 ELSE 3 END AS quantity
            FROM (SELECT order_id, order_date, r, line_no, chance(r * 16 + line_no, 7) AS q,
                         cents // n + CASE WHEN line_no = 1 THEN cents % n ELSE 0 END AS line_cents
                  FROM (SELECT order_id, order_date, CAST(substr(order_id, 5) AS BIGINT) - 1000000 AS r,
                               items_count AS n, CAST(total_amount * 100 AS BIGINT) AS cents,
                               unnest(range(1, items_count + 1)) AS line_no
                        FROM orders))))
"""

# The commerce platform's export of the last 14 days, as it lands: upper-case statuses, amounts as text (a few
# unparsed: 'N/A'), about 1% of orders delivered twice; ingested the day after the order.
_RAW_ORDERS = """
SELECT order_id, customer_id, text_ts(order_ts) AS order_ts, upper(status) AS status, currency,
       CASE WHEN pick(order_id, 10, 1500) = 0 THEN 'N/A' ELSE CAST(total_amount AS VARCHAR) END AS total_amount,
       CASE WHEN order_date >= '2026-04-23' THEN 3 ELSE 2 END AS payload_version,
       strftime(CAST(order_date AS DATE) + 1, '%Y-%m-%d') AS ingest_date
FROM orders, range(2) AS copies(copy)
WHERE order_date BETWEEN '2026-04-16' AND '2026-04-29' AND (copy = 0 OR pick(order_id, 9, 100) = 0)
ORDER BY ingest_date, order_id, copy
"""

_RATES = {"USD": ("1.0000", "1.0000", "1.0000", "1.0000"), "EUR": ("1.0870", "1.0790", "1.0830", "1.0910"),
          "GBP": ("1.2658", "1.2610", "1.2700", "1.2750")}
_EXCHANGE_RATES = "SELECT * FROM (VALUES " + ", ".join(
    f"('{currency}', DATE '2026-{month:02d}-01', CAST({rate} AS DECIMAL(10, 4)))"
    for currency, rates in _RATES.items() for month, rate in enumerate(rates, 1)) + \
    ") AS r(currency, rate_month, usd_per_unit) ORDER BY currency, rate_month"

_CAMPAIGNS = """
SELECT campaign_id, campaign_name, channel, start_date, end_date,
       CAST(round(CASE channel WHEN 'email' THEN 3000 WHEN 'paid_search' THEN 40000 ELSE 20000 END
                  * (0.5 + chance(i, 30)), -2) AS DECIMAL(12, 2)) AS budget_usd,
       ['bob.martinez', 'dana.lee', 'eve.kim'][1 + i % 3] AS owner,
       [CASE WHEN start_date < DATE '2026-04-01' THEN 'q1' ELSE 'q2' END,
        ['brand', 'promo', 'launch', 'retention'][1 + i % 4]] AS tags
FROM (SELECT i, 'CAM-' || (1000001 + i) AS campaign_id, names[1 + i] AS campaign_name,
             ['email', 'paid_search', 'social', 'display'][1 + i % 4] AS channel,
             DATE '2026-01-01' + CAST(i * 4 AS INTEGER) AS start_date,
             least(DATE '2026-01-01' + CAST(i * 4 + 14 + 7 * pick(i, 31, 4) AS INTEGER), DATE '2026-04-30') AS end_date
      FROM range(24) AS t(i),
           (SELECT ['New Year Reset', 'Winter Sale 2026', 'Trail Runner Launch', 'Cold Weather Layers',
                    'Newsletter W03', 'Ski Week', 'Valentine Gifts', 'Headlamp Promo', 'Newsletter W07',
                    'Spring Preview', 'Merino Month', 'Camp Kitchen', 'Newsletter W11', 'Easter Trails',
                    'Tent Season', 'Rain Ready', 'Newsletter W15', 'Hiking Boot Launch', 'Earth Day',
                    'GPS Watch Drop', 'Newsletter W19', 'Family Camping', 'Summer Preview', 'Loyalty Thanks']
                   AS names))
"""

_UTM = """{'source': CASE channel WHEN 'email' THEN 'newsletter' WHEN 'paid_search' THEN 'google'
                      WHEN 'social' THEN ['facebook', 'instagram'][1 + pick(h, 6, 2)] ELSE 'display-network' END,
          'medium': CASE channel WHEN 'email' THEN 'email' WHEN 'paid_search' THEN 'cpc' WHEN 'social' THEN 'social'
                      ELSE 'display' END,
          'content': 'variant-' || ['a', 'b', 'c'][1 + pick(h, 7, 3)]}"""

# Impressions and clicks for each day a campaign runs; a web or mobile order is a conversion of a campaign running
# that day at a rate that depends on the campaign's channel (e-mail converts best, display least), credited to one.
_CAMPAIGN_EVENTS = f"""
WITH days AS (SELECT {COMPANY_START} + CAST(d AS INTEGER) AS day FROM range({COMPANY_DAYS}) AS t(d)),
shown AS (
    SELECT campaign_id, channel, day, k, hash(campaign_id, day, k) AS h
    FROM (SELECT c.campaign_id, c.channel, day, unnest(range(150 + pick(c.campaign_id || day, 32, 200))) AS k
          FROM days JOIN campaigns AS c ON day BETWEEN c.start_date AND c.end_date)),
converted AS (
    SELECT o.order_id, o.customer_id, o.order_ts, c.campaign_id, c.channel, hash(o.order_id) AS h,
           row_number() OVER (PARTITION BY o.order_id ORDER BY hash(o.order_id, c.campaign_id)) AS rank
    FROM orders AS o JOIN campaigns AS c ON CAST(o.order_date AS DATE) BETWEEN c.start_date AND c.end_date
    WHERE o.channel <> 'store' AND pick(o.order_id || c.campaign_id, 11, 1000)
          < CASE c.channel WHEN 'email' THEN 45 WHEN 'paid_search' THEN 30 WHEN 'social' THEN 12 ELSE 5 END),
events AS (
    SELECT 'EVT-' || strftime(day, '%y%m%d') || '-' || substr(campaign_id, 5) || '-' || lpad(CAST(k AS VARCHAR), 4, '0')
               AS event_id, campaign_id,
           CASE WHEN chance(h, 1) >= 0.85 AND chance(h, 2) < 0.4 THEN 'CUS-' || (1000000 + pick(h, 3, {CUSTOMERS}))
           END AS customer_id,
           CASE WHEN chance(h, 1) < 0.85 THEN 'impression' ELSE 'click' END AS event_type,
           CAST(day AS TIMESTAMP) + to_seconds(pick(h, 4, 86400)) AS event_ts,
           CASE WHEN channel = 'email' THEN 0.0 WHEN chance(h, 1) < 0.85 THEN round(0.002 + chance(h, 5) * 0.01, 4)
                WHEN channel = 'paid_search' THEN round(0.4 + chance(h, 5) * 1.6, 2)
                ELSE round(0.2 + chance(h, 5) * 0.8, 2) END AS cost_usd, {_UTM} AS utm
    FROM shown
    UNION ALL
    SELECT 'EVT-' || strftime(order_ts, '%y%m%d') || '-' || substr(campaign_id, 5) || '-C' || substr(order_id, 5),
           campaign_id, customer_id, 'conversion',
           greatest(order_ts - to_seconds(60 + pick(h, 12, 600)), date_trunc('day', order_ts)), 0.0, {_UTM}
    FROM converted WHERE rank = 1)
SELECT *, strftime(event_ts, '%Y-%m-%d') AS event_date FROM events ORDER BY event_date, event_ts, event_id
"""

_DEVICE = """CASE WHEN mobile THEN {'type': 'mobile', 'os': ['iOS', 'Android'][1 + pick(h, 40, 2)],
                                  'browser': ['Safari', 'Chrome'][1 + pick(h, 41, 2)]}
             ELSE {'type': CASE WHEN chance(h, 42) < 0.15 THEN 'tablet' ELSE 'desktop' END,
                   'os': ['Windows', 'macOS', 'Linux'][1 + pick(h, 43, 3)],
                   'browser': ['Chrome', 'Firefox', 'Safari', 'Edge'][1 + pick(h, 44, 4)]} END"""

# The session of every web and mobile order (started before it, that day), and 2,400 browsing sessions a day
# (30% of them by a signed-in customer). A customer keeps one cookie (anonymous_id).
_WEB_SESSIONS = f"""
WITH sessions AS (
    SELECT 'SES-' || substr(order_id, 5) AS session_id, customer_id, channel = 'mobile' AS mobile,
           order_ts - to_seconds(least(60 + pick(order_id, 14, 1200), (r * 37) % 86400)) AS started_at,
           120 + pick(order_id, 13, 1500) AS duration_seconds, 3 + pick(order_id, 15, 20) AS pages_viewed,
           hash(order_id) AS h
    FROM (SELECT *, CAST(substr(order_id, 5) AS BIGINT) - 1000000 AS r FROM orders WHERE channel <> 'store')
    UNION ALL
    SELECT 'SES-B' || b, CASE WHEN chance(b, 20) < 0.3 THEN 'CUS-' || (1000000 + pick(b, 21, {CUSTOMERS})) END,
           chance(b, 26) < 0.55, {COMPANY_START} + to_seconds(b // 2400 * 86400 + pick(b, 23, 86400)),
           5 + pick(b, 24, 900), 1 + pick(b, 25, 8), hash(b)
    FROM range({COMPANY_DAYS} * 2400) AS t(b))
SELECT session_id, 'anon-' || lpad(CAST(hash(coalesce(customer_id, session_id)) % 100000000 AS VARCHAR), 8, '0')
           AS anonymous_id, customer_id, started_at, CAST(duration_seconds AS INTEGER) AS duration_seconds,
       CAST(pages_viewed AS INTEGER) AS pages_viewed,
       ['/', '/sale', '/products/PRD-' || (10000 + pick(h, 16, {PRODUCTS})), '/blog/trail-guide'][1 + pick(h, 17, 4)]
           AS landing_page,
       ['www.google.com', 'www.instagram.com', 'newsletter.acme-outdoor.example', NULL][1 + pick(h, 18, 4)]
           AS referrer, {_DEVICE} AS device, strftime(started_at, '%Y-%m-%d') AS dt
FROM sessions ORDER BY dt, started_at, session_id
"""

_SHOP_ACCESS_LOGS = """
SELECT request_ts, '203.0.113.' || (1 + pick(n, 51, 254)) AS client_ip,
       CASE WHEN chance(n, 52) < 0.9 THEN 'GET' ELSE 'POST' END AS method,
       ['/', '/products/PRD-' || (10000 + pick(n, 53, 400)), '/cart', '/checkout', '/api/search'][1 + pick(n, 54, 5)]
           AS path,
       CASE WHEN chance(n, 55) < 0.93 THEN 200 WHEN chance(n, 55) < 0.96 THEN 304 WHEN chance(n, 55) < 0.99 THEN 404
            ELSE 500 END AS status, round(5 + chance(n, 56) * chance(n, 57) * 800, 1) AS latency_ms,
       ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)', 'Mozilla/5.0 (Linux; Android 15)'][1 + pick(n, 58, 4)]
           AS user_agent, strftime(request_ts, '%Y-%m-%d') AS dt
FROM (SELECT n, TIMESTAMP '2026-04-24' + to_seconds(n // 3000 * 86400 + pick(n, 50, 86400)) AS request_ts
      FROM range(7 * 3000) AS t(n))
ORDER BY request_ts
"""

# A fifth of the customers receive each e-mail campaign, on its first day; drifting customers (below CHURNERS)
# open less, lapsed ones (who never order in 2026) least.
_EMAIL_SENDS = f"""
SELECT 'SND-' || substr(campaign_id, 5) || '-' || (1000000 + i) AS send_id, campaign_id,
       'CUS-' || (1000000 + i) AS customer_id,
       text_ts(CAST(start_date AS TIMESTAMP) + to_seconds(32400 + h % 7200)) AS sent_at,
       opens AS opened, opens AND chance(h, 3) < 0.22 AS clicked, bounced
FROM (SELECT *, NOT bounced AND chance(h, 2) < CASE WHEN i < {CHURNERS} THEN 0.2 WHEN i < 50000 THEN 0.42 ELSE 0.12
                                                END AS opens
      FROM (SELECT c.campaign_id, c.start_date, i, hash(i, c.campaign_id) AS h,
                   chance(hash(i, c.campaign_id), 1) < 0.02 AS bounced
            FROM campaigns AS c, range({CUSTOMERS}) AS t(i)
            WHERE c.channel = 'email' AND hash(i, c.campaign_id) % 5 = 0))
ORDER BY campaign_id, customer_id
"""

_SNAPSHOTS = ", ".join(f"(DATE '{day}')" for day in FEATURE_SNAPSHOTS)
_LABELLED = ", ".join(f"(DATE '{day}')" for day in LABELLED_SNAPSHOTS)

_CUSTOMER_FEATURES = f"""
WITH snapshots AS (SELECT * FROM (VALUES {_SNAPSHOTS}) AS v(snap)),
usd AS (SELECT o.customer_id, o.order_ts, o.total_amount * r.usd_per_unit AS amount_usd
        FROM orders AS o JOIN exchange_rates AS r
        ON r.currency = o.currency AND r.rate_month = CAST(date_trunc('month', o.order_ts) AS DATE)),
bought AS (SELECT snap, customer_id, max(CAST(order_ts AS DATE)) AS last_day, avg(amount_usd) AS basket,
                  count(*) FILTER (WHERE order_ts >= snap - INTERVAL 90 DAY) AS orders_90d,
                  sum(amount_usd) FILTER (WHERE order_ts >= snap - INTERVAL 90 DAY) AS spend_90d
           FROM snapshots JOIN usd ON order_ts < snap GROUP BY ALL),
visited AS (SELECT snap, customer_id, count(*) AS sessions
            FROM snapshots JOIN web_sessions ON started_at >= snap - INTERVAL 30 DAY AND started_at < snap
            WHERE customer_id IS NOT NULL GROUP BY ALL),
mailed AS (SELECT snap, customer_id, avg(CAST(opened AS DOUBLE)) AS open_rate
           FROM snapshots JOIN email_sends ON CAST(left(sent_at, 10) AS DATE) < snap GROUP BY ALL),
features AS (
    SELECT c.customer_id, CAST(date_diff('day', b.last_day, s.snap) AS INTEGER) AS recency_days,
           CAST(coalesce(b.orders_90d, 0) AS INTEGER) AS frequency_90d,
           round(CAST(coalesce(b.spend_90d, 0) AS DOUBLE), 2) AS monetary_90d,
           round(CAST(b.basket AS DOUBLE), 2) AS avg_basket,
           CAST(coalesce(v.sessions, 0) AS INTEGER) AS sessions_30d, round(m.open_rate, 3) AS email_open_rate,
           s.snap
    FROM snapshots AS s JOIN customers AS c ON c.created_at < s.snap
    LEFT JOIN bought AS b ON b.snap = s.snap AND b.customer_id = c.customer_id
    LEFT JOIN visited AS v ON v.snap = s.snap AND v.customer_id = c.customer_id
    LEFT JOIN mailed AS m ON m.snap = s.snap AND m.customer_id = c.customer_id)
SELECT * EXCLUDE (snap),
       CASE WHEN recency_days IS NULL OR recency_days > 60 THEN 'high' WHEN recency_days > 30 THEN 'medium'
            ELSE 'low' END AS churn_risk_bucket, strftime(snap, '%Y-%m-%d') AS snapshot_date
FROM features ORDER BY snapshot_date, customer_id
"""

# Churned: no order in the 60 days from the snapshot; enterprise accounts are reviewed by hand.
_CHURN_LABELS = f"""
WITH snapshots AS (SELECT * FROM (VALUES {_LABELLED}) AS v(snap)),
kept AS (SELECT DISTINCT snap, customer_id FROM snapshots JOIN orders
         ON order_ts >= snap AND order_ts < snap + INTERVAL 60 DAY)
SELECT c.customer_id, k.customer_id IS NULL AS churned, CASE WHEN k.customer_id IS NULL THEN s.snap + 60 END
           AS churn_date, CASE WHEN c.segment = 'enterprise' THEN 'manual_review' ELSE 'rule_v2' END AS label_source,
       strftime(s.snap, '%Y-%m-%d') AS label_date
FROM snapshots AS s JOIN customers AS c ON c.created_at < s.snap
LEFT JOIN kept AS k ON k.snap = s.snap AND k.customer_id = c.customer_id
ORDER BY label_date, c.customer_id
"""

_PRODUCT_EMBEDDINGS = """
SELECT product_id, list_transform(range(256), lambda d: CAST(chance(hash(product_id, model_version), d) * 2 - 1
                                                            AS FLOAT)) AS embedding, trained_at, model_version
FROM products, (VALUES ('v3', TIMESTAMP '2026-02-02 03:12:44', 380), ('v4', TIMESTAMP '2026-04-06 03:09:10', 400))
     AS m(model_version, trained_at, products)
WHERE CAST(substr(product_id, 5) AS INTEGER) - 10000 < products
"""

TABLE_SQL: dict[str, str] = {
    "sales.customers": _CUSTOMERS,
    "sales.products": _PRODUCTS,
    "sales.orders": orders_sql(),
    "sales.order_items": _ORDER_ITEMS,
    "sales.exchange_rates": _EXCHANGE_RATES,
    "sales.raw_orders": _RAW_ORDERS,
    "marketing.campaigns": _CAMPAIGNS,
    "marketing.campaign_events": _CAMPAIGN_EVENTS,
    "marketing.web_sessions": _WEB_SESSIONS,
    "marketing.shop_access_logs": _SHOP_ACCESS_LOGS,
    "marketing.email_sends": _EMAIL_SENDS,
    "ml_features.customer_features": _CUSTOMER_FEATURES,
    "ml_features.churn_labels": _CHURN_LABELS,
    "ml_features.product_embeddings": _PRODUCT_EMBEDDINGS,
}
"""Each table's rows (Glue columns in order, then the partition key), in the order a table may use those before."""
