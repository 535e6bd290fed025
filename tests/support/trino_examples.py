"""Trino's documented results read as values, so the demo's Athena text can be compared with them.

The pages write one value several ways: a map as ``{k=v}`` or ``{k -> v}``, a string quoted or not, a row as
``ROW(1, 'x')`` where Athena prints ``{field0=1, field1=x}``, NULL in either case, JSON as ``JSON '...'`` and
varbinary as ``X'..'``. Those spellings are read alike; anything else (a number's digits, a string's
characters, the order of elements) must be the same.
"""

import json
import re
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).parents[1] / "demo" / "engine" / "trino_function_examples.json"
_NESTED = ("array", "map", "row")
_FIELD = re.compile(r"field(\d+)$")


def examples() -> list[dict[str, Any]]:
    return json.loads(EXAMPLES.read_text())["examples"]


class _Reader:
    """A recursive reading of one rendered value: arrays, maps, rows, quoted and bare scalars."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def _skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1

    def _starts(self, prefix: str) -> bool:
        self._skip()
        return self.text.startswith(prefix, self.at)

    def _quoted(self) -> str:
        self.at += 1
        out = []
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "'" and self.text.startswith("''", self.at):
                out.append("'")
                self.at += 2
                continue
            self.at += 1
            if char == "'":
                break
            out.append(char)
        return "".join(out)

    def _items(self, close: str) -> list[Any]:
        items: list[Any] = []
        while not self._starts(close):
            items.append(self.value(in_braces=close == "}"))
            if self._starts(","):
                self.at += 1
        self.at += 1
        return items

    def value(self, in_braces: bool = False) -> Any:
        self._skip()
        if self._starts("ROW("):
            self.at += 4
            found: Any = ("row", tuple(self._items(")")))
        elif self._starts("["):
            self.at += 1
            found = ("array", tuple(self._items("]")))
        elif self._starts("{"):
            self.at += 1
            found = _braces(self._items("}"))
        elif self._starts("JSON '") or self._starts("X'"):
            self.at = self.text.index("'", self.at)
            found = self._quoted()
        elif self._starts("'"):
            found = self._quoted()
        else:
            stop = self.at
            while stop < len(self.text) and self.text[stop] not in ",]})" \
                    and not self.text.startswith("->", stop) and not (in_braces and self.text[stop] == "="):
                stop += 1
            found = self.text[self.at:stop].strip()
            self.at = stop
            found = None if found.lower() == "null" else found
        if in_braces and (self._starts("->") or self._starts("=")):
            self.at += 2 if self._starts("->") else 1
            return ("entry", found, self.value(in_braces=True))
        return found


def _braces(items: list[Any]) -> Any:
    """``{k=v, ...}`` is a map, or a row where every key is a field name (Athena's ``{field0=1, name=x}``)."""
    entries = [item for item in items if isinstance(item, tuple) and item and item[0] == "entry"]
    if len(entries) != len(items):
        return ("row", tuple(items))
    keys = [key for _, key, _ in entries]
    if keys and all(isinstance(key, str) and _FIELD.match(key) for key in keys):
        return ("row", tuple(value for _, _, value in entries))
    return ("map", tuple((key, value) for _, key, value in entries))


def read(text: str | None) -> Any:
    """A rendered value as a comparable tree (None for NULL)."""
    if text is None:
        return None
    reader = _Reader(text.strip())
    value = reader.value()
    return value if reader.at >= len(reader.text.rstrip()) else text.strip()


def _scalar(documented: str) -> str | None:
    """A documented scalar: its text less quotes or a JSON/X'' wrapper; NULL as None."""
    text = documented.strip()
    if text.upper() == "NULL":
        return None
    for prefix in ("JSON '", "X'", "'"):
        if text.startswith(prefix) and text.endswith("'") and len(text) > len(prefix):
            return text[len(prefix):-1].replace("''", "'")
    return text


def _named_rows(value: Any) -> Any:
    """A row read as a map of its field names compares as the map; a map as itself."""
    if isinstance(value, tuple) and value and value[0] in ("array", "row"):
        return (value[0], tuple(_named_rows(item) for item in value[1]))
    if isinstance(value, tuple) and value and value[0] == "map":
        return ("map", tuple((_named_rows(k), _named_rows(v)) for k, v in value[1]))
    return value


def equal(got: str | None, athena_type: str, documented: str) -> bool:
    """Whether the demo's text of a value of ``athena_type`` is the documented result."""
    if athena_type.split("(")[0] in _NESTED:
        return _named_rows(read(got)) == _named_rows(read(documented))
    return got == _scalar(documented)
