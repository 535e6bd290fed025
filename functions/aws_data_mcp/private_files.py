"""Files of the user's local state that only they may read (workflows, the local server's token), whatever the umask.

A folder is made 0700 and a file 0600 when created (the umask can only take bits away from those), and a file made
before, by an older version or another tool, is narrowed to 0600 too. An existing folder keeps its mode: it may be
one the user chose and shares (`AWS_DATA_MCP_WORKFLOW_DB` names any path).

A symbolic link is never followed, where the file should be nor where the state folder should be: whoever planted
one would have the token written, or the store truncated and narrowed, wherever it points. The file is opened
relative to its opened folder, so neither can be swapped for a link between the check and the open.
"""

from __future__ import annotations

import os
from pathlib import Path

from aws_data_mcp.config import state_directory

OWNER_ONLY_FOLDER = 0o700
OWNER_ONLY_FILE = 0o600


class SymlinkRefused(OSError):
    """A symbolic link where a private file, or the state folder, should be. Names the path, never what it holds."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is a symbolic link: private state is never written through one (remove the link, "
                         "or point the setting at the real path)")


def _open_folder(folder: Path) -> int:
    """A descriptor of `folder`, made for its owner only if missing; the state folder must not be a link."""
    private = folder == state_directory()
    if private and folder.is_symlink():  # before mkdir, which fails on a link to nowhere with a less clear error
        raise SymlinkRefused(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=OWNER_ONLY_FOLDER)
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | (os.O_NOFOLLOW if private else 0))
    except OSError:
        if private and folder.is_symlink():
            raise SymlinkRefused(folder) from None
        raise


def open_private(path: Path, flags: int = os.O_WRONLY) -> int:
    """A descriptor of `path` opened with `flags`, the file (and a missing folder) created for its owner only; a
    symbolic link at `path` (or as the state folder) raises `SymlinkRefused`."""
    folder = _open_folder(path.parent)
    try:
        descriptor = os.open(path.name, flags | os.O_CREAT | os.O_NOFOLLOW, OWNER_ONLY_FILE, dir_fd=folder)
    except OSError:
        if path.is_symlink():
            raise SymlinkRefused(path) from None
        raise
    finally:
        os.close(folder)
    try:
        os.fchmod(descriptor, OWNER_ONLY_FILE)  # an older file keeps its mode through O_CREAT
    except OSError:  # another user's file
        os.close(descriptor)
        raise
    return descriptor
