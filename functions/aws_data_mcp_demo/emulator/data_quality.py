"""What moto lacks of Glue Data Quality: ListDataQualityResults and GetDataQualityResult.

The results are kept on moto's Glue backend (the seed puts them there, as an evaluation run would leave them); the
listing filters on the table a result is for, as Glue's DataSource filter does, and answers without the rules (Glue
gives them from GetDataQualityResult only).
"""

from __future__ import annotations

import json
from typing import Any

from moto.core.exceptions import JsonRESTError
from moto.glue.responses import GlueResponse

from aws_data_mcp_demo.emulator.patch import Extension

RESULTS_ATTRIBUTE = "demo_data_quality_results"
"""On moto's GlueBackend: ResultId -> the result as GetDataQualityResult answers it."""
_LISTED = ("ResultId", "DataSource", "JobName", "JobRunId", "StartedOn")


def _kept(self: GlueResponse) -> dict[str, dict[str, Any]]:
    return getattr(self.glue_backend, RESULTS_ATTRIBUTE, {})


def _epoch(value: Any) -> Any:
    return value.timestamp() if hasattr(value, "timestamp") else value


def _list(self: GlueResponse) -> str:
    wanted = ((self._get_param("Filter") or {}).get("DataSource") or {}).get("GlueTable") or {}
    found = [{k: result[k] for k in _LISTED if k in result} for result in _kept(self).values()
             if all(result["DataSource"]["GlueTable"].get(k) == v for k, v in wanted.items())]
    return json.dumps({"Results": found[:int(self._get_param("MaxResults") or 100)]}, default=_epoch)


def _get(self: GlueResponse) -> str:
    result = _kept(self).get(self._get_param("ResultId"))
    if result is None:
        raise JsonRESTError("EntityNotFoundException", "Cannot find Data Quality result")
    return json.dumps(result, default=_epoch)


DATA_QUALITY: tuple[Extension, ...] = (
    Extension(GlueResponse, "list_data_quality_results", _list),
    Extension(GlueResponse, "get_data_quality_result", _get),
)
"""Glue Data Quality's results (moto has neither call)."""
