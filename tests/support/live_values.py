"""The one value a resource answers that moves between two reads of the same URI: the temp dir's free space, which
other tests' temp files change while the suite runs. Comparisons of whole answers mask it, and check it apart."""

from __future__ import annotations

import json
import re

FREE_MIB = re.compile(r'"temp_free_mib":\d+')


def steady(uri: str, text: str) -> str:
    """`text` as read from `uri`, its free MiB masked; asserts the filesystem status has it, a whole number."""
    if uri != "auth://filesystem/status":
        return text
    assert isinstance(json.loads(text)["temp_free_mib"], int), text
    masked, found = FREE_MIB.subn('"temp_free_mib":"<free>"', text)
    assert found == 1, text
    return masked
