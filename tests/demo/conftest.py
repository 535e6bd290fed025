"""The hosted demo (`aws-data-mcp demo --auth ...`) in a process of its own, started once per session: its callers
are fixed by the demo, and each test acts as them on state of its own (its own workflow ids, its own reads)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from support.servers import start_demo


@pytest.fixture(scope="session")
def oidc_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("oidc"))
    names = re.findall(r"^== (\w+):", banner, re.M)
    tokens = dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))
    yield url, tokens
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="session")
def iam_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    process, url, banner = start_demo("iam", tmp_path_factory.mktemp("iam"))
    yield url, banner
    process.terminate()
    process.wait(10)
