"""moto enforcing IAM for one test, with AWS's resource checks the emulator lacks filled in for every use of it
(``moto_extensions.RESOURCE_CHECKS``: bucket policies and SSE-KMS keys on S3 reads, Glue's table ARNs, Lake
Formation's column grants and caller-filtered ListPermissions), as the demo has them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin

from aws_data_mcp_demo.emulator.lake_formation import LAKE_FORMATION, add_routes


@pytest.fixture
def enforced() -> Iterator[None]:
    """moto enforces IAM for the test's duration (every call must be signed by a known user)."""
    saved = settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = 0, 0
    yield
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = saved


@pytest.fixture(scope="module")
def lake_formation_gaps() -> Iterator[None]:
    """What moto's Lake Formation lacks that the explainer asks (each as AWS documents it), for one test module."""
    yield from _lake_formation_gaps()


def _lake_formation_gaps() -> Iterator[None]:
    """Lake Formation as the demo answers it (``moto_lake_formation.LAKE_FORMATION``: hybrid mode, opt-ins, data
    cells filters, GetResourceLFTags), routes included: the same answers whether or not a demo ran earlier in this
    process (its routes stay; without its handlers moto would answer them 500 and botocore retry). ListPermissions
    by LF-tag policy type and on data cells filters is filled wherever moto's extensions are
    (``moto_extensions.RESOURCE_CHECKS``)."""
    add_routes()
    patch = pytest.MonkeyPatch()
    for extension in LAKE_FORMATION:
        patch.setattr(extension.owner, extension.name, extension.replacement, raising=False)
    yield
    patch.undo()
