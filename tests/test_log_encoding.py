"""How a log line is encoded and its message read: as Powertools' defaults did, with less work per line."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from aws_data_mcp import observability


class _Named:
    def __str__(self) -> str:
        return "named thing"


def _formatted(message: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """One record of ours, as a hosted (JSON) line."""
    monkeypatch.setattr(observability._formatter, "json_serializer", observability._json_line)
    record = logging.LogRecord(observability.SERVICE, logging.INFO, __file__, 1, message, None, None)
    line: dict[str, object] = json.loads(observability._formatter.format(record))
    return line


def test_a_hosted_line_writes_what_json_cannot_hold_as_its_text() -> None:
    when = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    line = json.loads(observability._json_line({"message": "mcp call", "thing": _Named(), "when": when,
                                                "text": "é\nend", "count": 3, "ratio": 0.5}))
    assert line == {"message": "mcp call", "thing": "named thing", "when": "2026-12-02T15:00:00Z",
                    "text": "é\nend", "count": 3, "ratio": 0.5}
    assert "\n" not in observability._json_line({"text": "a\nb\u2028c"})


def test_a_plain_message_stays_text_and_a_json_one_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _formatted("mcp call", monkeypatch)["message"] == "mcp call"
    assert _formatted('{"rows": 2}', monkeypatch)["message"] == {"rows": 2}
    assert _formatted(" [1, 2]", monkeypatch)["message"] == [1, 2]
    assert _formatted("{not json", monkeypatch)["message"] == "{not json"
    assert _formatted("", monkeypatch)["message"] == ""
