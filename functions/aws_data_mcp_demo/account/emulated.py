"""The embedded emulated AWS account behind demo mode.

`DemoAccount` runs moto's server in this process, seeds it, then switches on IAM enforcement. moto
keeps state and settings per process. So one `DemoAccount` runs per process at most. `stop()` undoes
each process-wide effect. `caller_environment()` returns the variables to set.
"""

import logging
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self

import boto3
from botocore.config import Config
from moto import mock_aws, settings
from moto.core.authorization import ActionAuthenticatorMixin
from moto.iam.models import iam_backends
from moto.moto_api._internal.models import moto_api_backend
from moto.utilities.utils import get_partition

from aws_data_mcp_demo.account.callers import function_keys, seed_hosted_callers
from aws_data_mcp_demo.account.enterprise import seed_enterprise
from aws_data_mcp_demo.account.members import REFUSE_MISSING_ROLES, seed_member_accounts
from aws_data_mcp_demo.account.seed import DemoInventory, seed_data_lake
from aws_data_mcp_demo.account.seed_data import DEMO_CALLER_USER
from aws_data_mcp_demo.emulator.endpoint import EmulatedEndpoint
from aws_data_mcp_demo.emulator.extensions import EXTENSIONS, install_moto_extensions
from aws_data_mcp_demo.emulator.kms import LAZY_KEY_PAIRS
from aws_data_mcp_demo.emulator.lake_formation import LAKE_FORMATION, add_routes
from aws_data_mcp_demo.engine import athena as athena_engine

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

# The endpoint is local: never route it through a proxy from the environment.
_NO_PROXY_CONFIG = Config(proxies={})
# The seed's clients call AWS's own endpoints (which moto answers in-process), whatever the environment names.
_AWS_OWN_ENDPOINTS = Config(ignore_configured_endpoint_urls=True, use_fips_endpoint=False, use_dualstack_endpoint=False)

_lock = threading.Lock()
_active: "DemoAccount | None" = None
_MISSING = object()


class _ProcessState:
    """What a running DemoAccount changes in the process, saved so stop() can restore it exactly."""

    def __init__(self) -> None:
        self._auth_count: float = settings.INITIAL_NO_AUTH_ACTION_COUNT
        self._request_count: int = ActionAuthenticatorMixin.request_count
        self._log_levels = {name: logging.getLogger(name).level for name in _QUIET_LOGGERS}
        self._originals = [(e.owner, e.name, e.owner.__dict__.get(e.name, _MISSING))
                           for e in (*EXTENSIONS, *REFUSE_MISSING_ROLES, *LAKE_FORMATION, *LAZY_KEY_PAIRS)]

    def apply(self) -> None:
        for name in _QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
        install_moto_extensions((*REFUSE_MISSING_ROLES, *LAKE_FORMATION, *LAZY_KEY_PAIRS))
        add_routes()
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


@contextmanager
def _answered_in_process() -> Iterator[None]:
    """moto answers boto3's calls to AWS in this process meanwhile (``mock_aws``'s own path), on the state the
    endpoint serves: nothing reset on the way in or out. moto's placeholder keys in the environment and its
    cleared boto3 default session are put back when it ends, before anyone is served."""
    mock = mock_aws()
    mock.start(reset=False)
    try:
        yield
    finally:
        mock.stop(remove_data=False)


class _SeedSession(boto3.Session):
    """The seed's session: its clients call AWS's own endpoints (give them no ``endpoint_url``) over plain HTTP, as
    they would the endpoint, so botocore signs each body and puts its checksum in a header and the objects keep
    the metadata a seed through the endpoint gives them (S3 stores the request's payload hash)."""

    def client(self, *args: Any, **kwargs: Any) -> Any:  # boto3's own signature
        config = (kwargs.get("config") or Config()).merge(_AWS_OWN_ENDPOINTS)
        return super().client(*args, **{**kwargs, "use_ssl": False, "config": config})


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
        self._server: EmulatedEndpoint | None = None
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
            self._server = EmulatedEndpoint(ip_address=self._host, port=self._requested_port, verbose=False)
            self._server.start()
            host, port = self._server.get_host_and_port()
            self._endpoint_url = f"http://{host}:{port}"
            moto_api_backend.reset()

            admin = _SeedSession(
                aws_access_key_id="demo-seed", aws_secret_access_key="demo-seed", region_name=self._region
            )
            with _answered_in_process():
                self._inventory = seed_data_lake(admin, None)
                if self._hosted_callers:
                    self.caller_roles = seed_hosted_callers(admin.client("iam"), self._inventory.account_id,
                                                            self._region)
                seed_member_accounts(admin, self._inventory.account_id, self._region, self._hosted_callers)
                self._inventory = seed_enterprise(admin, self._inventory, self._region)
            athena_engine.install()  # after the seed: its history keeps the states it was given
            # The caller's key is issued by moto's IAM backend directly, not through the API: botocore logs
            # response bodies at DEBUG, and CreateAccessKey's body carries the secret.
            iam = iam_backends[self._inventory.account_id][get_partition(self._region)]
            key = iam.create_access_key(user_name=DEMO_CALLER_USER)
            self._access_key_id = key.access_key_id
            self._secret_access_key = key.secret_access_key
            if self._hosted_callers:
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
                moto_api_backend.reset()
                self._server.stop()
                listener = getattr(self._server, "_server", None)  # moto's stop() leaves the socket open
                if listener is not None:
                    listener.server_close()
        finally:
            athena_engine.uninstall()
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
