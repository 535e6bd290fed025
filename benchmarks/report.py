"""Rows of the result table: a figure, its baseline, the ratio, the budget of docs/performance.md and the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MB = 1024 * 1024


@dataclass(frozen=True)
class Budget:
    """An upper bound from docs/performance.md on `Row.checked`, e.g. 1.15 (a ratio) or 160 MB."""

    limit: float
    unit: str = "x"

    def __str__(self) -> str:
        return f"<= {self.limit:g}{self.unit}" if self.unit == "x" else f"<= {self.limit:g} {self.unit}"


@dataclass(frozen=True)
class Row:
    """One line of the table. `checked` is what the budget applies to (the ratio unless stated)."""

    measurement: str
    ours: str
    baseline: str = ""
    ratio: float | None = None
    budget: Budget | None = None
    checked: float | None = None
    note: str = ""
    failed: bool = False

    @property
    def verdict(self) -> str:
        if self.failed:
            return "ERROR"
        if self.budget is None:
            return "info"
        value = self.ratio if self.checked is None else self.checked
        if value is None:
            return "n/a"
        return "PASS" if value <= self.budget.limit else "OVER"

    def cells(self) -> list[str]:
        return [self.measurement, self.ours, self.baseline, "" if self.ratio is None else f"{self.ratio:.3f}",
                "" if self.budget is None else str(self.budget), self.verdict, self.note]

    def as_json(self) -> dict[str, Any]:
        return {
            "measurement": self.measurement,
            "ours": self.ours,
            "baseline": self.baseline,
            "ratio": self.ratio,
            "budget": None if self.budget is None else {"limit": self.budget.limit, "unit": self.budget.unit},
            "checked": self.ratio if self.checked is None else self.checked,
            "verdict": self.verdict,
            "note": self.note,
        }


HEADER = ["measurement", "ours", "baseline", "ratio", "budget", "verdict", "note"]


def failure(measurement: str, error: BaseException) -> Row:
    """A measurement that could not be made: its last error line in the table (the JSON keeps it all)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return Row(f"{measurement}: could not be measured", "-", note=lines[-1] if lines else type(error).__name__,
               failed=True)


def ms(value: float) -> str:
    return f"{value:.3f} ms"


def seconds(value: float) -> str:
    return f"{value:.3f} s"


def megabytes(value: float) -> str:
    return f"{value / MB:.1f} MB"


def table(rows: Sequence[Row]) -> str:
    """Plain-text table, columns padded to their widest cell (the note column is left ragged)."""
    grid = [HEADER, *(row.cells() for row in rows)]
    widths = [max(len(line[i]) for line in grid) for i in range(len(HEADER) - 1)]
    rule = "  ".join("-" * width for width in widths)
    lines = []
    for index, line in enumerate(grid):
        padded = [cell.ljust(width) if i in (0, 5) else cell.rjust(width)
                  for i, (cell, width) in enumerate(zip(line, widths, strict=False))]
        lines.append(("  ".join(padded) + "  " + line[-1]).rstrip())
        if index == 0:
            lines.append(rule)
    return "\n".join(lines)
