"""A Glue resource link in the demo's Athena: the name is read as the table another account shares.

A link holds no columns or files; its `TargetTable` names the shared table in its owner's catalog.
With a caller, `Access.shared` first checks what Lake Formation checks: DESCRIBE on the link,
SELECT on the target. Lake Formation then reads the target's files: no S3 check is the caller's.
"""

from __future__ import annotations

from typing import Any

from moto.glue.models import FakeTable, glue_backends

from aws_data_mcp_demo.engine.failures import QueryFailure


def follow_link(definition: dict[str, Any], schema: str, account_id: str, region: str, access: Any,
                where: str) -> tuple[FakeTable, frozenset[str] | None]:
    """The shared table the link `definition` names, and the columns the caller may read of it
    (None: no caller checked). `where`: the name's position in the query, for TABLE_NOT_FOUND."""
    target, name = definition["TargetTable"], definition["Name"]
    owner = str(target.get("CatalogId") or account_id)
    try:
        found: FakeTable = glue_backends[owner][region].get_table(target["DatabaseName"],
                                                                  target["Name"])
    except Exception:  # the share's table is gone: Athena names the link it was asked for
        raise QueryFailure(f"TABLE_NOT_FOUND: {where}Table 'awsdatacatalog.{schema}.{name}' does "
                           "not exist", error_type=1000) from None
    if access is None:
        return found, None
    return found, access.shared(schema, name, target, found.as_dict())
