"""What moto lacks of Glue's column statistics: UpdateColumnStatisticsForTable and GetColumnStatisticsForTable.

The statistics are kept on moto's own table object, in the wire form Glue takes them (so they are answered as they
were written, and go when the table goes); a column without any is listed in `Errors`, as Glue answers it.
"""

from __future__ import annotations

import json
from typing import Any

from moto.glue.responses import GlueResponse

from aws_data_mcp_demo.emulator.patch import Extension

_ATTRIBUTE = "demo_column_statistics"


def _table(self: GlueResponse) -> Any:
    """The moto table the request names (moto's own EntityNotFoundException where there is none)."""
    return self.glue_backend.get_table(self._get_param("DatabaseName"), self._get_param("TableName"))


def _update(self: GlueResponse) -> str:
    table = _table(self)
    kept: dict[str, Any] = getattr(table, _ATTRIBUTE, {})
    for entry in self._get_param("ColumnStatisticsList") or []:
        kept[entry["ColumnName"]] = entry
    setattr(table, _ATTRIBUTE, kept)
    return json.dumps({"Errors": []})


def _get(self: GlueResponse) -> str:
    kept: dict[str, Any] = getattr(_table(self), _ATTRIBUTE, {})
    names = self._get_param("ColumnNames") or []
    return json.dumps({
        "ColumnStatisticsList": [kept[name] for name in names if name in kept],
        "Errors": [{"ColumnName": name, "Error": {"ErrorCode": "EntityNotFoundException",
                                                   "ErrorMessage": f"No statistics for column {name}"}}
                   for name in names if name not in kept],
    })


COLUMN_STATISTICS: tuple[Extension, ...] = (
    Extension(GlueResponse, "update_column_statistics_for_table", _update),
    Extension(GlueResponse, "get_column_statistics_for_table", _get),
)
"""Glue's table-level column statistics (moto has neither call)."""
