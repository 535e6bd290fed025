"""The registry: one registration per resource, sorted lists, RFC 6570 matching with path-safety."""

from __future__ import annotations

import pytest

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.registry import Registry, ResourceRequest
from aws_data_mcp.resources import registry


def _resolver(request: ResourceRequest) -> dict[str, str]:
    return dict(request.args)


def test_lists_are_sorted_and_split_into_static_and_templates() -> None:
    static = [s.uri for s in registry.static()]
    assert static == sorted(static)
    assert all(s.template is None for s in registry.static())
    templates = [s.uri for s in registry.templates()]
    assert templates == sorted(templates) and "metadata://templates/{template}" in templates
    assert all(s.template is not None for s in registry.templates())


def test_every_spec_says_what_it_requires_and_describes_itself() -> None:
    for spec in registry:
        assert spec.requires in ("none", "auth", "admin")
        entry = spec.describe()
        assert entry["name"] and entry["title"] and entry["description"]
        assert entry["category"] == spec.uri.split("://")[0]


def test_a_uri_registered_twice_is_refused() -> None:
    local = Registry()
    local.resource("x://a", name="a", title="A", description="a")(_resolver)
    with pytest.raises(ValueError, match="twice"):
        local.resource("x://a", name="a", title="A", description="a")(_resolver)


def test_completions_must_name_template_arguments() -> None:
    with pytest.raises(ValueError, match="unknown arguments"):
        Registry().resource("x://{a}", name="a", title="A", description="a", example="x://1",
                            completions={"b": lambda caller, prefix: []})(_resolver)


def test_a_template_needs_an_example_it_matches() -> None:
    with pytest.raises(ValueError, match="example"):
        Registry().resource("x://{a}", name="a", title="A", description="a", example="y://1")(_resolver)


def test_static_uri_wins_over_a_template_and_templates_extract_arguments() -> None:
    assert registry.match("metadata://templates").spec.uri == "metadata://templates"
    found = registry.match("metadata://templates/dataset")
    assert found is not None and found.spec.uri == "metadata://templates/{template}"
    assert found.args == {"template": "dataset"}
    assert registry.match("metadata://nothing/here") is None


@pytest.mark.parametrize("uri", ["metadata://templates/..", "metadata://templates/%2E%2E",
                                 "metadata://templates/%2Fetc%2Fpasswd", "metadata://templates/a%00b"])
def test_unsafe_template_arguments_are_rejected_however_encoded(uri: str) -> None:
    with pytest.raises(ResourceFailure) as rejected:
        registry.match(uri)
    assert rejected.value.code is ErrorCode.INVALID_ARGUMENT


def test_nearest_puts_the_closest_uri_first_and_lists_everything() -> None:
    nearest = registry.nearest("auth://statu")
    assert nearest[0] == "auth://status"
    assert sorted(nearest) == sorted(s.uri for s in registry)
