"""Imports run one way: the module graph has no cycle, the product never imports the demo, the guard no AWS client.

Every import counts, wherever it is written (module level, inside a function, under `TYPE_CHECKING`): a cycle
hidden in a function still couples both modules, and works only by the order modules happen to load in.
A package importing its own submodules is where they are registered (`resources/__init__` importing
`resources.admin`), one way; a submodule importing its parent package closes a cycle through that registration.

Packages count too. Importing `a.b.c` first runs `a/__init__` and `a/b/__init__`. So the package
graph's nodes are modules and packages: a package is its `__init__`, a subpackage a node of its own.
An import of a module is also an edge to every package above it, but the importer's own (those
already run). A cycle there is one no two modules show: say a tool importing a package whose
`__init__` registers that tool.
"""

from __future__ import annotations

import ast
from pathlib import Path

PRODUCT, DEMO = "aws_data_mcp", "aws_data_mcp_demo"
FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"


def _module_name(path: Path) -> str:
    parts = path.relative_to(FUNCTIONS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for package in (PRODUCT, DEMO) for path in (FUNCTIONS / package).rglob("*.py")}


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _imported(module: str, known: set[str] | dict[str, Path] = MODULES) -> set[str]:
    """The modules of `known` that `module` imports, relative imports resolved: `from a import b` imports
    `a.b` when that is a module, else `a`."""
    package = module if _is_package(module) else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in known}
    return found


def _top_level_imports(module: str) -> set[str]:
    """Every package `module` imports, by its top-level name (`boto3`, `aws_data_mcp_demo`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def _packages_above(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts))}


def _runs(module: str, imported: set[str]) -> set[str]:
    """What importing `imported` runs for `module`.

    Each module, and each package above it that is not above `module` (those already run)."""
    own = _packages_above(module) | {module}
    return {ran for name in imported for ran in {name} | _packages_above(name)} - own


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` (its modules in import order, the first repeated last), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module):], module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph[module]):
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(module)
        return None

    return next((found for module in sorted(graph) if (found := visit(module))), None)


def test_every_module_is_parsed() -> None:
    assert {"aws_data_mcp.server.mcp_server", "aws_data_mcp.resources.admin", "aws_data_mcp.transport.http"} <= set(
        MODULES)


def test_relative_and_function_level_imports_are_seen() -> None:
    assert "aws_data_mcp_demo.account.seed" in _imported("aws_data_mcp_demo.account.emulated")
    assert "aws_data_mcp.workflows.dynamodb_store" in _imported("aws_data_mcp.workflows.service")  # in a function
    assert "aws_data_mcp.resources.admin" in _imported("aws_data_mcp.resources")  # `from ... import admin`


def test_a_submodule_importing_its_registering_package_is_a_cycle() -> None:
    registration = {"pkg": {"pkg.admin"}, "pkg.admin": {"registry"}, "registry": set()}
    assert _cycle(registration) is None
    assert _cycle({**registration, "pkg.admin": {"registry", "pkg"}}) == ["pkg", "pkg.admin", "pkg"]


def test_the_module_graph_has_no_cycle() -> None:
    cycle = _cycle({module: _imported(module) - {module} for module in MODULES})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_importing_a_module_runs_the_packages_above_it() -> None:
    assert _runs("pkg.tool", {"other.sub.mod"}) == {"other", "other.sub", "other.sub.mod"}
    assert _runs("pkg.sub.mod", {"pkg.sub.leaf", "pkg.util"}) == {"pkg.sub.leaf", "pkg.util"}
    registered = {"pkg": {"pkg.registered"}, "pkg.registered": {"tool"}, "tool": {"pkg.helper"},
                  "pkg.helper": set()}
    assert _cycle(registered) is None  # as modules: no cycle
    packages = {name: _runs(name, found) for name, found in registered.items()}
    assert _cycle(packages) == ["pkg", "pkg.registered", "tool", "pkg"]


def test_the_package_graph_has_no_cycle() -> None:
    cycle = _cycle({module: _runs(module, _imported(module)) for module in MODULES})
    assert cycle is None, "import cycle through a package `__init__`: " + " -> ".join(cycle or [])


def test_the_product_never_imports_the_demo() -> None:
    importers = [module for module in MODULES if module.startswith(f"{PRODUCT}.") or module == PRODUCT
                 if DEMO in _top_level_imports(module)]
    assert not importers, f"the product imports the demo: {importers}"


def test_the_guard_imports_no_aws_client() -> None:
    """The guard decides before any AWS call, so nothing in it may make one."""
    guard = [module for module in MODULES if module.startswith(f"{PRODUCT}.guard")]
    assert guard, "the guard package is where docs/architecture.md says"
    aws = {module: found for module in guard if (found := _top_level_imports(module) & {"boto3", "botocore"})}
    assert not aws, aws
    outside = {module: found for module in guard
               if (found := {name for name in _imported(module) if not name.startswith(f"{PRODUCT}.guard")}
                   - {f"{PRODUCT}.errors"})}
    assert not outside, f"the guard reaches outside itself (and errors): {outside}"
