"""docs/performance.md explains instead of logging runs: every budget the benchmarks enforce is in its budget
table, the latest run is the benchmark's own (between the markers, written by `run.py --record`), and no dated
run log stands outside them."""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from support.events import ROOT

PAGE = ROOT / "docs" / "performance.md"
BENCHMARKS = ROOT / "benchmarks"
MARKERS = re.compile(r"<!-- bench:start -->\n(.*?)<!-- bench:end -->", re.S)


def benchmark_module(name: str) -> ModuleType:
    """A module of benchmarks/, imported as run.py imports it: its folder on the path, last, so that it shadows
    none of the tests' own packages (tests/guard/ beside benchmarks/guard.py)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.append(str(BENCHMARKS))
    return importlib.import_module(name)


def budget_table() -> list[list[str]]:
    """The rows of the page's `measurement | budget | why` table, as cells."""
    section = re.search(r"^\| measurement \| budget \| why \|\n\|[-|]+\|\n((?:\|.*\|\n)+)", PAGE.read_text(), re.M)
    assert section is not None, "no `| measurement | budget | why |` table"
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in section.group(1).splitlines()]


def literal(node: ast.expr) -> object:
    return ast.literal_eval(node) if isinstance(node, ast.Constant) else None


def enforced_budgets() -> Counter[str]:
    """Every budget written in benchmarks/ as the page writes it (`≤ 1.15x`, `≤ 160 MB`, `≤ 0.5 s`), counted once
    per place that declares it: `Budget(limit[, unit])` with literal arguments, and each fan-out scenario's
    `budget_s` (the scenarios without one are held to a rule the table states in words)."""
    found: Counter[str] = Counter()
    for path in BENCHMARKS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            arguments = [literal(argument) for argument in node.args]
            if node.func.id == "Budget" and arguments and isinstance(arguments[0], int | float):
                unit = arguments[1] if len(arguments) > 1 else "x"
                found[f"≤ {arguments[0]:g}{unit}" if unit == "x" else f"≤ {arguments[0]:g} {unit}"] += 1
            elif node.func.id == "Scenario" and len(arguments) > 2 and isinstance(arguments[2], int | float):
                found[f"≤ {arguments[2]:g} s"] += 1
    return found


def test_the_page_opens_with_in_short_and_has_its_markers() -> None:
    text = PAGE.read_text()
    assert re.match(r"# [^\n]+\n\nIn short: ", text)
    assert text.count("<!-- bench:start -->") == 1 and text.count("<!-- bench:end -->") == 1
    assert MARKERS.search(text)


def test_the_budget_table_lists_every_budget_the_benchmarks_enforce() -> None:
    enforced = enforced_budgets()
    assert enforced, "no Budget(...) found in benchmarks/"
    rows = budget_table()
    listed = Counter(budget for row in rows for budget in re.split(r"; ", row[1]))
    missing = {budget: count for budget, count in enforced.items() if listed[budget] < count}
    assert not missing, f"budgets enforced in benchmarks/ but not (or fewer times) in the page's table: {missing}"
    assert all(len(row) == 3 and all(row) for row in rows), "each row: measurement, budget, why"


def test_the_fan_out_rule_for_reads_without_a_budget_is_the_code_s() -> None:
    fanout = ast.parse((BENCHMARKS / "fanout.py").read_text())
    constants = {target.id: ast.literal_eval(node.value) for node in fanout.body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)}
    assert (constants["SEQUENTIAL_SHARE"], constants["FLOOR_MULTIPLE"]) == (0.1, 3)
    assert any(row[1] == "a tenth of its calls \u00d7 50 ms, or 3 \u00d7 its floor if larger" for row in budget_table())


def test_no_dated_run_log_outside_the_markers() -> None:
    """Dates belong to a run, and the run is the benchmark's own: between the markers, in benchmarks/results/."""
    outside = MARKERS.sub("", PAGE.read_text())
    dates = re.findall(r"\b(?:19|20)\d\d-\d\d-\d\d\b|\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w*"
                       r" 20\d\d\b|\b(?:19|20)\d\d/\d\d/\d\d\b", outside)
    assert not dates, f"dated runs belong between the markers: {dates}"


def test_the_latest_run_is_the_benchmark_s_own_record() -> None:
    """The block is what `run.py --record` writes, and the full results it links to are committed."""
    block = MARKERS.search(PAGE.read_text())
    assert block is not None
    lines = block.group(1).splitlines()
    linked = re.search(r"\]\(\.\./(benchmarks/results/[\dTZ]+\.json)\)", lines[0])
    assert lines[0].startswith("Latest run: ") and linked is not None
    assert lines[2] == "| measurement | ours | baseline | ratio | budget | verdict |"
    saved = json.loads((ROOT / linked.group(1)).read_text())
    assert len(saved["rows"]) == len(lines) - 4


def test_make_bench_records() -> None:
    recipe = re.search(r"^bench:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert recipe is not None and recipe.group(1).split()[-2:] == ["benchmarks/run.py", "--record"]


def test_record_writes_the_table_between_the_markers_and_the_json_beside(tmp_path: Path) -> None:
    record, report = benchmark_module("record"), benchmark_module("report")
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\nabove\n\n<!-- bench:start -->\nold run\n<!-- bench:end -->\nbelow\n")
    rows = [report.Row("warm static read, p50", "0.5 ms", "0.4 ms", 1.25, report.Budget(1.15)),
            report.Row("  of which a | b <x>", "0.1 ms")]
    document = {"machine": {"python": "3.11", "cpus": 2, "arch": "x86_64", "load_average": [1.0, 1, 1],
                            "load_average_end": [2.0, 1, 1]}, "elapsed_s": 3.0, "rows": [r.as_json() for r in rows]}
    when = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    saved = record.record(document, rows, "warm", ["--iterations 300"], when=when, page=page,
                          results=tmp_path / "results")
    assert saved == tmp_path / "results" / "20300102T030405Z.json"
    assert json.loads(saved.read_text())["only"] == ["warm"]
    text = page.read_text()
    assert text.startswith("# Performance\n\nabove\n\n<!-- bench:start -->\nLatest run: 2030-01-02 03:04 UTC")
    assert text.endswith("<!-- bench:end -->\nbelow\n") and "old run" not in text
    assert "Measured: `warm` with `--iterations 300`" in text and "(results/20300102T030405Z.json)" in text
    assert "| warm static read, p50 | 0.5 ms | 0.4 ms | 1.250 | ≤ 1.15x | OVER |" in text
    assert "| &nbsp;&nbsp;of which a \\| b &lt;x&gt; | 0.1 ms |  |  |  | info |" in text


def test_record_refuses_a_page_without_markers_and_saves_nothing(tmp_path: Path) -> None:
    record = benchmark_module("record")
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n")
    machine = {"python": "3.11", "cpus": 2, "arch": "x86_64", "load_average": [1.0], "load_average_end": [1.0]}
    with pytest.raises(ValueError, match="bench:start"):
        record.record({"machine": machine, "elapsed_s": 0}, [], "warm", page=page, results=tmp_path / "results")
    assert not (tmp_path / "results").exists() and page.read_text() == "# Performance\n"
