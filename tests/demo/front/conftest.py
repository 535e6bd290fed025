"""The hosted demo (`python -m aws_data_mcp_demo --auth ...`) in a process of its own, started once per session:
its callers are fixed by the demo, and each test acts as them on state of its own (its own workflow ids, its own
reads, its own signed-in clients). Every module of this folder goes to one worker
(`support.scheduling.SHARED_PROCESS_FOLDERS`), which starts them once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from support.document_host import DocumentHost
from support.servers import start_demo

SIGNED_IN_TOKEN_SECONDS = 4
"""The signed-in users' token lifetime in the oidc demo of the session: short enough for a test to wait it out, long
enough for a client's first reads after signing in (the callers' static tokens keep the demo's own lifetime)."""


@pytest.fixture(scope="session")
def document_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentHost]:
    """A client's web host on loopback (HTTPS), serving its Client ID Metadata Documents to the oidc demo."""
    host = DocumentHost(tmp_path_factory.mktemp("documents"))
    yield host
    host.close()


@pytest.fixture(scope="session")
def oidc_demo_banner(tmp_path_factory: pytest.TempPathFactory,
                     document_host: DocumentHost) -> Iterator[tuple[str, str]]:
    """The oidc demo's URL and banner; one process for the session's oidc tests, signing in included. It trusts the
    document host's certificate (as a person's machine trusts the web's), so a client may sign in by document."""
    process, url, banner = start_demo("oidc", tmp_path_factory.mktemp("oidc"), SIGNED_IN_TOKEN_SECONDS,
                                      {"SSL_CERT_FILE": str(document_host.certificate)})
    yield url, banner
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="session")
def oidc_demo(oidc_demo_banner: tuple[str, str]) -> tuple[str, dict[str, str]]:
    """The oidc demo's URL and each caller's static token, as its banner prints them."""
    url, banner = oidc_demo_banner
    names = re.findall(r"^== (\w+):", banner, re.M)
    return url, dict(zip(names, re.findall(r"^Authorization: Bearer (\S+)", banner, re.M), strict=True))


@pytest.fixture(scope="session")
def iam_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    process, url, banner = start_demo("iam", tmp_path_factory.mktemp("iam"))
    yield url, banner
    process.terminate()
    process.wait(10)
