"""The views in a real browser: headless Chromium loads a test host on ext-apps' AppBridge (views/test/), which
fetches each ui:// document from a running demo server and hands it a real tool result; and the shipped documents
are exactly what `make views` builds.

Needs Node with views/node_modules (`make views-install`: npm ci) and, for the browser, Debian's `chromium`;
without them these tests skip, saying which is missing (the suite's summary repeats it in one line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aws_data_mcp.server.apps import VIEWS
from aws_data_mcp_demo.account.emulated import DemoAccount
from aws_data_mcp_demo.account.seed_data import BUCKET_RAW, bucket_policies
from support.browser import demo_server, missing, node


@pytest.fixture(scope="module")
def seen(demo: DemoAccount, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """What the browser showed of both views, driven against the demo (views/test/browser.mjs)."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    with demo_server(demo, tmp_path_factory.mktemp("built")) as url:
        yield json.loads(node("test/browser.mjs", url, str(tmp_path_factory.mktemp("screenshots"))))


def test_the_shipped_views_are_what_the_build_makes(tmp_path: Path) -> None:
    reason = missing()
    if reason:
        pytest.skip(reason)
    node("build.mjs", "--out", str(tmp_path))
    for built in sorted(tmp_path.glob("*.html")):
        assert built.read_bytes() == (VIEWS / built.name).read_bytes(), f"{built.name}: run `make views`"
    assert {p.name for p in tmp_path.glob("*.html")} == {p.name for p in VIEWS.glob("*.html")}


def test_the_query_results_view_shows_typed_rows_sorts_pages_and_charts(seen: dict[str, Any]) -> None:
    assert seen["header"].startswith("SUCCEEDED") and "workgroup analytics" in seen["header"]
    assert "cutoff 10.0 MB" in seen["header"] and "cost $" in seen["header"]
    assert seen["columns"] == ["order_date\nvarchar", "orders\nbigint", "total\ndecimal"]
    assert seen["numeric"] == "right"
    assert seen["first_rows"] == 10 and seen["first_dates"][:2] == ["Jan 1, 2026", "Jan 2, 2026"]
    assert seen["lines"] == 1  # order_date holds dates: a line by default
    assert seen["sorted_totals"] == sorted(seen["sorted_totals"], reverse=True) and len(seen["sorted_totals"]) == 10
    # The next page came through the host (resources/read of the answer's next_uri), and was appended.
    assert any(call.startswith("resources/read athena://queries/") and "cursor=" in call for call in seen["bridged"])
    assert seen["after_next_page"] == 20 and seen["count_line"] == "rows 1\u201320"
    assert seen["bars"] == 20  # every row of the page, the next one included
    assert "ui/download-file" in seen["bridged"]


def test_a_query_stopped_by_the_cutoff_shows_what_it_cost_and_how_to_scan_less(seen: dict[str, Any]) -> None:
    cutoff = seen["cutoff"]
    assert cutoff["header"].startswith("CANCELLED") and "scanned 10.0 MB" in cutoff["header"]
    assert "cost $0.000048" in cutoff["header"] and "cutoff 10.0 MB" in cutoff["header"]  # billed: 10 MB at $5/TB
    assert "would scan more than workgroup 'analytics' allows" in cutoff["failure"]
    assert "filter on the table's partition columns" in cutoff["failure"] and "estimate_only" in cutoff["failure"]
    assert cutoff["rows"] == 0 and "Read the query again" not in cutoff["buttons"]  # reading again changes nothing


def test_a_value_cut_to_fit_the_answer_is_marked_and_its_file_named(seen: dict[str, Any]) -> None:
    cut = seen["cut"]
    assert cut["cells"] == 1 and cut["title"].endswith("of 2,000,000 characters"), cut
    assert cut["note"].startswith("1 value was cut") and "s3://acme-athena-results/analytics/" in cut["note"]


def test_a_query_still_running_is_read_again_through_the_host_until_it_has_rows(seen: dict[str, Any]) -> None:
    running = seen["running"]
    assert running["header"].startswith(("QUEUED", "RUNNING")) and running["step"].startswith("Still ")
    assert running["after"]["header"].startswith("SUCCEEDED") and "cutoff 10.0 MB" in running["after"]["header"]
    assert len(running["after"]["rows"]) == 1 and int(running["after"]["rows"][0].replace(",", "")) > 0
    assert "Read the query again" not in running["after"]["buttons"]
    reads = [call for call in seen["bridged"] if call.startswith("resources/read athena://queries/")]
    assert any("cursor=" not in call for call in reads)  # the query itself, read again


def test_a_thousand_rows_handed_over_are_painted(seen: dict[str, Any]) -> None:
    assert seen["thousand_rows"] == 1000 and seen["painted"]  # how fast: `make bench` (benchmarks/views.py)


def test_the_access_view_shows_the_matrix_and_a_denials_fix(seen: dict[str, Any]) -> None:
    assert "acme-logs-archive" in seen["matrix_rows"] and "acme-finance-secure" in seen["matrix_rows"]
    assert seen["matrix_actions"][1:] == ["s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject", "s3:PutObject"]
    assert seen["verdicts"] == ["allowed", "denied", "unknown"]
    assert "The check failed (access denied): Access denied" in seen["detail"]
    assert '"Action": "s3:GetObject"' in seen["fix"] and "arn:aws:s3:::acme-logs-archive/*" in seen["fix"]
    assert seen["dark_background"] == "rgb(30, 30, 30)"  # the host's dark theme variables
    # The bucket's explainer, read through the host, gives the exact fix; then back to every bucket.
    assert "resources/read permissions://buckets/acme-logs-archive" in seen["bridged"]
    assert seen["drilled"]["header"].startswith("acme-logs-archive\nlist allowed\nread denied")
    assert "the caller's IAM policy, applied by the administrator" in seen["drilled"]["fix"]
    assert "aws iam put-user-policy --user-name demo-analyst" in seen["drilled"]["fix"]
    assert seen["drilled"]["back"] == len(seen["matrix_rows"])


def test_the_access_view_walks_an_explainers_chain_to_the_fix_and_who_applies_it(seen: dict[str, Any],
                                                                                 demo: DemoAccount) -> None:
    explained = seen["explainer"]
    assert explained["header"].startswith("sales.raw_orders\nquery denied") and "decided by iam" in explained["header"]
    assert explained["read_columns"] == "Columns the query would see: none (the query is denied)"
    assert explained["groups"][0] == "the table" and "workgroup analytics" in explained["groups"]
    assert explained["links"][:3] == ["glue:GetDatabase", "glue:GetTable", "glue:GetPartitions"]
    # The denied link opens by itself: its evidence, then the fix to copy, who applies it, and the Deny it changes.
    link = "arn:aws:s3:::acme-datalake-raw/sales/orders/* \u00b7 s3:GetObject \u00b7 denied"
    assert explained["detail"].startswith(link)
    denied = "The check failed (access denied): Access denied: the caller is not allowed s3:GetObject"
    assert denied in explained["detail"]
    assert "the bucket policy, applied by the administrator on acme-datalake-raw" in explained["fix"]
    assert "aws s3api put-bucket-policy --bucket acme-datalake-raw --policy" in explained["fix"]
    # The bucket policy's Deny of the read, named: removed where it names the caller only, else changed to leave
    # the caller out, still naming everyone else it denies (the fix grants exactly the one access).
    caller = demo.inventory.caller_arn
    (deny,) = [s for s in json.loads(bucket_policies(demo.inventory.account_id)[BUCKET_RAW])["Statement"]
               if s["Effect"] == "Deny" and "s3:GetObject" in s["Action"]]
    others = [p for p in deny["Principal"]["AWS"] if p != caller]
    change = "change these statements to leave the caller out" if others else "remove these statements"
    assert change in explained["fix"] and f'"Sid": "{deny["Sid"]}"' in explained["fix"]
    assert all(f'"{other}"' in explained["fix"] for other in others)
    assert explained["settle"].startswith("To settle it: Service control and resource control policies")


def test_the_views_make_no_network_request_and_no_error(seen: dict[str, Any]) -> None:
    assert seen["network"] == []
    assert seen["errors"] == []
