"""Glue's cross-account GetTable: a table another account shares through Lake Formation (RAM).

moto ignores `CatalogId` and answers from the caller's own catalog: a link's target is never found.
Here a `CatalogId` naming another account reads that account's table where it is shared: its Lake
Formation grants the caller's account a permission on it, and the caller holds a grant on it in its
own catalog (Glue shows a shared table only then). Else Glue's AccessDeniedException.
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
    account, region = self.current_account, self.region
    if not str(owner or "").isdigit() or owner == account:  # its own, or a table bucket's catalog
        return _OWN_GET_TABLE(self)
    database, name = str(self.parameters.get("DatabaseName")), str(self.parameters.get("Name"))
    if not {(database, name), (database, "*")} & shared_with(account, str(owner), region):
        arn = f"arn:aws:glue:{region}:{owner}:table/{database}/{name}"
        raise JsonRESTError("AccessDeniedException",
                            f"Account {account} is not authorized to perform glue:GetTable on {arn}")
    caller = caller_of(self)
    lake = lakeformation_backends[account][region]
    if caller is not None and not holds(lake, account, caller.names, database, name):
        raise JsonRESTError("AccessDeniedException",
                            f"Insufficient Lake Formation permission(s) on {name}")
    found = glue_backends[str(owner)][region].get_table(database, name)
    return ActionResult({"Table": found.as_dict()})


_OWN_GET_TABLE: Callable[[GlueResponse], ActionResult] = next(
    extension.replacement for extension in S3_TABLES if extension.name == "get_table")
SHARED_TABLES: tuple[Extension, ...] = (Extension(GlueResponse, "get_table", _get_table),)
"""GetTable in another account's catalog, for a table it shares (installed after ``S3_TABLES``)."""
