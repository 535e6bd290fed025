"""config:// and info:// tell the truth about this deployment, and nothing secret."""

from __future__ import annotations

import json

import anyio

from aws_data_mcp.config import Settings
from aws_data_mcp.identity.resolve import resolve_caller
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.resources import registry


def read(uri: str, settings: Settings) -> dict:
    reader = ResourceReader(registry, settings)
    return json.loads(anyio.run(reader.read, uri, lambda: resolve_caller(None, settings)).text)


def test_server_config_reflects_the_settings() -> None:
    settings = Settings(mode="lambda", auth_mode="oidc", region="eu-west-1", response_char_budget=1234)
    config = read("config://server", settings)
    assert config["deployment_mode"] == "lambda" and config["auth_mode"] == "oidc"
    assert config["region"] == "eu-west-1"
    assert config["limits"]["response_char_budget"] == 1234
    assert config["protocol_revisions"] == ["2025-11-25", "2026-07-28"]
    assert config["transport"]["streaming"] is False


def test_security_config_is_fail_closed_and_holds_no_secret_or_arn() -> None:
    security = read("config://security", Settings(mode="lambda", auth_mode="iam"))
    text = json.dumps(security)
    assert security["fail_closed"] is True
    assert security["identity_source"] == "api-gateway-request-context"
    assert "arn:aws" not in text and "testing" not in text


def test_capabilities_cover_every_registered_resource() -> None:
    capabilities = read("info://capabilities", Settings())
    listed = [r["uri"] for r in capabilities["resources"]] + [t["uriTemplate"] for t in capabilities["templates"]]
    assert listed == [spec.uri for spec in registry]
    assert capabilities["counts"]["resources"] == len(registry.static())
    assert [t["name"] for t in capabilities["tools"]] == [t.name for t in registry.tools()]


def test_server_config_lists_query_workgroups_without_claiming_they_are_usable() -> None:
    queries = read("config://server", Settings(query_workgroups=("analytics", "data-science")))["queries"]
    assert queries["default_workgroup"] == "analytics"
    assert [(w["name"], w["default"], w["usable"]) for w in queries["workgroups"]] == [
        ("analytics", True, None), ("data-science", False, None)]  # this document reads no AWS: it cannot know
    assert all("athena://workgroups" in w["checked"] for w in queries["workgroups"])
    assert read("config://server", Settings())["queries"] | {"enabled": False, "default_workgroup": None,
                                                             "workgroups": []} == \
        read("config://server", Settings())["queries"]
