"""A module's docstring says what the module is and its one non-obvious why: ten lines at most.

Longer ones narrated rules that belong on a docs page, where a reader looks for them. The parser
that ANTLR generates (guard/trino_sql/) is not ours to write.
"""

from __future__ import annotations

import ast
from pathlib import Path

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
MODULES = sorted(p for p in FUNCTIONS.rglob("*.py") if "trino_sql" not in p.parts)
MOST_LINES = 10


def test_every_module_docstring_is_short() -> None:
    long = {str(module.relative_to(FUNCTIONS)): lines for module in MODULES
            if (lines := len((ast.get_docstring(ast.parse(module.read_text())) or "").splitlines())) > MOST_LINES}
    assert not long, f"move the rules these narrate to docs/: {long}"
