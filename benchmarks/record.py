"""`run.py --record`: the latest run between the markers of docs/performance.md, the full JSON in benchmarks/results/.

The page keeps only the latest run; the history is the results folder and git.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import ROOT
from report import Row

PAGE = ROOT / "docs" / "performance.md"
RESULTS = ROOT / "benchmarks" / "results"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
COLUMNS = ("measurement", "ours", "baseline", "ratio", "budget", "verdict")


def _cell(text: str) -> str:
    """A table cell: a pipe would split it, an angle bracket would read as HTML, a sub-row keeps its indent."""
    cell = text.replace("<=", "≤").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return "&nbsp;&nbsp;" + cell.strip() if cell.startswith(" ") else cell.strip()


def markdown(rows: Sequence[Row], header: str) -> str:
    """The header line, then the rows `run.py` prints, without their notes (the JSON keeps them)."""
    lines = [header, "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_cell(cell) for cell in row.cells()[: len(COLUMNS)]) + " |" for row in rows]
    return "\n".join(lines)


def header(when: datetime, machine: dict[str, Any], only: str, options: Sequence[str], elapsed: float,
           link: str) -> str:
    """One line: when, on what, under what load, which measurements and options, and where the full results are."""
    load = f"{machine['load_average'][0]:.1f} -> {machine['load_average_end'][0]:.1f}"
    names = ", ".join(f"`{name}`" for name in only.split(","))
    changed = f" with `{' '.join(options)}`" if options else ""
    return (f"Latest run: {when:%Y-%m-%d %H:%M} UTC, {machine['cpus']} CPUs ({machine['arch']}), Python "
            f"{machine['python']}, load average {load}, {elapsed:.0f} s. Measured: {names}{changed}. "
            f"Full results: [{Path(link).name}]({link}).")


def replace_block(text: str, block: str) -> str:
    """`text` with `block` between its markers; a page without them is an error, not a silent no-op."""
    pattern = re.compile(rf"{re.escape(START)}\n.*?{re.escape(END)}", re.S)
    if not pattern.search(text):
        raise ValueError(f"{PAGE.relative_to(ROOT)} has no {START} ... {END} block")
    return pattern.sub(lambda _: f"{START}\n{block}\n{END}", text, count=1)


def record(document: dict[str, Any], rows: Sequence[Row], only: str, options: Sequence[str] = (),
           when: datetime | None = None, page: Path = PAGE, results: Path = RESULTS) -> Path:
    """Save `document` as results/<UTC timestamp>.json and write the table into `page`; returns the JSON's path.

    `options` are the command line's options other than their defaults, e.g. `--iterations 300`."""
    when = when or datetime.now(UTC)
    saved = results / f"{when:%Y%m%dT%H%M%SZ}.json"
    link = Path(os.path.relpath(saved, page.parent)).as_posix()
    block = markdown(rows, header(when, document["machine"], only, options, document["elapsed_s"], link))
    text = replace_block(page.read_text(), block)  # a page without markers: nothing written
    results.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps({"recorded_utc": when.isoformat(), "only": only.split(","), **document},
                                indent=2) + "\n")
    page.write_text(text)
    return saved
