"""moto enforcing IAM for one test, with AWS's resource checks the emulator lacks filled in for every use of it
(``moto_extensions.RESOURCE_CHECKS``: bucket policies and SSE-KMS keys on S3 reads, Glue's table ARNs, Lake
Formation's column grants and caller-filtered ListPermissions), as the demo has them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin

from aws_data_mcp.demo.moto_lake_formation import LF_TAGS


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
    """GetResourceLFTags as the demo answers it (``moto_lake_formation.LF_TAGS``); ListPermissions by LF-tag policy
    type and on data cells filters is filled wherever moto's extensions are (``moto_extensions.RESOURCE_CHECKS``)."""
    patch = pytest.MonkeyPatch()
    for extension in LF_TAGS:
        patch.setattr(extension.owner, extension.name, extension.replacement)
    yield
    patch.undo()
