"""How pytest-xdist shares the suite among its workers: a module at a time, so each module's fixtures (a seeded
account, a demo account, a server) are set up once per run rather than once per worker and again each time a
worker comes back to the module; the modules of one group in `SHARED_PROCESSES` (they share a session fixture
that starts a process, such as the hosted demos of demo/conftest.py) go to one worker together, so the process
is started once per run.

The groups are named here, not by `xdist_group` marks: the scheduler sees only test ids, and with pytest 9
xdist's `--dist loadgroup` no longer gets the group into them (it sets `item._nodeid`, which pytest 9 ignores)."""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

SHARED_PROCESSES = {
    "tests/demo/test_front.py": "hosted-demos",
    "tests/demo/test_front_accounts.py": "hosted-demos",
    "tests/demo/test_front_workflows.py": "hosted-demos",
    "tests/demo/test_readme_clients.py": "hosted-demos",
    "tests/demo/test_sign_in.py": "hosted-demos",
    "tests/demo/test_access.py": "hosted-demos",
    "tests/demo/test_enterprise_access.py": "hosted-demos",
}
"""Module -> the group whose session fixture it uses: the hosted demos (`oidc_demo`, `iam_demo`)."""


class ModuleScheduling(LoadScopeScheduling):
    """A test's scope is its module's group, or else its module."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return SHARED_PROCESSES.get(module, module)
