"""The README tells the truth: its resource table is the registry's, and its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aws_data_mcp.cli import DOC_TABLES, doc_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(DOC_TABLES))
def test_readme_generated_tables_match_the_code(name: str) -> None:
    """The resource table is the registry's; the settings table is every setting config.py reads."""
    readme = (ROOT / "README.md").read_text()
    table = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", readme, re.S)
    assert table is not None
    assert table.group(1) == doc_table(name), f"run: aws-data-mcp {name} --update README.md"


def test_the_settings_table_names_every_variable_the_server_reads() -> None:
    source = (ROOT / "functions" / "aws_data_mcp").rglob("*.py")
    read = {name for path in source for name in re.findall(r"AWS_DATA_MCP_[A-Z_]+", path.read_text())}
    documented = set(re.findall(r"`(AWS_DATA_MCP_[A-Z_]+)`", doc_table("settings-table")))
    assert read - {"AWS_DATA_MCP_"} <= documented, read - documented


def test_readme_commands_are_make_targets_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make (\w+)", readme, re.M):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert "make test" in (ROOT / ".ci" / "run").read_text(), "CI must run the README's test command"


def test_the_layout_names_every_module_of_the_tree() -> None:
    """A newcomer finds each module where the README's Layout says it is: a new module goes into that map too."""
    readme = (ROOT / "README.md").read_text()
    layout = re.search(r"^## Layout\n(.*?)^## ", readme, re.S | re.M)
    assert layout is not None
    package = ROOT / "functions" / "aws_data_mcp"
    modules = {path.name for path in package.rglob("*.py") if path.name != "__init__.py"}
    packages = {path.parent.name for path in package.rglob("__init__.py") if path.parent != package}
    named = set(re.findall(r"[\w.]+", layout.group(1)))
    missing = {name for name in modules if name not in named} | {name for name in packages
                                                               if f"{name}/" not in layout.group(1)}
    assert not missing, f"README's Layout leaves out: {sorted(missing)}"
