"""The README and docs/ tell the truth: generated tables are the code's, commands exist, links resolve, and the
README's client snippets name what the SDK has (tests/demo/front/test_readme_clients.py runs them against a demo)."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

from aws_data_mcp.cli import DOC_TABLES, doc_table
from support.events import ROOT
from support.readme import README, readme_blocks

DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
TABLE_PAGES = {"resource-table": DOCS / "resources.md", "settings-table": DOCS / "settings.md",
               "client-table": DOCS / "local.md"}
"""Where each generated table lives."""


def test_every_generated_table_has_a_page() -> None:
    assert set(TABLE_PAGES) == set(DOC_TABLES)


@pytest.mark.parametrize("name", sorted(DOC_TABLES))
def test_the_generated_tables_match_the_code(name: str) -> None:
    """The resource table is the registry's; the settings table is every setting config.py reads."""
    page = TABLE_PAGES[name]
    table = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", page.read_text(), re.S)
    assert table is not None
    assert table.group(1) == doc_table(name), f"run: aws-data-mcp {name} --update {page.relative_to(ROOT)}"


def test_the_settings_table_names_every_variable_the_server_reads() -> None:
    source = (ROOT / "functions" / "aws_data_mcp").rglob("*.py")
    read = {name for path in source for name in re.findall(r"AWS_DATA_MCP_[A-Z_]+", path.read_text())}
    documented = set(re.findall(r"`(AWS_DATA_MCP_[A-Z_]+)`", doc_table("settings-table")))
    assert read - {"AWS_DATA_MCP_"} <= documented, read - documented


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_make_commands_are_targets_that_exist(page: Path) -> None:
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"^make (\w[\w-]*)", page.read_text(), re.M):
        assert re.search(rf"^{target}:", makefile, re.M), target


def test_the_readme_gives_the_two_commands_ci_runs() -> None:
    commands = re.findall(r"^make (\w+)", readme_blocks("bash")[0], re.M)
    assert commands == ["demo", "test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text(), "CI must run the README's test command"


def test_the_readme_installs_the_sdk_the_server_pins() -> None:
    pinned = re.search(r'"(mcp==[\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned is not None and f'pip install "{pinned[1]}"' in README.read_text()


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len(README.read_text().splitlines()) <= 200


def test_the_layout_names_every_folder_and_each_package_its_modules() -> None:
    """A newcomer finds each folder in the Layout, and each module in its package's docstring."""
    architecture = (DOCS / "architecture.md").read_text()
    layout = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", architecture, re.S | re.M)
    assert layout is not None
    missing: list[str] = []
    for top in ("aws_data_mcp", "aws_data_mcp_demo"):
        package = ROOT / "functions" / top
        folders = {path.parent for path in package.rglob("__init__.py") if path.parent != package}
        missing += [f"{top}/{folder.name}/" for folder in folders
                    if folder.parent == package and f"{folder.name}/" not in layout.group(1)]
        for init in [package / "__init__.py", *(folder / "__init__.py" for folder in folders)]:
            said = set(re.findall(r"\w+", ast.get_docstring(ast.parse(init.read_text())) or ""))
            modules = {path.stem for path in init.parent.glob("*.py") if path.stem not in ("__init__", "__main__")}
            modules |= {path.parent.name for path in init.parent.glob("*/__init__.py")}
            missing += [f"{init.parent.relative_to(ROOT)}: {name}" for name in sorted(modules - said)]
    assert not missing, f"not named where a newcomer looks: {missing}"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, and a
    repeated one numbered."""
    counts: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#+ (.+)$", without_fences(page.read_text()), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{counts[slug]}" if slug in counts else slug)
        counts[slug] = counts.get(slug, 0) + 1
    return found


def without_fences(text: str) -> str:
    """`text` without its fenced blocks, whose lines are code, not headings or links."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def without_code(text: str) -> str:
    """`text` without fenced blocks and inline code spans."""
    return re.sub(r"`[^`\n]*`", "", without_fences(text))


def links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", without_code(page.read_text()))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_its_anchor(page: Path) -> None:
    broken = []
    for link in links(page):
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:: not this repository's
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists() or (anchor and (target.suffix != ".md" or anchor not in anchors(target))):
            broken.append(link)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_every_docs_page_is_linked_from_the_index_and_the_index_from_the_readme() -> None:
    index = DOCS / "README.md"
    linked = {(DOCS / link.partition("#")[0]).resolve() for link in links(index)}
    assert set(DOCS.glob("*.md")) - {index} <= linked, sorted(set(DOCS.glob("*.md")) - {index} - linked)
    assert "docs/README.md" in links(README)


def test_the_readme_json_is_json() -> None:
    blocks = readme_blocks("json")
    assert len(blocks) >= 3
    for block in blocks:
        json.loads(block)


@pytest.mark.parametrize("snippet", range(2))
def test_the_readme_python_compiles_and_names_what_the_sdk_has(snippet: int) -> None:
    """Each name a snippet imports exists in the installed SDK (tests/demo/front/test_readme_clients.py runs them)."""
    blocks = readme_blocks("python")
    assert len(blocks) == 2
    tree = ast.parse(blocks[snippet])
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = importlib.import_module(node.module)
            assert all(hasattr(module, alias.name) for alias in node.names), node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)
    compile(tree, f"README.md python block {snippet + 1}", "exec")


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_docs_page_opens_with_in_short(page: Path) -> None:
    """Right under its title, two or three sentences a newcomer reads first."""
    opening = re.match(r"# [^\n]+\n\nIn short: (.+?)\n\n", page.read_text(), re.S)
    assert opening is not None, f"{page.relative_to(ROOT)}: no `In short:` paragraph right under the title"
    sentences = re.findall(r"[.!?](?:\s|$)", without_code(opening.group(1)))
    assert 2 <= len(sentences) <= 3, f"{page.relative_to(ROOT)}: {len(sentences)} sentences in its In short"
