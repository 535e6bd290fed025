"""What a failing workflow store means to a caller, and what its operator needs to know (in the logs).

The store is reached with the server's own credentials, not the caller's. So nothing a caller does
fixes a denied call, a missing table or an unopenable file. Those are `internal`, for the deployment
to mend. The caller is not told the role, the table, the account or AWS's words. A throttled service
or a locked file is `upstream_unavailable`, retryable. A call the deadline cut off is `timeout`. A
write that may have landed is never "retry": it is `OutcomeUnknown`, with its expected version and
status URI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

from aws_data_mcp.errors import DeadlineExceeded, ErrorCode, ResourceFailure
from aws_data_mcp.observability import logger
from aws_data_mcp.workflows.model import Workflow, status_uri
from aws_data_mcp.workflows.store import Unsettled, WorkflowStore, Written

T = TypeVar("T")
MISCONFIGURED = "The server's workflow store is misconfigured"
_PASSING_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "Throttling", "RequestLimitExceeded",
     "InternalServerError", "InternalFailure", "ServiceUnavailable", "ServiceUnavailableException"}
)


def _store_error(exc: Exception) -> bool:
    """Whether the stores raise `exc` (OSError: a state directory that cannot be made; TimeoutError: a deadline).

    sqlite3 is imported here, not with this module: only the local store raises its errors, and then it is loaded
    already, while a Lambda (DynamoDB's store) would load its C extension at every cold start for nothing."""
    import sqlite3

    return isinstance(exc, ClientError | BotoCoreError | sqlite3.Error | OSError)


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError | ConnectTimeoutError | ReadTimeoutError | DeadlineExceeded)


def _passing(exc: BaseException) -> bool:
    """A failure that retrying shortly can cure: throttling, a 5xx, a dropped connection, a locked file."""
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return exc.response.get("Error", {}).get("Code") in _PASSING_CODES or status >= 500
    import sqlite3  # an error path, after the store's own failure: see `_store_error`

    if isinstance(exc, sqlite3.OperationalError):
        return any(word in str(exc) for word in ("locked", "busy"))
    return isinstance(exc, EndpointConnectionError | ConnectionClosedError)


def store_failure(exc: BaseException, operation: str) -> ResourceFailure:
    """`exc`, raised by the store's `operation`, in the shared vocabulary; its detail goes to the log only."""
    if _timed_out(exc):
        logger.warning(f"workflow store {operation} ran out of time: {type(exc).__name__}")
        return ResourceFailure(ErrorCode.TIMEOUT, "The workflow store did not answer in time",
                               details=["Retry; if a change was being written, its status URI shows whether it "
                                        "landed."])
    if _passing(exc):
        logger.warning(f"workflow store {operation} failed, retryable: {type(exc).__name__}: {exc}")
        return ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, "The workflow store is busy or unavailable",
                               details=["Retry in a few seconds."])
    logger.error(f"workflow store {operation} failed, misconfigured: {type(exc).__name__}: {exc}")
    return ResourceFailure(ErrorCode.INTERNAL, f"{MISCONFIGURED}: a deployment problem for its operator, not "
                           "something your credentials can fix",
                           details=["The server's logs name the failing call; config://server shows which store "
                                    "this server uses.", "Retrying will not help until the operator has fixed it."])


class OutcomeUnknown(ResourceFailure):
    """A write that may have landed and may not: the caller must read the status before doing anything else."""

    def __init__(self, workflow_id: str, expected_version: int) -> None:
        self.workflow_id, self.expected_version = workflow_id, expected_version
        uri = status_uri(workflow_id)
        super().__init__(ErrorCode.TIMEOUT, f"The workflow store did not confirm this change in time: the outcome is "
                         f"unknown; read {uri}", retry=False, details=[
                             f"The change was to make version {expected_version + 1} from version {expected_version}. "
                             "Read the status: if it shows your change, it landed; if not, send it again (add a "
                             "step with your own step_id, so that sending it again can never add it twice).",
                             "Do not retry blindly: the change may already be applied."])

    def payload(self) -> dict[str, object]:
        return {**super().payload(), "outcome": "unknown", "expected_version": self.expected_version,
                "status_uri": status_uri(self.workflow_id)}


class GuardedStore:
    """A store whose every failure is a `ResourceFailure`: the one place store errors are mapped, so tools,
    reads and completion all answer them alike."""

    def __init__(self, store: WorkflowStore) -> None:
        self.store = store
        self.location = store.location

    def _call(self, method: Callable[..., T], *args: Any) -> T:
        try:
            return method(*args)
        except Unsettled as unsettled:
            logger.warning(f"workflow store {method.__name__}: outcome unknown ({unsettled.__cause__!r})")
            raise OutcomeUnknown(unsettled.workflow.id, unsettled.expected_version) from unsettled
        except Exception as exc:
            if not _store_error(exc):
                raise
            raise store_failure(exc, method.__name__) from exc

    def get(self, owner: str, workflow_id: str) -> Workflow | None:
        return self._call(self.store.get, owner, workflow_id)

    def list(self, owner: str) -> list[Workflow]:
        return self._call(self.store.list, owner)

    def create(self, workflow: Workflow) -> Written:
        return self._call(self.store.create, workflow)

    def replace(self, workflow: Workflow, expected_version: int) -> Written:
        return self._call(self.store.replace, workflow, expected_version)

    def delete(self, owner: str, workflow_id: str) -> Workflow | None:
        return self._call(self.store.delete, owner, workflow_id)
