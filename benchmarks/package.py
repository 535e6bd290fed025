"""Package size: the unzipped bytes of what `sam build` produced (function + layer).

Only a real build says what Lambda unpacks: the layer is built for the Lambda platform and
the function directory is what functions/Makefile copies (the package without the demo and the
command line), so the local venv or source tree would mislead. A build from before that Makefile
(a plain CodeUri copy) still counts the demo: run `sam build` again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from harness import ROOT

BUILD = ROOT / ".aws-sam" / "build"


@dataclass(frozen=True)
class PackageSize:
    """Bytes per built resource directory (e.g. the function and the dependencies layer)."""

    parts: dict[str, int] = field(default_factory=dict)

    @property
    def built(self) -> bool:
        return bool(self.parts)

    @property
    def total(self) -> int:
        return sum(self.parts.values())


def tree_bytes(root: Path) -> int:
    """Sum of regular file sizes (what unzipping writes), not disk blocks; symlinks not followed."""
    total = 0
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory, name)
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def measure(build: Path = BUILD) -> PackageSize:
    if not build.is_dir():
        return PackageSize()
    return PackageSize({part.name: tree_bytes(part) for part in sorted(build.iterdir()) if part.is_dir()})
