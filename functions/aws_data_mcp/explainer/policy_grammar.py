"""Two rules of IAM's policy grammar that every reader of a policy needs, written once.

An element holds one value or a list of them. A wildcard knows only `*` and `?`: `[` is a plain character,
where `fnmatch` would read a character class.
"""

from __future__ import annotations

import fnmatch
from typing import Any


def listed(value: Any) -> list[Any]:
    """A policy element's values: one value or a list of them, none for an absent element."""
    return value if isinstance(value, list) else [] if value is None else [value]


def iam_like(pattern: str, value: str, *, case: bool = True) -> bool:
    """Whether `value` matches IAM's wildcard `pattern` (`*`, `?`), case-insensitively unless `case`."""
    if not case:
        pattern, value = pattern.lower(), value.lower()
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))
