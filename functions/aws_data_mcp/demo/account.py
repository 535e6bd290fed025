"""The embedded emulated AWS account behind demo mode.

``DemoAccount`` runs moto's ``ThreadedMotoServer`` in this process on 127.0.0.1 (a free
port), seeds it with the demo data lake (``seed.py``) using moto's default "anything
goes" access, then switches on moto's IAM enforcement so that the demo caller (an IAM
user with a real policy) is held to it: listing the ``finance-restricted`` workgroup works,
describing it is denied, exactly as on AWS.

Process-wide effects (moto keeps its state and settings per process), all undone by
``stop()``:

* moto's IAM enforcement (``moto.settings.INITIAL_NO_AUTH_ACTION_COUNT``) is switched on
  while the account runs. It applies to every moto use in the process, including
  ``mock_aws`` in other tests, so only one ``DemoAccount`` may run per process and it
  should not overlap other moto mocks.
* moto's backends are reset on start and on stop (they are process-global).
* a few demo extensions are installed on moto's response classes (see
  ``_MOTO_EXTENSIONS``): Athena requests are authorised against the workgroup's ARN
  (moto checks every Athena action against ``*``, so a resource-scoped Deny would never
  match), ``BatchGetQueryExecution`` exists (moto 5.2.5 lacks it), ``ListWorkGroups``,
  ``ListQueryExecutions`` (one workgroup's, newest first), Glue's ``GetDatabases`` and ``GetTables``
  page as AWS does, ``GetWorkGroup`` refuses an unknown name, ``SimulatePrincipalPolicy``
  exists (evaluated with moto's own policy engine), query executions report
  the states/statistics/errors the seed gave them, and JSON-protocol services (Athena,
  Glue, SSO Admin) return ``AccessDeniedException`` as JSON instead of moto's XML error,
  and DynamoDB's writes are atomic (moto checks a condition, then writes, with no lock: two
  callers updating one workflow at once could both pass ``version = :expected``).
* the ``werkzeug`` and ``moto`` loggers are raised to WARNING (request lines and moto's
  debug dumps of signed headers stay out of the logs).

No environment variable is read or written; ``caller_environment()`` returns a dict for the
caller to apply.
"""

import contextlib
import functools
import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Self

import boto3
from botocore.config import Config
from moto import settings
from moto.athena.responses import AthenaResponse
from moto.core.authorization import ActionAuthenticatorMixin
from moto.core.exceptions import (
    AccessDeniedError,
    InvalidClientTokenIdError,
    JsonRESTError,
    SignatureDoesNotMatchError,
)
from moto.core.responses import ActionResult, BaseResponse
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.responses import DynamoHandler
from moto.glue.responses import GlueResponse
from moto.iam.access_control import AssumedRoleAccessKey, IAMPolicy, IAMUserAccessKey, PermissionResult
from moto.iam.models import iam_backends
from moto.iam.responses import IamResponse
from moto.server import ThreadedMotoServer
from moto.utilities.utils import get_partition

from .callers import function_keys, seed_hosted_callers
from .seed import DEMO_CALLER_USER, EXECUTION_DETAILS_ATTR, DemoInventory, seed_data_lake

DEMO_REGION = "us-east-1"

# Variables that would override or spoil the caller environment if left in place
# (a session token makes moto reject the IAM user's key; a profile may carry its own endpoint).
CONFLICTING_ENVIRONMENT: tuple[str, ...] = (
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_ROLE_ARN",
    "AWS_ROLE_SESSION_NAME",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
)
CONFLICTING_ENVIRONMENT_PREFIXES: tuple[str, ...] = ("AWS_ENDPOINT_URL_",)  # per-service endpoints win over ours

_QUIET_LOGGERS = ("werkzeug", "moto")
_TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})

# The endpoint is local: never route it through a proxy from the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_NO_PROXY_CONFIG = Config(proxies={})

_lock = threading.Lock()
_active: "DemoAccount | None" = None


# --------------------------------------------------------------------------- moto extensions

def _athena_determine_resource(self: AthenaResponse) -> str:
    """The ARN an Athena request acts on, so IAM statements scoped to a workgroup apply."""
    try:
        workgroup = self._get_param("WorkGroup")
        if not workgroup and (execution_id := self._get_param("QueryExecutionId")):
            execution = self.athena_backend.executions.get(execution_id)
            workgroup = execution.workgroup.name if execution is not None and execution.workgroup else None
    except Exception:  # a malformed body is the handler's business, not the authoriser's
        return "*"
    if not workgroup or not isinstance(workgroup, str):
        return "*"
    return f"arn:{self.partition}:athena:{self.region}:{self.current_account}:workgroup/{workgroup}"


def _dynamodb_determine_resource(self: DynamoHandler) -> str:
    """The table a DynamoDB request acts on, so a statement scoped to one table applies (moto checks `*`)."""
    try:
        table = self._get_param("TableName")
    except Exception:  # a malformed body is the handler's business, not the authoriser's
        return "*"
    if not table or not isinstance(table, str):
        return "*"
    return f"arn:{self.partition}:dynamodb:{self.region}:{self.current_account}:table/{table}"


_DYNAMODB_WRITES = threading.RLock()


def _atomic_write(write: Callable[..., Any]) -> Callable[..., Any]:
    """A DynamoDB write whose condition check and write happen as one step, as on AWS: moto's server
    answers each request in its own thread and checks a ConditionExpression without a lock."""

    @functools.wraps(write)
    def serialised(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with _DYNAMODB_WRITES:
            return write(self, *args, **kwargs)

    return serialised


def _statement_type(query: str) -> str:
    first = query.lstrip().split(None, 1)[0].upper() if query.strip() else ""
    if first in {"ALTER", "CREATE", "DROP", "MSCK"}:
        return "DDL"
    if first in {"DESCRIBE", "SHOW", "EXPLAIN"}:
        return "UTILITY"
    return "DML"


def _execution_document(execution_id: str, execution: Any) -> dict[str, Any]:
    """A QueryExecution as Athena returns it, including the seed's state details."""
    details: dict[str, Any] = getattr(execution, EXECUTION_DETAILS_ATTR, None) or {}
    state = execution.status
    status: dict[str, Any] = {"State": state, "SubmissionDateTime": execution.start_time}
    if state in _TERMINAL_STATES and execution.end_time is not None:
        status["CompletionDateTime"] = execution.end_time
    if details.get("StateChangeReason"):
        status["StateChangeReason"] = details["StateChangeReason"]
    if details.get("AthenaError"):
        status["AthenaError"] = details["AthenaError"]
    statistics = details.get("Statistics") or {
        "EngineExecutionTimeInMillis": 0,
        "DataScannedInBytes": 0,
        "TotalExecutionTimeInMillis": 0,
        "QueryQueueTimeInMillis": 0,
        "ServicePreProcessingTimeInMillis": 0,
        "QueryPlanningTimeInMillis": 0,
        "ServiceProcessingTimeInMillis": 0,
        "ResultReuseInformation": {"ReusedPreviousResult": False},
    }
    document: dict[str, Any] = {
        "QueryExecutionId": execution_id,
        "Query": execution.query,
        "StatementType": _statement_type(execution.query or ""),
        "ResultConfiguration": execution.config or {},
        "ResultReuseConfiguration": {"ResultReuseByAgeConfiguration": {"Enabled": False}},
        "QueryExecutionContext": execution.context or {},
        "Status": status,
        "Statistics": statistics,
        "WorkGroup": execution.workgroup.name if execution.workgroup else "primary",
        "EngineVersion": {"SelectedEngineVersion": "AUTO", "EffectiveEngineVersion": "Athena engine version 3"},
    }
    if execution.execution_parameters is not None:
        document["ExecutionParameters"] = execution.execution_parameters
    return document


def _athena_get_query_execution(self: AthenaResponse) -> str:
    """GetQueryExecution with state reason, error and statistics; unknown ids are a 400, not a 500."""
    execution_id = self._get_param("QueryExecutionId")
    if execution_id not in self.athena_backend.executions:
        raise JsonRESTError("InvalidRequestException", f"QueryExecution {execution_id} was not found")
    execution = self.athena_backend.get_query_execution(execution_id)
    return json.dumps({"QueryExecution": _execution_document(execution_id, execution)})


def _athena_batch_get_query_execution(self: AthenaResponse) -> str:
    """BatchGetQueryExecution, which moto 5.2.5 does not implement."""
    execution_ids = self._get_param("QueryExecutionIds") or []
    if not 1 <= len(execution_ids) <= 50:
        raise JsonRESTError("InvalidRequestException", "QueryExecutionIds must contain between 1 and 50 ids")
    found, unprocessed = [], []
    for execution_id in execution_ids:
        if execution_id in self.athena_backend.executions:
            execution = self.athena_backend.get_query_execution(execution_id)
            found.append(_execution_document(execution_id, execution))
        else:
            unprocessed.append(
                {
                    "QueryExecutionId": execution_id,
                    "ErrorCode": "InvalidRequestException",
                    "ErrorMessage": f"QueryExecution {execution_id} was not found",
                }
            )
    return json.dumps({"QueryExecutions": found, "UnprocessedQueryExecutionIds": unprocessed})


PAGE_LIMITS: dict[str, int] = {"ListWorkGroups": 50, "ListQueryExecutions": 50, "GetDatabases": 100, "GetTables": 100}
"""The most items one page of these operations holds (AWS's maxima). AWS may return fewer than MaxResults and
callers must follow NextToken: tests lower these to make that paging visible."""


def _page(items: list[Any], operation: str, token: str | None, max_results: int | None,
          error: str = "InvalidRequestException") -> tuple[list[Any], str | None]:
    """MaxResults/NextToken paging, which moto 5.2.5 skips for these operations (it returns everything at once)."""
    try:
        start = int(token) if token else 0
    except ValueError:
        raise JsonRESTError(error, f"Invalid NextToken for {operation}") from None
    end = start + min(int(max_results or PAGE_LIMITS[operation]), PAGE_LIMITS[operation])
    return items[start:end], str(end) if end < len(items) else None


def _engine_version(configuration: Mapping[str, Any]) -> dict[str, str]:
    """Both engine versions, as AWS reports them (moto keeps only what the workgroup was created with)."""
    engine = configuration.get("EngineVersion") or {}
    selected = engine.get("SelectedEngineVersion", "AUTO")
    effective = engine.get("EffectiveEngineVersion") or (selected if selected != "AUTO" else "Athena engine version 3")
    return {"SelectedEngineVersion": selected, "EffectiveEngineVersion": effective}


def _athena_list_work_groups(self: AthenaResponse) -> str:
    """ListWorkGroups in pages, each summary with its engine version, as Athena serves it."""
    summaries = self.athena_backend.list_work_groups()
    for summary in summaries:
        summary["EngineVersion"] = _engine_version(self.athena_backend.work_groups[summary["Name"]].configuration)
    page, token = _page(summaries, "ListWorkGroups", self._get_param("NextToken"), self._get_param("MaxResults"))
    return json.dumps({"WorkGroups": page, **({"NextToken": token} if token else {})})


def _athena_get_work_group(self: AthenaResponse) -> str:
    """GetWorkGroup with both engine versions; an unknown name is Athena's InvalidRequestException (moto: null)."""
    name = self._get_param("WorkGroup")
    if name not in self.athena_backend.work_groups:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {name} is not found.")
    workgroup = self.athena_backend.get_work_group(name)
    configuration = {**workgroup["Configuration"], "EngineVersion": _engine_version(workgroup["Configuration"])}
    return json.dumps({"WorkGroup": {**workgroup, "Configuration": configuration}})


def _submitted(execution: Any) -> float:
    started = execution.start_time
    return started.timestamp() if hasattr(started, "timestamp") else float(started)


def _athena_list_query_executions(self: AthenaResponse) -> str:
    """ListQueryExecutions of one workgroup (primary when none is named), newest first and in pages, as Athena
    serves it (moto: every workgroup's, oldest first, no pages)."""
    workgroup = self._get_param("WorkGroup") or "primary"
    if workgroup not in self.athena_backend.work_groups:
        raise JsonRESTError("InvalidRequestException", f"WorkGroup {workgroup} is not found.")
    executions = self.athena_backend.list_query_executions(workgroup)
    newest_first = sorted(executions, key=lambda execution_id: _submitted(executions[execution_id]), reverse=True)
    page, token = _page(newest_first, "ListQueryExecutions", self._get_param("NextToken"),
                        self._get_param("MaxResults"))
    return json.dumps({"QueryExecutionIds": page, **({"NextToken": token} if token else {})})


def _glue_get_databases(self: GlueResponse) -> ActionResult:
    """GetDatabases in pages (moto returns every database at once)."""
    page, token = _page(self.glue_backend.get_databases(), "GetDatabases", self.parameters.get("NextToken"),
                        self.parameters.get("MaxResults"), error="InvalidInputException")
    return ActionResult({"DatabaseList": [database.as_dict() for database in page], "NextToken": token})


def _glue_get_tables(self: GlueResponse) -> ActionResult:
    """GetTables in pages, honouring AttributesToGet (NAME, TABLE_TYPE) as Glue does."""
    parameters = self.parameters
    tables = self.glue_backend.get_tables(parameters["DatabaseName"], parameters.get("Expression"))
    page, token = _page(tables, "GetTables", parameters.get("NextToken"), parameters.get("MaxResults"),
                        error="InvalidInputException")
    documents = [table.as_dict() for table in page]
    if attributes := parameters.get("AttributesToGet"):
        keep = {"Name", "DatabaseName", "CatalogId"} | ({"TableType"} if "TABLE_TYPE" in attributes else set())
        documents = [{key: value for key, value in document.items() if key in keep} for document in documents]
    return ActionResult({"TableList": documents, "NextToken": token})


_SIMULATION_RESULT = """<SimulatePrincipalPolicyResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
<SimulatePrincipalPolicyResult><IsTruncated>false</IsTruncated><EvaluationResults>{members}</EvaluationResults>
</SimulatePrincipalPolicyResult><ResponseMetadata><RequestId>simulated</RequestId></ResponseMetadata>
</SimulatePrincipalPolicyResponse>"""
_SIMULATION_MEMBER = ("<member><EvalActionName>{action}</EvalActionName><EvalResourceName>{resource}</EvalResourceName>"
                      "<EvalDecision>{decision}</EvalDecision><MatchedStatements/><MissingContextValues/></member>")


def _principal_policies(account_id: str, partition: str, source_arn: str) -> list[Any]:
    """The identity policies of a user or role, gathered the way moto's own authoriser gathers them."""
    kind, _, name = source_arn.split(":", 5)[5].partition("/")
    holder = (IAMUserAccessKey if kind == "user" else AssumedRoleAccessKey).__new__(
        IAMUserAccessKey if kind == "user" else AssumedRoleAccessKey)
    holder.account_id, holder.partition = account_id, partition
    if kind == "user":
        holder._owner_user_name = name.rsplit("/", 1)[-1]
    else:
        holder._owner_role_name = name.rsplit("/", 1)[-1]
    return holder.collect_policies()


def _names(principal: Any, caller: str) -> bool:
    """Whether a resource policy statement's Principal is the caller (or everyone)."""
    if principal == "*":
        return True
    named = (principal or {}).get("AWS", []) if isinstance(principal, dict) else []
    return named == "*" or caller in ([named] if isinstance(named, str) else named)


def _iam_simulate_principal_policy(self: IamResponse) -> str:
    """SimulatePrincipalPolicy, which moto 5.2.5 lacks: moto's own policy evaluation of the principal's identity
    policies and of the `ResourcePolicy` statements that name the caller; an explicit deny in either wins, else
    an allow in either allows."""
    source = self._get_param("PolicySourceArn")
    caller = self._get_param("CallerArn") or source
    policies = [IAMPolicy(p) for p in _principal_policies(self.current_account, self.partition, source)]
    if resource_policy := self._get_param("ResourcePolicy"):
        statements = [{k: v for k, v in s.items() if k != "Principal"}
                      for s in json.loads(resource_policy)["Statement"] if _names(s.get("Principal"), caller)]
        policies.append(IAMPolicy(json.dumps({"Statement": statements})))
    members = []
    for action in self._get_param("ActionNames", []):
        for resource in self._get_param("ResourceArns", []) or ["*"]:
            results = {policy.is_action_permitted(action, resource) for policy in policies}
            decision = ("explicitDeny" if PermissionResult.DENIED in results
                        else "allowed" if PermissionResult.PERMITTED in results else "implicitDeny")
            members.append(_SIMULATION_MEMBER.format(action=action, resource=resource, decision=decision))
    return _SIMULATION_RESULT.format(members="".join(members))


_UNSIGNED_ACTIONS = frozenset({"AssumeRoleWithWebIdentity", "AssumeRoleWithSAML"})
_moto_authorize = ActionAuthenticatorMixin._authenticate_and_authorize_normal_action


def _authorize_with_protocol_errors(self: BaseResponse, resource: str = "*") -> None:
    """moto's IAM check, with errors shaped like the service's protocol (JSON for Athena/Glue/SSO).

    STS serves AssumeRoleWithWebIdentity unsigned (the token is the credential): moto's check would
    fail on the missing signature, so it is not applied there, as AWS does not apply one.
    """
    if self._get_action() in _UNSIGNED_ACTIONS:
        return
    try:
        _moto_authorize(self, resource)
    except (AccessDeniedError, InvalidClientTokenIdError, SignatureDoesNotMatchError) as error:
        if not self.headers.get("X-Amz-Target"):  # query/XML protocols already get the right shape
            raise
        if isinstance(error, AccessDeniedError):
            suffix = f" on resource: {resource}" if resource != "*" else ""
            raise JsonRESTError("AccessDeniedException", f"{error.message}{suffix}") from error
        if isinstance(error, InvalidClientTokenIdError):
            raise JsonRESTError("UnrecognizedClientException", error.message) from error
        raise JsonRESTError("InvalidSignatureException", error.message) from error


_MISSING = object()
_MOTO_EXTENSIONS: tuple[tuple[type, str, Callable[..., Any]], ...] = (
    (AthenaResponse, "_determine_resource", _athena_determine_resource),
    (DynamoHandler, "_determine_resource", _dynamodb_determine_resource),
    *((DynamoDBBackend, name, _atomic_write(getattr(DynamoDBBackend, name)))
      for name in ("put_item", "update_item", "delete_item", "transact_write_items")),
    (AthenaResponse, "get_query_execution", _athena_get_query_execution),
    (AthenaResponse, "batch_get_query_execution", _athena_batch_get_query_execution),
    (AthenaResponse, "list_work_groups", _athena_list_work_groups),
    (AthenaResponse, "get_work_group", _athena_get_work_group),
    (AthenaResponse, "list_query_executions", _athena_list_query_executions),
    (GlueResponse, "get_databases", _glue_get_databases),
    (GlueResponse, "get_tables", _glue_get_tables),
    (IamResponse, "simulate_principal_policy", _iam_simulate_principal_policy),
    (BaseResponse, "_authenticate_and_authorize_normal_action", _authorize_with_protocol_errors),
)


def install_moto_extensions() -> None:
    """The extensions alone, for a process that runs moto for tests or benchmarks (IAM not enforced).

    A DemoAccount started later saves and restores them like any other process state.
    """
    for cls, name, function in _MOTO_EXTENSIONS:
        setattr(cls, name, function)


class _ProcessState:
    """What a running DemoAccount changes in the process, saved so stop() can restore it exactly."""

    def __init__(self) -> None:
        self._auth_count: float = settings.INITIAL_NO_AUTH_ACTION_COUNT
        self._request_count: int = ActionAuthenticatorMixin.request_count
        self._log_levels = {name: logging.getLogger(name).level for name in _QUIET_LOGGERS}
        self._originals = [(cls, name, cls.__dict__.get(name, _MISSING)) for cls, name, _ in _MOTO_EXTENSIONS]

    def apply(self) -> None:
        for name in _QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
        install_moto_extensions()
        self.disable_enforcement()

    @staticmethod
    def disable_enforcement() -> None:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = float("inf")

    @staticmethod
    def enable_enforcement() -> None:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = 0
        ActionAuthenticatorMixin.request_count = 0

    def restore(self) -> None:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = self._auth_count
        ActionAuthenticatorMixin.request_count = self._request_count
        for cls, name, original in self._originals:
            if original is _MISSING:
                if name in cls.__dict__:
                    delattr(cls, name)
            else:
                setattr(cls, name, original)
        for name, level in self._log_levels.items():
            logging.getLogger(name).setLevel(level)


# --------------------------------------------------------------------------- the account

class DemoAccount:
    """An emulated AWS account (moto, in-process) seeded with the demo data lake.

    Use as a context manager or call ``start()``/``stop()``. While running, act as the demo
    caller with ``caller_environment()`` (environment variables) or ``caller_session()``.
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, region: str = DEMO_REGION,
                 hosted_callers: bool = False) -> None:
        self._hosted_callers = hosted_callers
        self.caller_roles: dict[str, str] = {}
        """Role name -> ARN of the hosted demo callers (with hosted_callers=True)."""
        self.function_keys: tuple[str, str] | None = None
        """The function identity's access key id and secret (with hosted_callers=True): for the handler only."""
        self._host = host
        self._requested_port = port
        self._region = region
        self._server: ThreadedMotoServer | None = None
        self._process_state: _ProcessState | None = None
        self._endpoint_url: str | None = None
        self._inventory: DemoInventory | None = None
        self._access_key_id: str | None = None
        self._secret_access_key: str | None = None
        self.startup_seconds: float | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Start moto, seed the data lake, then enforce IAM for the demo caller."""
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError("a DemoAccount is already running in this process (moto state is process-wide)")
            _active = self
        began = time.perf_counter()
        try:
            self._process_state = _ProcessState()
            self._process_state.apply()
            self._server = ThreadedMotoServer(ip_address=self._host, port=self._requested_port, verbose=False)
            self._server.start()
            host, port = self._server.get_host_and_port()
            self._endpoint_url = f"http://{host}:{port}"
            self._post_moto_api("/moto-api/reset")

            admin = boto3.Session(
                aws_access_key_id="demo-seed", aws_secret_access_key="demo-seed", region_name=self._region
            )
            self._inventory = seed_data_lake(admin, self._endpoint_url)
            # The caller's key is issued by moto's IAM backend directly, not through the API: botocore logs
            # response bodies at DEBUG, and CreateAccessKey's body carries the secret.
            iam = iam_backends[self._inventory.account_id][get_partition(self._region)]
            key = iam.create_access_key(user_name=DEMO_CALLER_USER)
            self._access_key_id = key.access_key_id
            self._secret_access_key = key.secret_access_key
            if self._hosted_callers:
                self.caller_roles = seed_hosted_callers(admin.client("iam", endpoint_url=self._endpoint_url),
                                                        self._inventory.account_id, self._region)
                self.function_keys = function_keys(self._inventory.account_id, self._region)

            self._process_state.enable_enforcement()
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.perf_counter() - began
        return self

    def stop(self) -> None:
        """Stop moto, forget the caller's key and put every process-wide setting back."""
        global _active
        if _active is not self:
            return
        try:
            if self._process_state is not None:
                self._process_state.disable_enforcement()
            if self._server is not None:
                if self._endpoint_url is not None:
                    with contextlib.suppress(OSError):  # best effort: the server may already be unreachable
                        self._post_moto_api("/moto-api/reset")
                self._server.stop()
                listener = getattr(self._server, "_server", None)  # moto's stop() leaves the socket open
                if listener is not None:
                    listener.server_close()
        finally:
            if self._process_state is not None:
                self._process_state.restore()
            self._server = None
            self._process_state = None
            self._endpoint_url = None
            self._access_key_id = None
            self._secret_access_key = None
            with _lock:
                _active = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what callers use -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the emulated account is serving."""
        return self._server is not None and self._secret_access_key is not None

    @property
    def endpoint_url(self) -> str:
        """Base URL of the moto server (every service on one endpoint)."""
        self._require_running()
        assert self._endpoint_url is not None
        return self._endpoint_url

    @property
    def region(self) -> str:
        """Region the demo data lives in."""
        return self._region

    @property
    def inventory(self) -> DemoInventory:
        """What was seeded (no secrets)."""
        if self._inventory is None:
            raise RuntimeError("the demo account has not been started")
        return self._inventory

    @property
    def account_id(self) -> str:
        """The emulated account's id."""
        return self.inventory.account_id

    @property
    def caller_arn(self) -> str:
        """ARN of the demo caller (an IAM user)."""
        return self.inventory.caller_arn

    def caller_environment(self) -> dict[str, str]:
        """Environment variables that make boto3 (>= 1.28) act as the demo caller against this account.

        Apply them after removing ``CONFLICTING_ENVIRONMENT`` (see ``merged_environment``).
        """
        self._require_running()
        assert self._access_key_id is not None and self._secret_access_key is not None
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": self._access_key_id,
            "AWS_SECRET_ACCESS_KEY": self._secret_access_key,
            "AWS_DEFAULT_REGION": self._region,
            "AWS_REGION": self._region,
        }

    def merged_environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` (e.g. ``os.environ``) without conflicting AWS settings, plus the caller environment."""
        cleaned = {
            name: value
            for name, value in base.items()
            if name not in CONFLICTING_ENVIRONMENT and not name.startswith(CONFLICTING_ENVIRONMENT_PREFIXES)
        }
        for name in ("NO_PROXY", "no_proxy"):  # keep a configured proxy away from the local endpoint
            if cleaned.get(name):
                cleaned[name] = f"{cleaned[name]},{self._host}"
        return {**cleaned, **self.caller_environment()}

    def caller_session(self) -> boto3.Session:
        """A boto3 Session with the demo caller's credentials; pass ``endpoint_url`` to its clients."""
        environment = self.caller_environment()
        return boto3.Session(
            aws_access_key_id=environment["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=environment["AWS_SECRET_ACCESS_KEY"],
            region_name=self._region,
        )

    def caller_client(self, service: str) -> Any:
        """A boto3 client for ``service`` acting as the demo caller against this account."""
        return self.caller_session().client(service, endpoint_url=self.endpoint_url, config=_NO_PROXY_CONFIG)

    def __repr__(self) -> str:
        caller = self._inventory.caller_arn if self._inventory is not None else None
        return f"DemoAccount(endpoint_url={self._endpoint_url!r}, region={self._region!r}, caller={caller!r})"

    # -- internals --------------------------------------------------------------------------

    def _require_running(self) -> None:
        if not self.running:
            raise RuntimeError("the demo account is not running; call start() or use it as a context manager")

    def _post_moto_api(self, path: str) -> None:
        assert self._endpoint_url is not None
        request = urllib.request.Request(f"{self._endpoint_url}{path}", data=b"", method="POST")
        with _DIRECT.open(request, timeout=10) as response:
            response.read()
