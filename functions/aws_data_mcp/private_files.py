"""Files of the user's local state that only they may read (workflows, the local server's token), whatever the umask.

A folder is made 0700 and a file 0600 when created (the umask can only take bits away from those), and a file made
before, by an older version or another tool, is narrowed to 0600 too. An existing folder keeps its mode: it may be
one the user chose and shares (`AWS_DATA_MCP_WORKFLOW_DB` names any path).
"""

from __future__ import annotations

import os
from pathlib import Path

OWNER_ONLY_FOLDER = 0o700
OWNER_ONLY_FILE = 0o600


def open_private(path: Path, flags: int = os.O_WRONLY) -> int:
    """A descriptor of `path` opened with `flags`, the file (and a missing folder) created for its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=OWNER_ONLY_FOLDER)
    descriptor = os.open(path, flags | os.O_CREAT, OWNER_ONLY_FILE)
    os.fchmod(descriptor, OWNER_ONLY_FILE)  # an older file keeps its mode through O_CREAT
    return descriptor
