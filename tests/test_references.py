"""The code cites only what a reader can open: no `SPEC §N`, no bare issue or pull request number.

The spec and the tracker sit outside the repository, so such a pointer tells a newcomer nothing. A
standard's section is fine when the standard is named (RFC 6749 §4.1.2), and so is an upstream bug
named with its repository (owner/name #N).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
SOURCES = sorted(FUNCTIONS.rglob("*.py"))

UNOPENABLE = re.compile(
    r"(?-i:\bSPEC\b)"  # the product spec, not in the repository
    r"|(?<!\d )§\s*\d"  # a section of no named standard ("RFC 6749 §4" names one)
    r"|\b(?:issue|pull request|PR|ticket)s?\s*#?\d+"  # the tracker
    r"|(?P<repo>[\w.-]+/[\w.-]+ )?(?<![\w&/])#\d+\b",  # "#12"; "owner/name #12" is upstream's
    re.IGNORECASE,
)


def unopenable(text: str) -> list[str]:
    """Each pointer in `text` a reader of the repository could not follow."""
    return [found.group(0) for found in UNOPENABLE.finditer(text) if not found.group("repo")]


def test_the_pattern_tells_a_pointer_from_a_citation() -> None:
    assert unopenable("as SPEC §7 says; see issue 39, issue #12, PR 4 and #31; §2 of it") == [
        "SPEC", "§7", "issue 39", "issue #12", "PR 4", "#31", "§2"]
    assert unopenable("RFC 6749 §4.1.2, OAuth 2.1 §4.3.1, anthropics/claude-ai-mcp #753, "
                      "colour &#38;, spec.requires, PRs, the issuer") == []


def test_the_scan_covers_the_product_and_the_demo() -> None:
    names = {path.relative_to(FUNCTIONS).parts[0] for path in SOURCES}
    assert {"aws_data_mcp", "aws_data_mcp_demo"} <= names


@pytest.mark.parametrize("package", ["aws_data_mcp", "aws_data_mcp_demo"])
def test_no_code_points_outside_the_repository(package: str) -> None:
    found = {f"{path.relative_to(FUNCTIONS)}:{number}": hits
             for path in SOURCES if path.relative_to(FUNCTIONS).parts[0] == package
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if (hits := unopenable(line))}
    assert found == {}, "name what the pointer says instead: " + repr(found)
