"""The stable error vocabulary shared by `resources/read` and `get_resource`.

Both paths raise `ResourceFailure`. Each edge renders it its own way: JSON-RPC error `data`, or a
tool result with `isError`. So the two always agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from mcp_types.version import is_version_at_least
from pydantic import ValidationError

from aws_data_mcp.explainer.uris import explainer_in


class ErrorCode(StrEnum):
    INVALID_URI = "invalid_uri"
    NOT_FOUND = "not_found"
    AUTHENTICATION_REQUIRED = "authentication_required"
    ACCESS_DENIED = "access_denied"
    THROTTLED = "throttled"
    UPSTREAM_UNAVAILABLE = "upstream_unavailable"
    TIMEOUT = "timeout"
    INVALID_ARGUMENT = "invalid_argument"
    INTERNAL = "internal"


class DeadlineExceeded(BotoCoreError):
    """Raised before an AWS call (or a retry of one) that would start after the request's deadline."""

    fmt = "The request's time budget ran out before the AWS call could start"


RESOURCE_NOT_FOUND = -32002
"""The JSON-RPC code for an unknown resource up to MCP 2025-11-25 (retired by 2026-07-28's SEP-2164)."""
NOT_FOUND_IS_INVALID_PARAMS = "2026-07-28"
"""From this revision on, an unknown resource MUST be answered -32602 (SEP-2164), its `data` unchanged."""
AUTHENTICATION_ERROR = -32001

JSONRPC_CODES: dict[ErrorCode, int] = {
    ErrorCode.INVALID_URI: INVALID_PARAMS,
    ErrorCode.INVALID_ARGUMENT: INVALID_PARAMS,
    ErrorCode.NOT_FOUND: RESOURCE_NOT_FOUND,
    ErrorCode.AUTHENTICATION_REQUIRED: AUTHENTICATION_ERROR,
}
ECHO_LIMIT = 200
"""At most this many characters of a client's input are quoted back in an error (a URI, an argument name)."""
MESSAGE_LIMIT = 1_000


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """`text` as an error may quote it: at most `limit` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


RETRYABLE = frozenset({ErrorCode.THROTTLED, ErrorCode.UPSTREAM_UNAVAILABLE, ErrorCode.TIMEOUT})

_THROTTLING_CODES = frozenset(
    {"Throttling", "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded", "SlowDown"}
)
_ACCESS_DENIED_CODES = frozenset(
    {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "Forbidden", "403"}  # "403": a HEAD, no body
)
_AUTH_CODES = frozenset(
    {"ExpiredToken", "ExpiredTokenException", "InvalidClientTokenId", "UnrecognizedClientException",
     "SignatureDoesNotMatch", "InvalidAccessKeyId", "IncompleteSignature"}
)
_NOT_FOUND_CODES = frozenset(
    {"EntityNotFoundException", "NoSuchEntity", "NoSuchBucket", "NoSuchKey", "404", "ResourceNotFoundException",
     "InvalidRequestException", "NotFoundException"}
)


_ACTION_OF_OPERATION = {"ListBuckets": "ListAllMyBuckets", "ListObjectsV2": "ListBucket", "HeadObject": "GetObject",
                        "HeadBucket": "ListBucket"}
"""API operations whose IAM action has another name."""


def iam_action_name(operation: str) -> str:
    return _ACTION_OF_OPERATION.get(operation, operation)


@dataclass
class ResourceFailure(Exception):
    """A failure a client can act on: a stable code, what happened, and how to recover."""

    code: ErrorCode
    message: str
    details: list[str] = field(default_factory=list)
    valid_uris: list[str] = field(default_factory=list)
    uri: str | None = None
    """The URI as the client sent it, so a client matching errors to requests need not remember it."""
    action: str | None = None
    """For `access_denied`: the IAM action the caller lacks."""
    retry: bool | None = None
    """Whether a retry could succeed, where the upstream says so (Athena's Retryable); else the code decides."""
    explain: str | None = None
    """For `access_denied`: the permissions:// URI that explains, link by link, why (a table's or a bucket's)."""

    def __post_init__(self) -> None:
        self.message = echo(self.message, MESSAGE_LIMIT)  # messages quote input: never an unbounded answer
        super().__init__(self.message)

    @property
    def retryable(self) -> bool:
        return self.retry if self.retry is not None else self.code in RETRYABLE

    @property
    def jsonrpc_code(self) -> int:
        return JSONRPC_CODES.get(self.code, INTERNAL_ERROR)

    def jsonrpc_code_in(self, protocol_version: str | None) -> int:
        """The JSON-RPC code as the request's revision asks it: `not_found` is -32602 from 2026-07-28 on."""
        if (self.code is ErrorCode.NOT_FOUND and protocol_version is not None
                and is_version_at_least(protocol_version, NOT_FOUND_IS_INVALID_PARAMS)):
            return INVALID_PARAMS
        return self.jsonrpc_code

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "error": self.code.value,
            "message": self.message,
            "details": self.details,
            "retryable": self.retryable,
        }
        if self.code in (ErrorCode.INVALID_URI, ErrorCode.NOT_FOUND):
            body["valid_uris"] = self.valid_uris
        if self.action is not None:
            body["action"] = self.action
        if self.explain is not None:
            body["explain"] = self.explain
        if self.uri is not None:
            body["uri"] = echo(self.uri)
        return body

    def brief(self) -> dict[str, Any]:
        """The error object kept beside one item of a partial result (a denied bucket, a slow workgroup)."""
        body: dict[str, Any] = {"error": self.code.value, "message": self.message, "retryable": self.retryable}
        if self.action is not None:
            body["action"] = self.action
        if self.explain is not None:
            body["explain"] = self.explain
        return body


def authentication_required(reason: str) -> ResourceFailure:
    return ResourceFailure(
        ErrorCode.AUTHENTICATION_REQUIRED,
        f"No caller credentials: {reason}",
        details=[
            "Read auth://status to see how this server resolves credentials.",
            "Locally: configure the AWS credential chain (aws configure / aws sso login / AWS_PROFILE).",
            "Hosted: connect with the deployment's auth mode (an OIDC bearer token or SigV4 through a proxy).",
        ],
    )


def invalid_arguments(exc: ValidationError) -> ResourceFailure:
    """Tool arguments that fail the tool's input schema, each named with what it accepts (pydantic's words state
    the type, the allowed values or the limit) and never with the value sent, which may be a megabyte."""
    problems = [f"{'.'.join(str(part) for part in error['loc'])}: {error['msg']}"
                for error in exc.errors(include_url=False, include_input=False, include_context=False)]
    return ResourceFailure(ErrorCode.INVALID_ARGUMENT, f"Invalid argument: {'; '.join(problems)}",
                           details=["tools/list gives every argument's type and limits; nothing was changed."])


def from_aws_error(exc: BaseException, action: str) -> ResourceFailure:
    """Map a botocore failure of `action` (e.g. "athena:GetWorkGroup") to the stable vocabulary.

    The AWS message is kept only for the error code families where it carries no
    credential material; authentication messages are replaced wholesale.
    """
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        aws_code = str(error.get("Code", ""))
        aws_message = str(error.get("Message", ""))
        if aws_code in _THROTTLING_CODES:
            return ResourceFailure(ErrorCode.THROTTLED, f"{action} was throttled by AWS after retries",
                                   details=["Retry after a few seconds."])
        if aws_code in _ACCESS_DENIED_CODES:
            return ResourceFailure(
                ErrorCode.ACCESS_DENIED,
                f"Access denied: the caller is not allowed {action}",
                details=[f"Grant the caller's IAM identity the action {action} on the resource.", aws_message],
                action=action, explain=explainer_in(aws_message),
            )
        if aws_code in _AUTH_CODES:
            return ResourceFailure(
                ErrorCode.AUTHENTICATION_REQUIRED,
                f"AWS rejected the caller's credentials ({aws_code})",
                details=["Refresh the credentials (e.g. aws sso login) and retry."],
            )
        if aws_code in _NOT_FOUND_CODES:
            return ResourceFailure(ErrorCode.NOT_FOUND, f"{action}: {aws_message or aws_code}")
        return ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, f"{action} failed: {aws_code}",
                               details=["Retry later; if it persists, check the AWS service health."])
    if isinstance(exc, ConnectTimeoutError | ReadTimeoutError | DeadlineExceeded):
        return ResourceFailure(ErrorCode.TIMEOUT, f"{action} did not answer in time", details=["Retry later."])
    if isinstance(exc, EndpointConnectionError | BotoCoreError):
        return ResourceFailure(ErrorCode.UPSTREAM_UNAVAILABLE, f"{action} could not reach AWS: {type(exc).__name__}",
                               details=["Check network access to the AWS endpoint and retry."])
    return ResourceFailure(ErrorCode.INTERNAL, f"{action} failed unexpectedly")


def as_failure(exc: BaseException, action: str) -> ResourceFailure:
    """Any failure of `action` in the shared vocabulary: ours pass through, AWS's are mapped, anything
    else is `internal` (the caller logs it: it is a bug). An AWS error names the operation that failed,
    which may be another of the same service than `action` (a user's keys, not its groups)."""
    if isinstance(exc, ResourceFailure):
        return exc
    operation = getattr(exc, "operation_name", None)
    if operation:
        action = f"{action.split(':', 1)[0]}:{iam_action_name(operation)}"
    if isinstance(exc, TimeoutError):
        return ResourceFailure(ErrorCode.TIMEOUT, f"{action} did not complete in time", details=["Retry later."])
    return from_aws_error(exc, action)
