"""An Athena in the emulated account that really runs the submitted SQL (demo and tests only).

moto records a query and reports it SUCCEEDED with no rows. After `install()`, each query is a
`QueryRun`. It runs over the account's own objects, moves through Athena's states and writes its
results. A poll's state and details are published in one step, when moto describes the execution. So
SUCCEEDED always comes with the final statistics (docs/demo.md has the pacing and the cutoff).
"""

import json
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
from moto.athena.models import Execution, WorkGroup
from moto.athena.responses import AthenaResponse
from moto.core.exceptions import JsonRESTError
from moto.s3.models import s3_backends

from aws_data_mcp_demo.access.decisions import Caller, CallerAccess, caller_of
from aws_data_mcp_demo.emulator.extensions import EXECUTION_DETAILS_ATTR
from aws_data_mcp_demo.engine.metadata import is_metadata, run_metadata
from aws_data_mcp_demo.engine.query import QueryFailure, QueryResult, ScanLimitExceeded, result_csv, run_query


@dataclass
class Pacing:
    """How long a query shows each state before its outcome (seconds)."""

    queued_seconds: float = 0.2
    running_seconds: float = 0.2


PACING = Pacing()
"""The pacing of queries started from now on; tests lengthen or shorten it."""

MAX_RESULTS = 1000
"""The most rows one GetQueryResults page holds (Athena's maximum; the header row counts on the first page)."""

_RUNNING_HINT = re.compile(r"/\*\s*demo:running_seconds=(\d+(?:\.\d+)?)\s*\*/")
_NO_OUTPUT = ("No output location provided. An output location is required either through the Workgroup result "
              "configuration setting or as an API input.")
_CANCELLED_BY_USER = "Query cancelled by user"
_SCAN_LIMIT = "Bytes scanned limit was exceeded"


@dataclass(frozen=True)
class _Outcome:
    """How a query ended: its final state, the result (SUCCEEDED), the failure (FAILED) and what it cost."""

    state: str
    scanned_bytes: int
    engine_ms: int
    result: QueryResult | None = None
    failure: QueryFailure | None = None


@dataclass(frozen=True)
class _View:
    state: str
    details: dict[str, Any] = field(default_factory=dict)


def _statistics(queued_ms: int, engine_ms: int, scanned: int, finished: bool) -> dict[str, Any]:
    return {
        "EngineExecutionTimeInMillis": engine_ms,
        "DataScannedInBytes": scanned,
        "TotalExecutionTimeInMillis": queued_ms + engine_ms + (30 if finished else 0),
        "QueryQueueTimeInMillis": queued_ms,
        "ServicePreProcessingTimeInMillis": 12,
        "QueryPlanningTimeInMillis": min(engine_ms, 40),
        "ServiceProcessingTimeInMillis": 30 if finished else 0,
        "ResultReuseInformation": {"ReusedPreviousResult": False},
    }


class QueryRun(Execution):
    """An Athena execution whose query really runs; its state follows the clock and the run's outcome."""

    def __init__(self, query: str, context: dict[str, Any] | None, config: dict[str, Any],
                 workgroup: WorkGroup, execution_parameters: list[str] | None, caller: Caller | None = None) -> None:
        super().__init__(query, context, config, workgroup, execution_parameters)  # type: ignore[arg-type]
        self.caller = caller
        """Who started it: the query reads with their rights (None while moto does not enforce IAM)."""
        self._transitions = []  # the state is this run's, not moto's state manager's
        self._submitted = time.monotonic()
        hint = _RUNNING_HINT.search(query or "")
        self.queued_seconds = PACING.queued_seconds
        self.running_seconds = float(hint.group(1)) if hint else PACING.running_seconds
        self.outcome: _Outcome | None = None
        self.connection: duckdb.DuckDBPyConnection | None = None
        self._cancelled_after: float | None = None
        self._view = _View("QUEUED", {"Statistics": _statistics(0, 0, 0, finished=False)})
        setattr(self, EXECUTION_DETAILS_ATTR, self._view.details)

    @property
    def status(self) -> str:  # type: ignore[override]
        return self._view.state

    @status.setter
    def status(self, value: str) -> None:
        """moto's StopQueryExecution sets CANCELLED: a query that has not finished is interrupted."""
        if value == "CANCELLED" and self._current().state in ("QUEUED", "RUNNING"):
            self._cancelled_after = time.monotonic() - self._submitted
            if self.connection is not None:
                self.connection.interrupt()
            self.advance()

    @property
    def cancelled(self) -> bool:
        return self._cancelled_after is not None

    def advance(self) -> None:
        """Publish the state as of now (moto calls this whenever it describes the execution)."""
        view = self._current()
        if view.state in ("SUCCEEDED", "FAILED", "CANCELLED") and self._view.state != view.state:
            self.end_time = time.time()
        setattr(self, EXECUTION_DETAILS_ATTR, view.details)
        self._view = view

    def _current(self) -> _View:
        elapsed = time.monotonic() - self._submitted
        queued_ms = int(self.queued_seconds * 1000)
        if self._cancelled_after is not None:
            engine_ms = max(int(self._cancelled_after * 1000) - queued_ms, 0)
            return _View("CANCELLED", {"StateChangeReason": _CANCELLED_BY_USER,
                                       "Statistics": _statistics(queued_ms, engine_ms, 0, finished=True)})
        if elapsed < self.queued_seconds:
            return _View("QUEUED", {"Statistics": _statistics(int(elapsed * 1000), 0, 0, finished=False)})
        outcome = self.outcome
        if outcome is None or elapsed < self.queued_seconds + self.running_seconds:
            engine_ms = int(elapsed * 1000) - queued_ms
            return _View("RUNNING", {"Statistics": _statistics(queued_ms, engine_ms, 0, finished=False)})
        engine_ms = max(outcome.engine_ms, int(self.running_seconds * 1000))
        details: dict[str, Any] = {"Statistics": _statistics(queued_ms, engine_ms, outcome.scanned_bytes, True)}
        if outcome.state == "CANCELLED":
            details["StateChangeReason"] = _SCAN_LIMIT
        if outcome.failure is not None:
            failure = outcome.failure
            details["StateChangeReason"] = failure.message
            details["AthenaError"] = {"ErrorCategory": failure.category, "ErrorType": failure.error_type,
                                      "Retryable": failure.category == 1, "ErrorMessage": failure.message}
        return _View(outcome.state, details)


class AthenaEngine:
    """Runs the queries of ``QueryRun`` executions in the background and keeps their results on disk."""

    def __init__(self, workers: int = 2) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="aws-data-mcp-athena-"))
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="demo-athena")
        self._results: list[QueryResult] = []

    def submit(self, run: QueryRun, account_id: str, region: str) -> None:
        self._pool.submit(self._execute, run, account_id, region)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        for result in self._results:
            result.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def _execute(self, run: QueryRun, account_id: str, region: str) -> None:
        if run.cancelled:
            return
        began = time.monotonic()
        database = (run.context or {}).get("Database")
        cutoff = run.workgroup.configuration.get("BytesScannedCutoffPerQuery") if run.workgroup else None

        def keep(connection: duckdb.DuckDBPyConnection) -> None:
            run.connection = connection

        access = CallerAccess(run.caller, region, database) if run.caller is not None else None
        try:
            if access is not None:  # moto made OutputLocation the result file's: <location>/<id>.csv
                access.results(run.config["OutputLocation"], run.config.get("EncryptionConfiguration"),
                               run.config.get("ExpectedBucketOwner"))
            if is_metadata(run.query):  # SHOW, DESCRIBE: the catalog answers, nothing is scanned
                result = run_metadata(run.query, database=database, account_id=account_id, region=region,
                                      output=self.workdir / f"{run.id}.duckdb", access=access)
            else:
                result = run_query(run.query, database=database, account_id=account_id, region=region,
                                   workdir=self.workdir, result_name=run.id, cutoff=cutoff, on_connection=keep,
                                   access=access, catalog=(run.context or {}).get("Catalog"))
            self._results.append(result)
            _write_result(account_id, run.config["OutputLocation"], result)
            outcome = _Outcome("SUCCEEDED", result.scanned_bytes, _ms_since(began), result=result)
        except QueryFailure as failure:
            outcome = _Outcome("FAILED", 0, _ms_since(began), failure=failure)
        except ScanLimitExceeded:
            outcome = _Outcome("CANCELLED", int(cutoff or 0), _ms_since(began))
        except Exception as error:  # the engine's own fault: Athena's internal error, retryable
            failure = QueryFailure(f"GENERIC_INTERNAL_ERROR: {error}", error_type=200, category=1)
            outcome = _Outcome("FAILED", 0, _ms_since(began), failure=failure)
        finally:
            run.connection = None
        run.outcome = outcome


def _ms_since(began: float) -> int:
    return int((time.monotonic() - began) * 1000)


def _write_result(account_id: str, output_location: str, result: QueryResult) -> None:
    """``<id>.csv`` and ``<id>.csv.metadata`` in the output location, as Athena leaves them."""
    bucket, _, key = output_location.removeprefix("s3://").partition("/")
    s3 = s3_backends[account_id]["aws"]
    try:
        s3.get_bucket(bucket)
    except Exception:  # moto's NoSuchBucket
        raise QueryFailure(f"Unable to verify/create output bucket {bucket}", error_type=401, category=1) from None
    s3.put_object(bucket, key, result_csv(result))
    metadata = {"ColumnInfo": [column.as_dict() for column in result.columns], "RowCount": result.row_count}
    s3.put_object(bucket, f"{key}.metadata", json.dumps(metadata).encode())


# --------------------------------------------------------------------------- the Athena API

def _result_configuration(workgroup: WorkGroup, requested: dict[str, Any] | None) -> dict[str, Any]:
    """The workgroup's result configuration when it is enforced, else the request's over the workgroup's."""
    configured = dict(workgroup.configuration.get("ResultConfiguration") or {})
    if workgroup.configuration.get("EnforceWorkGroupConfiguration", True):
        return configured
    return {**configured, **(requested or {})}


def _athena_start_query_execution(self: AthenaResponse) -> str:
    """StartQueryExecution that runs the query (in the background) in the named workgroup."""
    name = self._get_param("WorkGroup") or "primary"
    workgroup = self.athena_backend.work_groups.get(name)
    if workgroup is None:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {name} is not found.")
    configuration = _result_configuration(workgroup, self._get_param("ResultConfiguration"))
    if not configuration.get("OutputLocation"):
        raise JsonRESTError("InvalidRequestException", _NO_OUTPUT)
    run = QueryRun(self._get_param("QueryString"), self._get_param("QueryExecutionContext"), configuration,
                   workgroup, self._get_param("ExecutionParameters"), caller_of(self))
    self.athena_backend.executions[run.id] = run
    _require_engine().submit(run, self.current_account, self.region)
    return json.dumps({"QueryExecutionId": run.id})


def _row(values: tuple[str | None, ...]) -> dict[str, Any]:
    return {"Data": [{"VarCharValue": value} if value is not None else {} for value in values]}


def _athena_get_query_results(self: AthenaResponse) -> str:
    """GetQueryResults in pages of up to 1000 rows, a query's header row first on the first page, as Athena
    serves it."""
    execution_id = self._get_param("QueryExecutionId")
    run = self.athena_backend.executions.get(execution_id)
    if not isinstance(run, QueryRun):
        return _MOTO_GET_QUERY_RESULTS(self)
    run.advance()
    if run.status in ("QUEUED", "RUNNING"):
        raise JsonRESTError("InvalidRequestException", f"Query has not yet finished. Current state: {run.status}")
    result = run.outcome.result if run.outcome is not None and run.status == "SUCCEEDED" else None
    if result is None:
        raise JsonRESTError("InvalidRequestException", f"Query did not succeed. Final state: {run.status}")
    limit = int(self._get_param("MaxResults") or MAX_RESULTS)
    if not 1 <= limit <= MAX_RESULTS:
        raise JsonRESTError("InvalidRequestException", f"MaxResults must be between 1 and {MAX_RESULTS}")
    token = self._get_param("NextToken")
    try:
        start = int(token) if token else 0  # position among the header row, if any, and the data rows
    except ValueError:
        raise JsonRESTError("InvalidRequestException", "Invalid NextToken for GetQueryResults") from None
    header = 1 if result.header_row else 0
    stop = min(start + limit, result.row_count + header)
    rows = [_row(tuple(c.name for c in result.columns))] if start == 0 and header else []
    rows += [_row(values) for values in result.rows(max(start - header, 0), stop - header)]
    page: dict[str, Any] = {
        "UpdateCount": 0,
        "ResultSet": {"Rows": rows, "ResultSetMetadata": {"ColumnInfo": [c.as_dict() for c in result.columns]}},
    }
    if stop < result.row_count + header:
        page["NextToken"] = str(stop)
    return json.dumps(page)


_MOTO_GET_QUERY_RESULTS: Callable[[AthenaResponse], str] = AthenaResponse.get_query_results
ENGINE_EXTENSIONS: tuple[tuple[type, str, Callable[..., Any]], ...] = (
    (AthenaResponse, "start_query_execution", _athena_start_query_execution),
    (AthenaResponse, "get_query_results", _athena_get_query_results),
)
"""The moto response methods the engine replaces (a demo account saves and restores them like its others)."""
_ORIGINALS = tuple((cls, name, cls.__dict__[name]) for cls, name, _ in ENGINE_EXTENSIONS)

_lock = threading.Lock()
_engine: AthenaEngine | None = None


def _require_engine() -> AthenaEngine:
    if _engine is None:
        raise JsonRESTError("InvalidRequestException", "the demo's Athena engine is not running")
    return _engine


def install() -> AthenaEngine:
    """Make moto's Athena run queries from now on, in this process (idempotent). Undo with ``uninstall()``."""
    global _engine
    with _lock:
        if _engine is None:
            _engine = AthenaEngine()
        for cls, name, function in ENGINE_EXTENSIONS:
            setattr(cls, name, function)
        return _engine


def uninstall() -> None:
    """Give moto its own StartQueryExecution/GetQueryResults back; stop the engine and delete its files."""
    global _engine
    with _lock:
        for cls, name, original in _ORIGINALS:
            setattr(cls, name, original)
        engine, _engine = _engine, None
    if engine is not None:
        engine.close()
