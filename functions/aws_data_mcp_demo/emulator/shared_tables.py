"""Glue's cross-account GetTable: a table another account shares through Lake Formation (RAM).

moto ignores `CatalogId` and answers from the caller's own catalog, so a resource link's target is never found.
Here a `CatalogId` naming another account reads that account's table, where its Lake Formation grants the
caller's account a permission on the table or its database, as a share does, and the caller holds a grant on it
in its own account's catalog (Glue shows a shared table only so); else Glue's AccessDeniedException.
"""

from __future__ import annotations

from collections.abc import Callable

from moto.core.exceptions import JsonRESTError
from moto.core.responses import ActionResult
from moto.glue.models import glue_backends
from moto.glue.responses import GlueResponse
from moto.lakeformation.models import lakeformation_backends

from aws_data_mcp_demo.access.decisions import caller_of
from aws_data_mcp_demo.access.lake_formation import holds, shared_with
from aws_data_mcp_demo.emulator.patch import Extension
from aws_data_mcp_demo.emulator.s3_tables import S3_TABLES


def _get_table(self: GlueResponse) -> ActionResult:
    owner = self.parameters.get("CatalogId")
    if not str(owner or "").isdigit() or owner == self.current_account:  # its own, or a table bucket's catalog
        return _OWN_GET_TABLE(self)
    database, name = str(self.parameters.get("DatabaseName")), str(self.parameters.get("Name"))
    shared = shared_with(self.current_account, str(owner), self.region)
    if not {(database, name), (database, "*")} & shared:
        raise JsonRESTError("AccessDeniedException", f"Account {self.current_account} is not authorized to perform "
                            f"glue:GetTable on resource arn:aws:glue:{self.region}:{owner}:table/{database}/{name}")
    caller = caller_of(self)
    lake = lakeformation_backends[self.current_account][self.region]
    if caller is not None and not holds(lake, self.current_account, caller.names, database, name):
        raise JsonRESTError("AccessDeniedException", f"Insufficient Lake Formation permission(s) on {name}")
    found = glue_backends[str(owner)][self.region].get_table(database, name)
    return ActionResult({"Table": found.as_dict()})


_OWN_GET_TABLE: Callable[[GlueResponse], ActionResult] = next(
    extension.replacement for extension in S3_TABLES if extension.name == "get_table")
SHARED_TABLES: tuple[Extension, ...] = (Extension(GlueResponse, "get_table", _get_table),)
"""GetTable in another account's catalog, for a table it shares (installed after ``S3_TABLES``)."""
