"""What `sam build` puts in the function's package: the product package, and nothing of the demo.

The build step SAM runs for McpFunction (Metadata BuildMethod: makefile) is run here exactly as SAM runs it: from a
copy of CodeUri, `make --makefile <CodeUri>/Makefile build-McpFunction` with ARTIFACTS_DIR in the environment. Then:
the output is the product package less bytecode, nothing shipped imports the demo or moto, and the handler imports
from the output alone (the venv's site-packages standing in for the layer and the runtime's boto3) without loading
the demo or moto. No network, no Docker, no SAM
CLI: a copy of a few hundred kilobytes, in well under a second.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from cfnlint.decode import decode

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
FUNCTION = "McpFunction"
PACKAGE = "aws_data_mcp"
DEMO = "aws_data_mcp_demo"
# Modules that must never be loaded on Lambda: the demo's package and what it runs on.
FORBIDDEN_MODULES = ("moto", "duckdb", DEMO)
# What SAM's CustomMakeBuilder leaves out when it copies CodeUri to its scratch directory.
SAM_COPY_EXCLUDES = (".aws-sam", ".git")


@pytest.fixture(scope="module")
def function_resource() -> dict[str, Any]:
    template, matches = decode(str(TEMPLATE))
    assert not matches, [str(m) for m in matches]
    assert template is not None
    return template["Resources"][FUNCTION]


@pytest.fixture(scope="module")
def code_uri(function_resource: dict[str, Any]) -> Path:
    return ROOT / function_resource["Properties"]["CodeUri"]


@pytest.fixture(scope="module")
def artifacts(function_resource: dict[str, Any], code_uri: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The function's build output, built as `sam build` builds it."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed (sam build needs it too: BuildMethod makefile)")
    metadata = function_resource.get("Metadata", {})
    assert metadata.get("BuildMethod") == "makefile", "a plain CodeUri copy would ship the demo"
    # No ContextPath: SAM runs the Makefile in CodeUri, with the scratch copy of CodeUri as working directory.
    assert "ContextPath" not in metadata
    return sam_build(make, FUNCTION, code_uri, tmp_path_factory.mktemp("sam-build"))


def sam_build(make: str, function: str, code_uri: Path, base: Path) -> Path:
    """`make build-<function>` as SAM runs it: from a scratch copy of CodeUri, ARTIFACTS_DIR in the environment."""
    scratch, output = base / "scratch", base / function
    shutil.copytree(code_uri, scratch, ignore=shutil.ignore_patterns(*SAM_COPY_EXCLUDES))
    output.mkdir()
    result = subprocess.run(
        [make, "--makefile", str(code_uri / "Makefile"), f"build-{function}"],
        env={**os.environ, "ARTIFACTS_DIR": str(output)},
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return output


def _files(root: Path) -> set[PurePosixPath]:
    return {PurePosixPath(p.relative_to(root).as_posix()) for p in root.rglob("*") if p.is_file()}


def _is_bytecode(path: PurePosixPath) -> bool:
    return "__pycache__" in path.parts or path.suffix == ".pyc"


def _module_name(path: PurePosixPath) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str) -> set[str]:
    """Every module `path` (the module `module`) imports, relative imports resolved, `from m import n` as m and m.n."""
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def _is_forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN_MODULES)


def test_the_template_builds_the_function_with_its_makefile(function_resource: dict[str, Any], code_uri: Path) -> None:
    assert function_resource.get("Metadata", {}).get("BuildMethod") == "makefile", "a CodeUri copy ships the demo"
    assert code_uri.resolve() == (ROOT / "functions").resolve()
    assert f"\nbuild-{FUNCTION}:" in (code_uri / "Makefile").read_text(), "SAM runs make build-<LogicalId>"


def test_the_output_is_the_package_alone_without_demo_or_bytecode(artifacts: Path) -> None:
    assert sorted(p.name for p in artifacts.iterdir()) == [PACKAGE], "no demo, egg-info, Makefile or stray files"
    assert not [p for p in _files(artifacts) if _is_bytecode(p)], "host bytecode must not ship"


def test_the_makefile_copies_and_deletes_nothing() -> None:
    recipe = (ROOT / "functions" / "Makefile").read_text()
    assert "rm -rf $(LEFT_OUT)" not in recipe and "LEFT_OUT" not in recipe


def test_everything_else_of_the_package_ships(artifacts: Path, code_uri: Path) -> None:
    # Package data (the metadata catalog's JSON documents) included: only bytecode is left out.
    source = {p for p in _files(code_uri) if p.parts[0] == PACKAGE and not _is_bytecode(p)}
    assert _files(artifacts) == source
    assert any(p.suffix == ".json" for p in source), "package data is part of the comparison"


def test_the_handler_module_is_in_the_output(artifacts: Path, function_resource: dict[str, Any]) -> None:
    module, _, function = function_resource["Properties"]["Handler"].rpartition(".")
    path = artifacts.joinpath(*module.split(".")).with_suffix(".py")
    assert path.is_file(), f"{module} is not in the build output"
    assert f"\ndef {function}(" in path.read_text()


def test_nothing_shipped_imports_moto_or_a_left_out_module(artifacts: Path) -> None:
    shipped = {_module_name(p) for p in _files(artifacts) if p.suffix == ".py"}
    problems = []
    for path in sorted(artifacts.rglob("*.py")):
        module = _module_name(PurePosixPath(path.relative_to(artifacts).as_posix()))
        imports = _imports(path, module)
        problems += [f"{module} imports {name}" for name in sorted(imports) if _is_forbidden(name)]
        # `from aws_data_mcp.x import y` also yields aws_data_mcp.x.y, which may be a name rather than a module:
        # only a dotted name whose parent is not a shipped module must itself be one.
        for name in sorted(n for n in imports if n == PACKAGE or n.startswith(PACKAGE + ".")):
            if name not in shipped and name.rpartition(".")[0] not in shipped:
                problems.append(f"{module} imports {name}, which is not in the build output")
    assert not problems, "\n".join(problems)


HANDLER_IMPORT = """
import importlib, json, sys, types
module, _, function = sys.argv[1].rpartition(".")
handler = importlib.import_module(module)
context = types.SimpleNamespace(aws_request_id="build-output-test")
response = getattr(handler, function)({}, context)  # not an API Gateway event: refused before any AWS call
report = {
    "package": sys.modules["aws_data_mcp"].__file__,
    "modules": sorted(sys.modules),
    "status": response["statusCode"],
}
with open(sys.argv[2], "w") as out:
    json.dump(report, out)
"""


def import_handler(artifacts: Path, handler: str, tmp_path: Path) -> dict[str, Any]:
    """HANDLER_IMPORT's report of `handler` imported from `artifacts` and called with `{}`."""
    # -S: no site-packages .pth processing, so the venv's editable install of functions/ is not on the path.
    # Lambda's order: the function (/var/task), then the layer and the runtime (boto3): here the venv's packages.
    site_packages = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join([str(artifacts), *site_packages]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "AWS_DATA_MCP_MODE": "lambda",
        "AWS_DATA_MCP_WORKFLOW_STORE": "dynamodb",
        "AWS_DATA_MCP_WORKFLOW_TABLE": "aws-data-mcp-workflows",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "POWERTOOLS_SERVICE_NAME": "aws-data-mcp",
    }
    report_path = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-S", "-c", HANDLER_IMPORT, handler, str(report_path)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(report_path.read_text())


def test_the_handler_imports_from_the_output_without_the_demo_or_moto(
    artifacts: Path, function_resource: dict[str, Any], tmp_path: Path
) -> None:
    report = import_handler(artifacts, function_resource["Properties"]["Handler"], tmp_path)
    assert Path(report["package"]).resolve().is_relative_to(artifacts.resolve()), report["package"]
    assert report["status"] == 400
    loaded = [m for m in report["modules"] if _is_forbidden(m)]
    assert not loaded, f"the Lambda path loaded {loaded}"
    assert "aws_data_mcp.handler" in report["modules"]
    assert not list(artifacts.rglob("__pycache__")), "the import must leave the output as built"


def test_the_registration_function_runs_without_the_layer(tmp_path: Path) -> None:
    """IdentityProvider=cognito's POST /register: its own build target, and nothing of the MCP server or its layer
    (the SDK, Mangum, Powertools) is imported, so it runs on the runtime's boto3 alone."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")
    template, _ = decode(str(TEMPLATE))
    assert template is not None
    function = template["Resources"]["RegistrationFunction"]
    assert function["Metadata"]["BuildMethod"] == "makefile" and "Layers" not in function["Properties"]
    output = sam_build(make, "RegistrationFunction", ROOT / function["Properties"]["CodeUri"], tmp_path / "build")

    report = import_handler(output, function["Properties"]["Handler"], tmp_path)

    assert report["status"] == 400  # {} is no registration: refused before Cognito is called
    assert Path(report["package"]).resolve().is_relative_to(output.resolve())
    layer = [m for m in report["modules"] if m.split(".")[0] in ("mcp", "mcp_types", "mangum", "aws_lambda_powertools",
                                                                 "pydantic", "starlette")]
    assert not layer, f"the registration function loaded {layer[:5]}"
