"""How pytest-xdist shares the suite among its workers: a module at a time, so each module's fixtures (a seeded
account, a demo account, a server) are set up once per run rather than once per worker and again each time a
worker comes back to the module; modules marked with the same `xdist_group` (they share a session fixture, such
as a demo in a process of its own) go to one worker together."""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling


class ModuleScheduling(LoadScopeScheduling):
    """`--dist loadgroup` adds "@<group>" to the ids of marked tests; every other test's scope is its module."""

    def _split_scope(self, nodeid: str) -> str:
        if "@" in nodeid:
            return nodeid.rsplit("@", 1)[-1]
        return nodeid.split("::", 1)[0]
