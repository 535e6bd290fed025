"""How pytest-xdist shares the suite among its workers: a module at a time, and a folder at a time where the folder's
modules share a session fixture that starts a process.

A module's fixtures (a seeded account, a server) are then set up once per run, not once per worker. The hosted demos
of `tests/demo/front/conftest.py` start two processes that every module of that folder uses: the folder goes to one
worker. Groups are named by folder, not by `xdist_group` marks: the scheduler sees only test ids, and with pytest 9
`--dist loadgroup` no longer gets the group into them.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

SHARED_PROCESS_FOLDERS = ("tests/demo/front/",)
"""Folders whose modules share a session fixture that starts a process."""


class ModuleScheduling(LoadScopeScheduling):
    """A test's scope is its folder where that folder shares a process, else its module."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return next((folder for folder in SHARED_PROCESS_FOLDERS if module.startswith(folder)), module)
