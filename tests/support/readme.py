"""The README's fenced code blocks, for the tests that check and run them."""

from __future__ import annotations

import re

from support.events import ROOT

README = ROOT / "README.md"


def readme_blocks(language: str) -> list[str]:
    """The README's fenced code blocks in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(), re.S | re.M)
