"""The README tells the truth: its resource table is the registry's, and its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from aws_data_mcp.get_resource import registry

ROOT = Path(__file__).resolve().parents[1]


def test_readme_resource_table_matches_the_registry() -> None:
    readme = (ROOT / "README.md").read_text()
    table = re.search(r"<!-- resource-table:start -->\n(.*?)<!-- resource-table:end -->", readme, re.S)
    assert table is not None
    assert table.group(1) == registry.markdown_table(), "run: aws-data-mcp resource-table --update README.md"


def test_readme_commands_are_make_targets_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make (\w+)", readme, re.M):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert "make test" in (ROOT / ".ci" / "run").read_text(), "CI must run the README's test command"
