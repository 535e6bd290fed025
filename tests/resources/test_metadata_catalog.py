"""The shipped metadata catalogue: JSON Schema templates, worked examples, troubleshooting guide.

These files back metadata://templates, metadata://templates/{template}, metadata://examples and
metadata://troubleshooting. The tests read them straight from disk so they check the content
itself, independent of the resource handlers.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

CATALOG = Path(__file__).parents[2] / "functions/aws_data_mcp/resources/metadata_catalog"
TEMPLATES_DIR = CATALOG / "templates"
EXAMPLES_DIR = CATALOG / "examples"
TROUBLESHOOTING = CATALOG / "troubleshooting.json"

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
TEMPLATE_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
EXPECTED_TEMPLATES = {"dataset", "athena-table", "genomics-sample", "ml-training-data"}

# jsonschema checks date, email and uuid itself; date-time only when rfc3339-validator is
# installed (and uri only with rfc3987/rfc3986-validator, which the templates never rely on).
DATE_TIME_CHECKED = not Draft202012Validator.FORMAT_CHECKER.conforms("2024-05-01T10:00:00", "date-time")
needs_date_time = pytest.mark.skipif(not DATE_TIME_CHECKED, reason="rfc3339-validator not installed")


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


TEMPLATE_NAMES = sorted(p.stem for p in TEMPLATES_DIR.glob("*.json"))
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.json"))


def _template(name: str) -> dict[str, Any]:
    return _load(TEMPLATES_DIR / f"{name}.json")


def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(_template(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def _examples(name: str) -> list[dict[str, Any]]:
    return _load(EXAMPLES_DIR / f"{name}.json")["examples"]


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every object (sub-schema or not) inside a JSON document."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


# --- the format checker itself -------------------------------------------------------------


def test_format_checker_enforces_the_formats_the_templates_rely_on() -> None:
    """date and email must really be checked, or the example tests prove nothing."""
    checker = Draft202012Validator.FORMAT_CHECKER
    assert not checker.conforms("2024/05/01", "date")
    assert not checker.conforms("2024-02-30", "date")
    assert checker.conforms("2024-05-01", "date")
    assert not checker.conforms("Data Platform team", "email")


@needs_date_time
def test_format_checker_enforces_date_time() -> None:
    checker = Draft202012Validator.FORMAT_CHECKER
    assert not checker.conforms("2024-05-01T10:00:00", "date-time")  # no time zone
    assert not checker.conforms("2024-05-01 10:00:00Z", "date-time")  # no 'T'
    assert checker.conforms("2024-05-01T10:00:00Z", "date-time")


def test_uri_fields_do_not_depend_on_the_optional_uri_checker() -> None:
    """'format: uri' passes silently without rfc3987, so every uri field also carries a pattern."""
    for name in TEMPLATE_NAMES:
        for node in _walk(_template(name)):
            if isinstance(node.get("format"), str) and node["format"] in {"uri", "uri-reference", "iri"}:
                assert "pattern" in node, f"{name}: uri field without a pattern: {node}"


# --- templates -----------------------------------------------------------------------------


def test_at_least_four_templates_with_the_expected_names() -> None:
    assert len(TEMPLATE_NAMES) >= 4
    assert set(TEMPLATE_NAMES) >= EXPECTED_TEMPLATES
    for name in TEMPLATE_NAMES:
        assert TEMPLATE_NAME.match(name), name


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = _template(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT_2020_12
    assert schema["$id"] == f"https://aws-data-mcp.dev/schemas/{name}.json"
    assert schema["type"] == "object"
    assert isinstance(schema["title"], str) and schema["title"].strip()
    assert isinstance(schema["description"], str) and len(schema["description"]) > 40
    assert schema["required"], "a template that requires nothing constrains nothing"
    assert set(schema["required"]) <= set(schema["properties"])
    assert "additionalProperties" in schema, "additionalProperties must be decided, not defaulted"


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_top_level_properties_are_documented(name: str) -> None:
    for prop, sub in _template(name)["properties"].items():
        assert isinstance(sub.get("description"), str) and sub["description"].strip(), f"{name}.{prop}"


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_template_uses_only_standard_keywords(name: str) -> None:
    for node in _walk(_template(name)):
        custom = [key for key in node if key.startswith("x-")]
        assert not custom, f"{name}: non-standard keywords {custom}"


# --- examples ------------------------------------------------------------------------------


def test_every_template_has_an_example_file() -> None:
    stems = {p.stem for p in EXAMPLE_FILES}
    assert set(TEMPLATE_NAMES) <= stems


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example_file_names_an_existing_template(path: Path) -> None:
    doc = _load(path)
    assert set(doc) == {"template", "description", "examples"}
    assert doc["template"] in TEMPLATE_NAMES
    assert doc["template"] == path.stem
    assert isinstance(doc["description"], str) and doc["description"].strip()
    assert len(doc["examples"]) >= 2


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_validates_with_format_checking(path: Path) -> None:
    doc = _load(path)
    validator = _validator(doc["template"])
    for index, example in enumerate(doc["examples"]):
        errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(example)]
        assert not errors, f"{path.stem} example {index}: {errors}"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_examples_are_distinct(path: Path) -> None:
    examples = _load(path)["examples"]
    serialised = {json.dumps(e, sort_keys=True) for e in examples}
    assert len(serialised) == len(examples)


def test_ml_examples_follow_the_rules_json_schema_cannot_express() -> None:
    """The troubleshooting guide says split fractions must sum to 1 and names be unique; the
    shipped examples must practise what it preaches."""
    for example in _examples("ml-training-data"):
        fractions = [split["fraction"] for split in example["splits"]]
        assert sum(fractions) == pytest.approx(1.0)
        names = [split["name"] for split in example["splits"]]
        assert len(names) == len(set(names))


# --- the templates constrain something -----------------------------------------------------


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_dropping_any_required_field_is_rejected(name: str) -> None:
    validator = _validator(name)
    example = _examples(name)[0]
    for field in _template(name)["required"]:
        broken = copy.deepcopy(example)
        del broken[field]
        messages = [e.message for e in validator.iter_errors(broken)]
        assert f"'{field}' is a required property" in messages, (field, messages)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_unknown_top_level_field_is_rejected(name: str) -> None:
    broken = copy.deepcopy(_examples(name)[0])
    broken["ownr"] = "typo"
    messages = [e.message for e in _validator(name).iter_errors(broken)]
    assert any("Additional properties are not allowed ('ownr' was unexpected)" in m for m in messages)


Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    """Set a dotted path (list indexes as integers) in an instance."""

    def mutate(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _drop(key: str) -> Mutation:
    return lambda doc: doc.pop(key)


# (template, example index, what is wrong, mutation, a fragment of the expected message)
BROKEN: list[tuple[str, int, str, Mutation, str]] = [
    (
        "dataset",
        0,
        "s3 prefix without trailing slash",
        _set("location", "s3://acme-datalake-curated/sales/orders"),
        "does not match",
    ),
    (
        "dataset",
        0,
        "https URL instead of s3 URI",
        _set("location", "https://acme-datalake-curated.s3.amazonaws.com/sales/orders/"),
        "does not match",
    ),
    ("dataset", 0, "format enum is case-sensitive", _set("format", "Parquet"), "is not one of"),
    ("dataset", 0, "classification outside the enum", _set("classification", "secret"), "is not one of"),
    ("dataset", 0, "row count as a string", _set("row_count", "1843220117"), "is not of type 'integer'"),
    ("dataset", 0, "negative size", _set("size_bytes", -1), "is less than the minimum of 0"),
    ("dataset", 0, "non-ISO date", _set("created", "14/03/2022"), "is not a 'date'"),
    ("dataset", 0, "impossible date", _set("created", "2022-02-30"), "is not a 'date'"),
    ("dataset", 0, "timestamp without time zone", _set("updated", "2024-05-02T06:17:43"), "is not a 'date-time'"),
    ("dataset", 0, "owner email is a name", _set("owner.email", "Priya Raman"), "is not a 'email'"),
    ("dataset", 0, "license is not SPDX", _set("license", "Apache 2.0"), "does not match"),
    ("dataset", 0, "duplicate keywords", _set("keywords", ["orders", "orders"]), "has non-unique elements"),
    ("athena-table", 0, "uppercase table name", _set("table", "Order_Lines"), "does not match"),
    ("athena-table", 0, "hyphen in database name", _set("database", "sales-curated"), "does not match"),
    ("athena-table", 0, "bare varchar", _set("columns.0.type", "varchar"), "does not match"),
    ("athena-table", 0, "integer is not a DDL type", _set("columns.1.type", "integer"), "does not match"),
    ("athena-table", 0, "Trino array spelling", _set("columns.8.type", "array(varchar)"), "does not match"),
    (
        "athena-table",
        0,
        "misspelt type inside a struct",
        _set("columns.8.type", "array<struct<a:strng>>"),
        "does not match",
    ),
    ("athena-table", 0, "pii as a string", _set("columns.2.pii", "yes"), "is not of type 'boolean'"),
    ("athena-table", 0, "no columns", _set("columns", []), "should be non-empty"),
    (
        "athena-table",
        0,
        "column comment instead of description",
        _set("columns.0", {"name": "order_id", "type": "string", "comment": "x"}),
        "Additional properties",
    ),
    (
        "athena-table",
        0,
        "location without trailing slash",
        _set("location", "s3://acme-datalake-curated/sales/order_lines"),
        "does not match",
    ),
    ("athena-table", 0, "format outside the enum", _set("format", "jsonl"), "is not one of"),
    ("genomics-sample", 0, "human sample without consent", _drop("consent"), "'consent' is a required property"),
    (
        "genomics-sample",
        0,
        "multipart ETag as md5",
        _set("files.0.checksum.value", "9b2cf535f27731c974343645a3985328-12"),
        "does not match",
    ),
    (
        "genomics-sample",
        0,
        "file uri is a prefix",
        _set("files.0.uri", "s3://acme-genomics-raw/crc-2024/HG-CRC-0412-T/"),
        "does not match",
    ),
    ("genomics-sample", 0, "assay enum is case-sensitive", _set("assay_type", "wgs"), "is not one of"),
    (
        "genomics-sample",
        0,
        "collection date with time",
        _set("collection_date", "2024-02-27T10:00:00Z"),
        "is not a 'date'",
    ),
    ("genomics-sample", 0, "empty manifest", _set("files", []), "should be non-empty"),
    ("genomics-sample", 2, "crc32c given as hex", _set("files.0.checksum.value", "11a1f63c"), "does not match"),
    (
        "ml-training-data",
        0,
        "fraction as a percentage",
        _set("splits.0.fraction", 70),
        "is greater than the maximum of 1",
    ),
    ("ml-training-data", 0, "zero fraction", _set("splits.0.fraction", 0), "is less than or equal to the minimum of 0"),
    ("ml-training-data", 0, "single split", lambda d: d.update(splits=d["splits"][:1]), "is too short"),
    ("ml-training-data", 0, "no known biases", _set("known_biases", []), "should be non-empty"),
    ("ml-training-data", 0, "version not semver", _set("version", "v2.1"), "does not match"),
    ("ml-training-data", 0, "task outside the enum", _set("task", "classification"), "is not one of"),
    (
        "ml-training-data",
        0,
        "generated_at without zone",
        _set("provenance.generated_at", "2024-04-22 03:10:55"),
        "is not a 'date-time'",
    ),
    ("data-quality-report", 0, "empty target", _set("target", {}), "is not valid under any of the given schemas"),
    (
        "data-quality-report",
        0,
        "table without database",
        _set("target", {"table": "order_lines"}),
        "'database' is a dependency of 'table'",
    ),
    ("data-quality-report", 0, "score as a percentage", _set("score", 80), "is greater than the maximum of 1"),
    ("data-quality-report", 0, "no checks", _set("checks", []), "should be non-empty"),
]


@pytest.mark.parametrize(
    ("name", "index", "mutate", "expected"),
    [
        pytest.param(n, i, m, x, id=f"{n}: {what}", marks=[needs_date_time] if "date-time" in x else [])
        for n, i, what, m, x in BROKEN
    ],
)
def test_broken_instance_is_rejected(name: str, index: int, mutate: Mutation, expected: str) -> None:
    broken = copy.deepcopy(_examples(name)[index])
    mutate(broken)
    messages = [e.message for e in _validator(name).iter_errors(broken)]
    assert messages, "the broken instance was accepted"
    assert any(expected in m for m in messages), messages


def test_every_template_has_targeted_broken_cases() -> None:
    assert {case[0] for case in BROKEN} >= set(TEMPLATE_NAMES)


def test_split_sum_is_not_checked_by_json_schema() -> None:
    """Documented limitation: fractions 0.8 + 0.1 + 0.2 pass the schema and must be checked in code."""
    example = copy.deepcopy(_examples("ml-training-data")[1])
    example["splits"][2]["fraction"] = 0.2
    assert _validator("ml-training-data").is_valid(example)
    assert sum(s["fraction"] for s in example["splits"]) != pytest.approx(1.0)


# --- troubleshooting -----------------------------------------------------------------------


def test_troubleshooting_guide_shape() -> None:
    guide = _load(TROUBLESHOOTING)
    for key in ("title", "summary"):
        assert isinstance(guide[key], str) and guide[key].strip()
    assert len(guide["how_to_validate"]) >= 3
    assert all(isinstance(step, str) and step.strip() for step in guide["how_to_validate"])
    assert len(guide["faq"]) >= 3
    for entry in guide["faq"]:
        assert entry["q"].strip() and entry["a"].strip()


def test_troubleshooting_has_at_least_ten_complete_errors() -> None:
    errors = _load(TROUBLESHOOTING)["errors"]
    assert len(errors) >= 10
    for entry in errors:
        for key in ("error", "meaning", "fix"):
            assert isinstance(entry[key], str) and entry[key].strip(), (key, entry.get("error"))
        assert entry["templates"], entry["error"]
        assert set(entry["templates"]) <= set(TEMPLATE_NAMES), entry["templates"]
        if "example_fix" in entry:
            assert set(entry["example_fix"]) == {"before", "after"}
            assert entry["example_fix"]["before"] != entry["example_fix"]["after"]
    assert len({entry["error"] for entry in errors}) == len(errors)


def test_troubleshooting_covers_the_common_failures() -> None:
    text = TROUBLESHOOTING.read_text(encoding="utf-8")
    for phrase in (
        "is a required property",
        "Additional properties are not allowed",
        "is not of type",
        "is not a 'date'",
        "is not a 'date-time'",
        "is not one of",
        "does not match",
        "should be non-empty",
        "is greater than the maximum",
        "FormatChecker",
        "FORMAT_CHECKER",
        "rfc3339-validator",
        "check-jsonschema",
        "trailing slash",
        "varchar",
    ):
        assert phrase in text, phrase


def test_troubleshooting_messages_match_what_jsonschema_prints() -> None:
    """The 'error' texts are message patterns; check them against real validator output."""

    def normalise(message: str) -> str:
        # quoted values become '_', and enum lists are cut off
        return re.sub(r"'[^']*'", "'_'", message).split("[")[0].strip()

    documented = [normalise(entry["error"]) for entry in _load(TROUBLESHOOTING)["errors"]]
    broken = copy.deepcopy(_examples("dataset")[0])
    del broken["owner"]
    broken["rowCount"] = 1
    broken["format"] = "Parquet"
    broken["created"] = "2022/03/14"
    if DATE_TIME_CHECKED:
        broken["updated"] = "2024-05-02 06:17:43"
    broken["row_count"] = "many"
    broken["license"] = "Apache 2.0"
    messages = [e.message for e in _validator("dataset").iter_errors(broken)]
    assert len(messages) == (7 if DATE_TIME_CHECKED else 6), messages
    for message in messages:
        assert any(normalise(message) in d for d in documented), message
