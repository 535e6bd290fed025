#!/usr/bin/env python3
"""Judge one run of the MCP conformance suite against the scenarios a revision requires.

    conformance_check.py --revision 2026-07-28 --results DIR --required LIST --expected FILE

DIR is the suite's `-o` output (one `server-<scenario>-<timestamp>/checks.json` per
scenario), LIST the output of `conformance list --server --requirements <revision>`,
FILE the expected-failures file: one entry a line, `<scenario> <check-id|*> <reason>`,
`#` starts a comment. Only scenarios in LIST are judged; the others the suite ran
(extensions, pending) are reported for information.

A required scenario fails when one of its checks has status FAILURE, when it
recorded no check at all, or when it left no result. A failing check listed in FILE
(or whose scenario is listed with `*`) is expected; any other one is unexpected and
makes the exit status 1. An expected entry that did not fail is reported as now
passing, without failing the run. WARNING checks (SHOULD-level) are reported only.
Standard library only: runs before or without the project's venv.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
LIST_ITEM = re.compile(r"^\s+-\s+(?P<name>\S+)")


@dataclass
class Outcome:
    scenario: str
    checks: list[dict] = field(default_factory=list)
    missing: bool = False

    @property
    def failures(self) -> list[dict]:
        return [c for c in self.checks if c.get("status") == "FAILURE"]

    @property
    def warnings(self) -> list[dict]:
        return [c for c in self.checks if c.get("status") == "WARNING"]

    @property
    def passed(self) -> int:
        return sum(1 for c in self.checks if c.get("status") == "SUCCESS")


def required_scenarios(list_output: str) -> list[str]:
    """Server scenarios from `conformance list --server --requirements REV` (the section before any other)."""
    names: list[str] = []
    in_server = False
    for line in list_output.splitlines():
        if line.startswith("Server scenarios"):
            in_server = True
            continue
        if in_server:
            match = LIST_ITEM.match(line)
            if match:
                names.append(match["name"])
            elif line.strip():
                break
    return names


def load_results(results: Path) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    if not results.is_dir():
        return outcomes
    for entry in sorted(results.iterdir()):  # timestamps sort: a later run of a scenario wins
        match = RESULT_DIR.match(entry.name)
        if not match or not entry.is_dir():
            continue
        scenario = match["scenario"]
        try:
            checks = json.loads((entry / "checks.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            checks = [{"id": scenario, "status": "FAILURE", "errorMessage": f"unreadable checks.json: {exc}"}]
        outcomes[scenario] = Outcome(scenario, checks if isinstance(checks, list) else [])
    return outcomes


def load_expected(path: Path) -> tuple[dict[tuple[str, str], str], list[str]]:
    entries: dict[tuple[str, str], str] = {}
    problems: list[str] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or not parts[2].strip():
            problems.append(f"{path.name}:{number}: want '<scenario> <check-id|*> <reason>', got {raw!r}")
            continue
        entries[(parts[0], parts[1])] = parts[2].strip()
    return entries, problems


def synthetic_failure(scenario: str, text: str) -> dict:
    return {"id": scenario, "status": "FAILURE", "errorMessage": text, "synthetic": True}


def message(check: dict) -> str:
    text = check.get("errorMessage") or check.get("description") or ""
    text = " ".join(str(text).split())
    return text if len(text) <= 400 else text[:397] + "..."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--revision", required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--required", type=Path, required=True)
    parser.add_argument("--expected", type=Path, required=True)
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    required = required_scenarios(args.required.read_text(encoding="utf-8"))
    if not required:
        print(f"conformance {args.revision}: could not read the required scenario list from {args.required}")
        return 2
    expected, problems = load_expected(args.expected)
    if problems:
        print("\n".join(problems))
        return 2
    outcomes = load_results(args.results)

    rows: list[tuple[str, str, str]] = []
    unexpected: list[tuple[str, dict]] = []
    xfail_used: set[tuple[str, str]] = set()
    counts = {"PASS": 0, "XFAIL": 0, "FAIL": 0}
    for scenario in required:
        outcome = outcomes.get(scenario) or Outcome(scenario, missing=True)
        failing = list(outcome.failures)
        if outcome.missing:
            failing = [synthetic_failure(scenario, "no result: the suite crashed or timed out")]
        elif not outcome.checks:
            failing = [synthetic_failure(scenario, "the scenario recorded no check")]
        surprises = []
        for check in failing:
            keys = [(scenario, str(check.get("id"))), (scenario, "*")]
            # A missing or empty result is never expected, whatever the file says.
            hit = None if check.get("synthetic") else next((k for k in keys if k in expected), None)
            if hit is None:
                surprises.append(check)
            else:
                xfail_used.add(hit)
        note = f"{outcome.passed} ok"
        if failing:
            note += f", {len(failing)} failing"
        if outcome.warnings:
            note += f", {len(outcome.warnings)} warning ({', '.join(str(w.get('id')) for w in outcome.warnings)})"
        status = "FAIL" if surprises else "XFAIL" if failing else "PASS"
        counts[status] += 1
        rows.append((status, scenario, note))
        unexpected += [(scenario, c) for c in surprises]

    title = f"conformance {args.revision}" + (f" ({args.label})" if args.label else "")
    print(f"\n=== {title}: {len(required)} required server scenarios ===")
    width = max(len(s) for s in required)
    for status, scenario, note in rows:
        print(f"  {status:<5} {scenario:<{width}}  {note}")

    extra = sorted(set(outcomes) - set(required))
    if extra:
        print(f"\n  Also run, not required by {args.revision} (extension/pending; reported only):")
        for scenario in extra:
            o = outcomes[scenario]
            print(f"    {'fails' if o.failures else 'ok':<5} {scenario}  ({o.passed} ok, {len(o.failures)} failing)")

    warnings = [(s, c) for s in required if s in outcomes for c in outcomes[s].warnings]
    if warnings:
        print("\n  Warnings (SHOULD-level, not failing):")
        for scenario, check in warnings:
            print(f"    {scenario} / {check.get('id')}: {message(check)}")

    stale = sorted(k for k in expected if k not in xfail_used)
    if stale:
        print(f"\n  Expected failures that did not fail (now passing? remove them from {args.expected.name}):")
        for scenario, check in stale:
            where = "" if scenario in required else "  [scenario not required by this revision]"
            print(f"    {scenario} {check}{where}")

    if unexpected:
        print("\n  UNEXPECTED FAILURES:")
        for scenario, check in unexpected:
            print(f"    {scenario} / {check.get('id')}: {message(check)}")

    verdict = "FAILED" if unexpected else "ok"
    print(
        f"\n  {title} {verdict}: {counts['PASS']} pass, {counts['XFAIL']} expected-fail (fixtures), "
        f"{counts['FAIL']} unexpected-fail, {len(stale)} stale expectation(s)"
    )
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
