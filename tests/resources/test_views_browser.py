"""The views in a real browser: headless Chromium loads a test host on ext-apps' AppBridge (views/test/), which
fetches each ui:// document from a running demo server and hands it a real tool result; and the shipped documents
are exactly what `make views` builds.

Needs Node with views/node_modules (`make views-install`: npm ci) and, for the browser, Debian's `chromium`;
without them these tests skip, saying which is missing (the suite's summary repeats it in one line)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aws_data_mcp.apps import VIEWS
from aws_data_mcp.config import Settings
from aws_data_mcp.demo.account import DemoAccount
from aws_data_mcp.demo.seed_data import QUERY_WORKGROUPS
from support.browser import SOURCES, missing
from support.servers import ServerThread, free_port

FIRST_PAINT_MS = 300


def node(*arguments: str, timeout: float = 120) -> str:
    done = subprocess.run(["node", *arguments], cwd=SOURCES, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


@pytest.fixture(scope="module")
def seen(demo: DemoAccount, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """What the browser showed of both views, driven against the demo (views/test/browser.mjs)."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    node("build.mjs", "--out", str(tmp_path_factory.mktemp("built")), "--host")
    settings = Settings(mode="demo", port=free_port(), query_workgroups=QUERY_WORKGROUPS, query_wait_seconds=10)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in demo.caller_environment().items():
            patch.setenv(name, value)
        with ServerThread(settings) as server:
            shots = tmp_path_factory.mktemp("screenshots")
            yield json.loads(node("test/browser.mjs", server.url, str(shots)))


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
    assert seen["first_rows"] == 10 and seen["first_dates"][:2] == ["2026-01-01", "2026-01-02"]
    assert seen["bars"] == 10
    assert seen["sorted_totals"] == sorted(seen["sorted_totals"], reverse=True) and len(seen["sorted_totals"]) == 10
    # The next page came through the host (resources/read of the answer's next_uri), and was appended.
    assert any(call.startswith("resources/read athena://queries/") and "cursor=" in call for call in seen["bridged"])
    assert seen["after_next_page"] == 20 and seen["count_line"] == "rows 1\u201320"
    assert seen["line"] == 1
    assert "ui/download-file" in seen["bridged"]


def test_a_thousand_rows_paint_within_the_budget(seen: dict[str, Any]) -> None:
    assert seen["thousand_rows"] == 1000
    assert 0 < seen["first_paint_ms"] <= FIRST_PAINT_MS, seen["first_paint_ms"]


def test_the_access_view_shows_the_matrix_and_a_denials_fix(seen: dict[str, Any]) -> None:
    assert "acme-logs-archive" in seen["matrix_rows"] and "acme-finance-secure" in seen["matrix_rows"]
    assert seen["matrix_actions"][1:] == ["s3:GetBucketLocation", "s3:ListBucket", "s3:GetObject", "s3:PutObject"]
    assert seen["verdicts"] == ["allowed", "denied", "unknown"]
    assert "access_denied" in seen["detail"]
    assert '"Action": "s3:GetObject"' in seen["fix"] and "arn:aws:s3:::acme-logs-archive/*" in seen["fix"]
    assert seen["dark_background"] == "rgb(30, 30, 30)"  # the host's dark theme variables


def test_the_views_make_no_network_request_and_no_error(seen: dict[str, Any]) -> None:
    assert seen["network"] == []
    assert seen["errors"] == []
