"""metadata://: JSON Schema templates for dataset metadata, worked examples and a troubleshooting guide.

The documents ship in `metadata_catalog/` beside this module and are read once per process.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from aws_data_mcp.errors import ErrorCode, ResourceFailure, echo
from aws_data_mcp.registry import ResourceRequest, registry

CATALOG = Path(__file__).with_name("metadata_catalog")


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def templates() -> dict[str, dict[str, Any]]:
    return {p.stem: _load(p) for p in sorted((CATALOG / "templates").glob("*.json"))}


@cache
def examples() -> dict[str, dict[str, Any]]:
    return {p.stem: _load(p) for p in sorted((CATALOG / "examples").glob("*.json"))}


def template_uri(name: str) -> str:
    return f"metadata://templates/{name}"


def complete_template(request: ResourceRequest, prefix: str) -> Sequence[str]:
    return [name for name in templates() if name.startswith(prefix)]


@registry.resource(
    "metadata://templates",
    name="metadata-templates",
    title="Metadata templates",
    description="JSON Schema (2020-12) templates for dataset and package metadata, shipped with the server.",
    list_field="templates",
)
def list_templates(request: ResourceRequest) -> dict[str, Any]:
    return {
        "templates": [
            {
                "name": name,
                "uri": template_uri(name),
                "title": schema.get("title"),
                "description": schema.get("description"),
                "required": schema.get("required", []),
                "schema": schema,
            }
            for name, schema in templates().items()
        ],
    }


@registry.resource(
    "metadata://templates/{template}",
    name="metadata-template",
    title="One metadata template",
    description="One JSON Schema template by name; an unknown name is an error listing the valid names.",
    completions={"template": complete_template},
    example="metadata://templates/dataset",
)
def get_template(request: ResourceRequest) -> dict[str, Any]:
    name = request.args["template"]
    schema = templates().get(name)
    if schema is None:
        valid = list(templates())
        raise ResourceFailure(
            ErrorCode.NOT_FOUND,
            f"No metadata template named {echo(name)!r}; valid names: {', '.join(valid)}",
            details=["Read metadata://templates for every template with its description."],
            valid_uris=[template_uri(v) for v in valid],
        )
    return {"name": name, "uri": template_uri(name), "schema": schema,
            "examples_uri": "metadata://examples", "examples": examples().get(name, {}).get("examples", [])}


@registry.resource(
    "metadata://examples",
    name="metadata-examples",
    title="Metadata examples",
    description="Worked examples of valid metadata for each template.",
    list_field="examples",
)
def list_examples(request: ResourceRequest) -> dict[str, Any]:
    return {"examples": [{"template_uri": template_uri(name), **entry} for name, entry in examples().items()]}


@registry.resource(
    "metadata://troubleshooting",
    name="metadata-troubleshooting",
    title="Metadata troubleshooting",
    description="Common metadata validation errors, what they mean and how to fix them.",
    list_field="errors",
)
def troubleshooting(request: ResourceRequest) -> dict[str, Any]:
    return _troubleshooting()


@cache
def _troubleshooting() -> dict[str, Any]:
    return _load(CATALOG / "troubleshooting.json")
