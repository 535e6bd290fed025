"""moto enforcing IAM for one test, with AWS's resource checks the emulator lacks filled in for every use of it
(``moto_extensions.RESOURCE_CHECKS``: bucket policies and SSE-KMS keys on S3 reads, Glue's table ARNs, Lake
Formation's column grants and caller-filtered ListPermissions), as the demo has them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from moto import settings
from moto.core.authorization import ActionAuthenticatorMixin


@pytest.fixture
def enforced() -> Iterator[None]:
    """moto enforces IAM for the test's duration (every call must be signed by a known user)."""
    saved = settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = 0, 0
    yield
    settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = saved


def _lf_tags_or_none(original: Callable[..., Any]) -> Callable[..., Any]:
    """GetResourceLFTags of an untagged table: AWS answers no tags, moto raises KeyError (a 500, retried)."""
    def answer(self: Any, catalog_id: str, resource: dict[str, Any]) -> Any:
        try:
            return original(self, catalog_id, resource)
        except KeyError:
            return [], [], []
    return answer


@pytest.fixture(scope="module")
def lake_formation_gaps() -> Iterator[None]:
    """What moto's Lake Formation lacks that the explainer asks (each as AWS documents it), for one test module."""
    yield from _lake_formation_gaps()


EXPLAIN_LAKE_FORMATION = ["lakeformation:ListDataCellsFilter", "lakeformation:GetResourceLFTags",
                          "lakeformation:ListLakeFormationOptIns"]
"""What a caller needs beside ListPermissions to see its own grants on filters and LF-tag expressions (else the
explainer answers `unknown`), granted here to the demo's callers until the demo's seed grants it."""


@pytest.fixture(scope="module")
def demo_lake_formation_gaps(demo: Any) -> Iterator[None]:
    """The same, over the demo account (which installs its own moto extensions when it starts: these go after), with
    `EXPLAIN_LAKE_FORMATION` allowed to each of its roles and users."""
    from moto.iam.models import iam_backends

    iam = iam_backends[demo.account_id]["aws"]
    document = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": EXPLAIN_LAKE_FORMATION, "Resource": "*"}]})
    for role in list(iam.roles.values()):
        iam.put_role_policy(role.name, "explain-lake-formation", document)
    for user in list(iam.users.values()):
        iam.put_user_policy(user.name, "explain-lake-formation", document)
    yield from _lake_formation_gaps()


def _lake_formation_gaps() -> Iterator[None]:
    from moto.lakeformation import models, responses

    patch = pytest.MonkeyPatch()
    backend = models.LakeFormationBackend
    patch.setattr(backend, "get_resource_lf_tags", _lf_tags_or_none(backend.get_resource_lf_tags))
    original = responses.LakeFormationResponse.list_permissions

    def listing(self: Any) -> str:
        """ListPermissions by ResourceType LF_TAG_POLICY_TABLE: AWS lists the grants on LF-tag expressions of
        tables, moto rejects the type (its enum has none: a 500, retried)."""
        cells = (self._get_param("Resource") or {}).get("DataCellsFilter")
        if self._get_param("ResourceType") != "LF_TAG_POLICY_TABLE" and not cells:
            return original(self)
        catalog = self.lakeformation_backend.grants.get(self._get_param("CatalogId") or self.current_account)

        def named(grant: Any) -> bool:
            """ListPermissions on a DataCellsFilter (moto matches none): the grants on that filter."""
            found = grant.resource.get("DataCellsFilter") or {}
            return all(found.get(k) == cells.get(k) for k in ("DatabaseName", "TableName", "Name"))

        return json.dumps({"PrincipalResourcePermissions": [
            g.to_external_form() for g in (catalog.permissions if catalog else [])
            if (named(g) if cells else (g.resource.get("LFTagPolicy") or {}).get("ResourceType") == "TABLE")]})
    patch.setattr(responses.LakeFormationResponse, "list_permissions", listing)
    yield
    patch.undo()
