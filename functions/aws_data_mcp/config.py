"""Server settings, read once from the environment.

Every setting is declared once, on its field: its environment variable and what it means.
`Settings.from_env` parses by the field's type, and `markdown_table` documents the same fields. So
the settings table (docs/settings.md) cannot drift from what the server reads. Module init reads
only the environment, no AWS call and no randomness, so it is snapshot-safe for Lambda SnapStart.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import typing
from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, Literal

from aws_data_mcp import __version__
from aws_data_mcp.guard.catalog_patterns import DEFAULT_CATALOGS
from aws_data_mcp.workflows.table import DEFAULT_TABLE_NAME

DeploymentMode = Literal["lambda", "local", "demo"]
AuthMode = Literal["local", "oidc", "iam"]
WorkflowStoreKind = Literal["dynamodb", "sqlite"]
AuditSql = Literal["hash", "full"]

PROTOCOL_REVISIONS: tuple[str, ...] = ("2025-11-25", "2026-07-28")
"""The revisions served on /mcp: 2025-11-25 (and the older ones the SDK negotiates) stateless, 2026-07-28."""

ENV_PREFIX = "AWS_DATA_MCP_"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MIN_LOCAL_TOKEN_LENGTH = 32
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class SettingError(ValueError):
    """A setting's value is unusable; the message names the variable and what it accepts."""


def setting(default: Any, doc: str, env: str, *, default_doc: str | None = None, minimum: float | None = None,
            secret: bool = False) -> Any:
    """A field read from `AWS_DATA_MCP_<env>` (from `env` itself for AWS's own `AWS_REGION`), meaning `doc`."""
    metadata = {"env": env if env == "AWS_REGION" else ENV_PREFIX + env, "doc": doc, "default_doc": default_doc,
                "minimum": minimum}
    return field(default=default, metadata=metadata, repr=not secret)


def state_directory() -> Path:
    """Where this user's server keeps state (workflows, the local access token, demo profiles)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "aws-data-mcp"


def _default_mode() -> DeploymentMode:
    return "lambda" if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") else "local"


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with the defaults a local user gets."""

    mode: DeploymentMode = setting("local", "Where the server runs: lambda, local or demo.", "MODE",
                                   default_doc="`lambda` on Lambda, else `local` (`demo` for the demo command)")
    auth_mode: AuthMode = setting(
        "local", "How callers are identified: iam or oidc behind API Gateway, local (your own credential chain) "
        "everywhere else.", "AUTH_MODE", default_doc="`iam` on Lambda, else `local`")
    region: str = setting("us-east-1", "The AWS region read, unless a profile names one.", "AWS_REGION",
                          default_doc="`AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`")
    version: str = __version__
    host: str = setting("127.0.0.1", "Loopback interface the local HTTP server binds: 127.0.0.1, localhost or ::1.",
                        "HOST")
    port: int = setting(8000, "Port of the local HTTP server.", "PORT", minimum=1)
    allowed_hosts: tuple[str, ...] = setting(
        (), "Extra `Host` header values (host:port, exactly: no wildcard) the local server's DNS-rebinding protection "
        "accepts, comma-separated.", "ALLOWED_HOSTS")
    allowed_origins: tuple[str, ...] = setting(
        (), "Browser origins (scheme://host[:port], exactly: no wildcard) that may call /mcp, comma-separated; a "
        "request with any other `Origin` is refused 403, on Lambda as locally (where the server's own loopback "
        "origins are listed already). Clients that are not web pages send none.", "ALLOWED_ORIGINS")
    local_token: str = setting(
        "", f"The local HTTP server's bearer token, at least {MIN_LOCAL_TOKEN_LENGTH} characters, to keep client "
        "configurations stable across restarts.", "TOKEN", default_doc="a new random token per start", secret=True)
    """Empty: the app asks for no token (the CLI's `serve` always sets one unless told `--no-token`)."""
    aws_call_timeout_seconds: float = setting(5.0, "Seconds one AWS call may take (shrinks as the request's "
                                              "deadline nears).", "AWS_CALL_TIMEOUT", minimum=0.1)
    request_timeout_seconds: float = setting(25.0, "Seconds a whole read may take locally; on Lambda the "
                                             "invocation's remaining time bounds it.", "REQUEST_TIMEOUT", minimum=0.1)
    max_attempts: int = setting(3, "Attempts per AWS call (botocore's standard retry mode: throttling is retried "
                                "with backoff).", "MAX_ATTEMPTS", minimum=1)
    response_char_budget: int = setting(50_000, "Characters per response: lists, and the pages of list methods, are "
                                        "cut to fit; a response that cannot fit says why (`over_budget`).",
                                        "RESPONSE_CHAR_BUDGET", minimum=1_000)
    max_request_body_bytes: int = setting(1_048_576, "Largest request body accepted (413 beyond).",
                                          "MAX_REQUEST_BODY_BYTES", minimum=1_024)
    list_page_size: int = setting(100, "Most entries per page of the list methods (`resources/list`, "
                                  "`resources/templates/list`, `tools/list`, `prompts/list`); fewer where the "
                                  "character budget ends first.", "LIST_PAGE_SIZE", minimum=1)
    cache_ttl_seconds: float = setting(30.0, "Seconds a caller's AWS results are reused for the same URI; 0 turns "
                                       "the cache off.", "CACHE_TTL", minimum=0)
    fanout_width: int = setting(32, "Concurrent AWS calls per fan-out (per bucket, workgroup, user...); "
                                "botocore's connection pool holds this many plus one per worker thread.",
                                "FANOUT_WIDTH", minimum=1)
    query_history_default: int = 50
    query_history_max: int = 500
    tabulator_databases: tuple[str, ...] = setting((), "The Glue databases in scope for table queries, "
                                                   "comma-separated; empty means all.", "TABULATOR_DATABASES")
    query_workgroups: tuple[str, ...] = setting(
        (), "The Athena workgroups `athena_query` may run in, comma-separated, the first the default. Each must have "
        "a bytes-scanned cutoff per query and an enforced configuration, or its queries are refused. Empty: queries "
        "are off.", "QUERY_WORKGROUPS")
    data_description: str = setting(
        "", "A few sentences on what this deployment's data is (its databases, what they hold, how they join), added "
        "to the server's instructions so an agent knows where to start.", "DATA_DESCRIPTION",
        default_doc="none (the demo sets its own)")
    query_catalogs: tuple[str, ...] = setting(
        DEFAULT_CATALOGS, "The Athena data catalogs queries may read (the query context "
        "`athena_query`'s `catalog` names, and every catalog its SQL names), comma-separated patterns "
        "(case-insensitive, fnmatch-style: `*` is one or more characters of one `/` segment). A table in any other "
        "catalog, a `\"lambda:...\"` connector (unless a pattern itself starts with `lambda:`), a table function "
        "(`TABLE(...)`) or an external function is refused before anything runs.", "QUERY_CATALOGS",
        default_doc="`AwsDataCatalog` (the Glue catalog) and `s3tablescatalog/*` (every S3 table bucket's catalog)")
    query_max_rows: int = setting(1000, "Most rows in one answer of a query (`athena_query`, and each page of "
                                  "`athena://queries/{execution_id}`); a caller asking for more gets this many.",
                                  "QUERY_MAX_ROWS", minimum=1)
    query_wait_seconds: float = setting(
        20.0, "Most seconds `athena_query` waits for its query before answering a link to read later (desktop "
        "clients give a tool about 60 s); on Lambda the invocation's remaining time, inside API Gateway's 30 s, "
        "bounds it too.", "QUERY_WAIT", minimum=0)
    athena_price_per_tb: float = setting(5.0, "USD per TB scanned, for the cost every query answer reports (Athena "
                                         "bills by the megabyte, at least 10 MB a query).", "ATHENA_PRICE_PER_TB",
                                         minimum=0)
    function_role_arn: str = setting("", "The function's own role, named only in the trust statement a refused "
                                     "caller is told to add (set by the template).", "FUNCTION_ROLE_ARN")
    expected_api_id: str = setting("", "When set, a hosted request whose requestContext names another API is "
                                   "refused (an event meant for another API; set by the template).", "API_ID")
    expected_api_stage: str = setting("", "When set, a hosted request whose requestContext names another API stage "
                                      "is refused (an event meant for another stage; set by the template).",
                                      "API_STAGE")
    session_duration_seconds: int = setting(3600, "How long exchanged caller credentials last (STS "
                                            "DurationSeconds).", "SESSION_DURATION", minimum=900)
    principal_role_map: tuple[tuple[str, str], ...] = setting(
        (), "iam mode: JSON object, caller ARN (IAM user, role, or a session of a role whose session name is "
        "pinned) -> role ARN to act as; first match wins.", "PRINCIPAL_ROLE_MAP")
    session_tags: bool = setting(
        False, "iam mode: tag each session the function assumes for a caller, `mcp-server` = `aws-data-mcp` and "
        "`mcp-call` = the id of the MCP call that made it (the audit line's `call_id`), so a policy can tell the "
        "server's sessions apart (`aws:PrincipalTag/mcp-server`). Each caller role's trust must then allow "
        "`sts:TagSession` to the function role, as the trust statement a refusal shows does.", "SESSION_TAGS")
    pinned_session_roles: tuple[str, ...] = setting(
        ("AWSReservedSSO_*",), "iam mode: the roles (names, `*` wildcards, comma-separated) whose trust pins the "
        "session name to the person (Identity Center's `AWSReservedSSO_*` roles; a trust requiring "
        "`sts:RoleSessionName` = `${aws:username}`). Only their sessions get their own workflows, session-keyed "
        "PrincipalRoleMap entries and SourceIdentity; any other role's callers are one identity, the role.",
        "PINNED_SESSION_ROLES",
        default_doc="`AWSReservedSSO_*`")
    oidc_role_arn: str = setting("", "oidc mode: the role a token is exchanged for when no claim maps to another.",
                                 "OIDC_ROLE_ARN")
    oidc_role_claim: str = setting(
        "tag", "oidc mode: what selects a role, as each role's trust checks it again: `tag` (the principal tag "
        "OIDC_ROLE_TAG in the token's `https://aws.amazon.com/tags` claim) or `sub` (the subject).", "OIDC_ROLE_CLAIM")
    oidc_role_tag: str = setting("aws-data-mcp-role", "oidc mode: the principal tag whose value selects a role "
                                 "(OIDC_ROLE_CLAIM=tag).", "OIDC_ROLE_TAG")
    oidc_role_map: tuple[tuple[str, str], ...] = setting(
        (), "oidc mode: JSON object, the tag's value (or the subject) -> role ARN; every other token gets "
        "OIDC_ROLE_ARN.", "OIDC_ROLE_MAP")
    oidc_issuer: str = setting("", "oidc mode: the issuer API Gateway's JWT authorizer trusts, published in the "
                               "protected-resource metadata.", "OIDC_ISSUER")
    sign_in_domain: str = setting(
        "", "oidc mode with the template's Cognito user pool (IdentityProvider=cognito): the pool's sign-in domain, "
        "`https://<prefix>.auth.<region>.amazoncognito.com`. Set, this API publishes RFC 8414 authorization-server "
        "metadata (this API's authorize, token and revoke in front of the domain's, and its `/register`) and "
        "names itself the authorization server in the protected-resource metadata (set by the template).",
        "SIGN_IN_DOMAIN")
    accounts: tuple[tuple[str, str], ...] = setting(
        (), "The accounts callers may name (`?account=<name>` on every resource, `account` on every tool): JSON "
        "object, short name -> 12-digit account id. A caller reaches one only as themselves (docs/accounts.md); "
        "an account not listed here is refused before any AWS call. Empty: the caller's home account only.",
        "ACCOUNTS")
    account_role: str = setting(
        "{role}", "The role a caller acts as in a listed account: a role name, `{role}` standing for the caller's "
        "home role's name (iam: their own role; oidc: the role the map chose; local: the profile's role).",
        "ACCOUNT_ROLE", default_doc="`{role}` (the same role name in every account)")
    account_profiles: tuple[tuple[str, str], ...] = setting(
        (), "Local mode: JSON object, account short name -> the AWS profile to read it with (an SSO profile, or one "
        "chaining `role_arn` from yours); an account without one is reached by AssumeRole from your own "
        "credentials into ACCOUNT_ROLE.", "ACCOUNT_PROFILES")
    workflow_store: WorkflowStoreKind = setting(
        "sqlite", "Where workflows live: dynamodb (any container reads them) or sqlite (one machine).",
        "WORKFLOW_STORE", default_doc="`sqlite` locally, `dynamodb` on Lambda and in the demo")
    workflow_table: str = setting(DEFAULT_TABLE_NAME, "The DynamoDB table of workflows.", "WORKFLOW_TABLE")
    workflow_db: str = setting("", "The SQLite file of workflows.", "WORKFLOW_DB",
                               default_doc="`workflows.sqlite3` under the state directory")
    workflow_retention_days: int = setting(30, "Finished workflows expire (DynamoDB TTL) this long after their "
                                           "last change.", "WORKFLOW_RETENTION_DAYS", minimum=1)
    audit_sql: AuditSql = setting(
        "hash", "What the audit line of a query keeps of its SQL: `hash` (its SHA-256, beside the tables it reads) or "
        "`full` (the text, literals included: only where the log's readers may see every value queried).",
        "AUDIT_SQL")
    summary_resource_chars: int = setting(
        0, "Most characters of a resource (an ARN, a key id) in an explainer's opening line, cut from the left with "
        "\"…\"; 0 shows every id and ARN whole (the links always do).", "SUMMARY_RESOURCE_CHARS", minimum=0)
    protocol_revisions: tuple[str, ...] = field(default=PROTOCOL_REVISIONS)

    @property
    def default_workgroup(self) -> str:
        """The workgroup a query runs in when none is named: the first allowed, else Athena's own default."""
        return self.query_workgroups[0] if self.query_workgroups else "primary"

    @property
    def workflow_db_path(self) -> str:
        return self.workflow_db or str(state_directory() / "workflows.sqlite3")

    def __post_init__(self) -> None:
        if not self.hosted and self.host not in LOOPBACK_HOSTS:
            raise SettingError(f"host {self.host!r}: the local server acts with your own AWS credentials, so it binds "
                               f"loopback only ({', '.join(LOOPBACK_HOSTS)})")
        if not 0 < self.port < 65536:
            raise SettingError(f"port {self.port}: a port is a number from 1 to 65535")
        wildcards = [host for host in self.allowed_hosts if "*" in host]
        if wildcards:  # the SDK would match "host:*" by prefix: "host:80.evil.com" too
            raise SettingError(f"{ENV_PREFIX}ALLOWED_HOSTS takes exact host:port values, not {wildcards[0][:40]!r}: "
                               "name each port")
        loose = [origin for origin in self.allowed_origins if "*" in origin or "://" not in origin]
        if loose:  # an Origin header is compared whole
            raise SettingError(f"{ENV_PREFIX}ALLOWED_ORIGINS takes exact scheme://host[:port] values, not "
                               f"{loose[0][:40]!r}")
        if self.local_token and len(self.local_token) < MIN_LOCAL_TOKEN_LENGTH:
            raise SettingError(f"{ENV_PREFIX}TOKEN must be at least {MIN_LOCAL_TOKEN_LENGTH} characters (it guards "
                               "your AWS credentials); unset it for a random token per start")
        _check_accounts(self)
        if self.auth_mode == "oidc":
            _check_oidc_role_map(self)
        if self.auth_mode == "iam":
            _check_principal_role_map(self)

    def account_named(self, name: str) -> Account | None:
        """The listed account called `name`, or None."""
        return next((Account(short, number) for short, number in self.accounts if short == name), None)

    @property
    def hosted(self) -> bool:
        """True on Lambda, where identity must come from API Gateway and never from the local chain."""
        return self.mode == "lambda"

    @classmethod
    def from_env(cls, default_mode: DeploymentMode | None = None,
                 environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment gives (this process's, or `environ`: another function's, read back by
        `check`); a `SettingError` names any variable whose value is unusable."""
        environ = os.environ if environ is None else environ
        values = {f.name: _parse(f, raw) for f in _documented() if (raw := _raw(f, environ)) is not None}
        mode = values.setdefault("mode", default_mode or _default_mode())
        auth_mode = values.setdefault("auth_mode", "iam" if mode == "lambda" else "local")
        values.setdefault("workflow_store", "sqlite" if mode == "local" else "dynamodb")
        if environ.get("AWS_LAMBDA_FUNCTION_NAME") and mode != "lambda":
            raise SettingError(f"{ENV_PREFIX}MODE={mode!r} on Lambda would serve the function's own role: refused")
        if mode == "lambda" and auth_mode == "local":
            raise SettingError("auth mode 'local' would use the function's own role: it is refused on Lambda")
        if mode != "lambda" and auth_mode != "local":
            raise SettingError(f"{ENV_PREFIX}AUTH_MODE={auth_mode!r} needs API Gateway in front (a deployed stack, "
                               f"or `make demo-{auth_mode}`); the local server uses your own "
                               "credentials")
        return cls(**values)


@dataclass(frozen=True)
class Account:
    """An account the operator listed: the short name callers use, and its id."""

    name: str
    id: str


ACCOUNT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""A short name: never an ARN, an id or a wildcard, so nothing a caller sends for it can name a role."""
_ACCOUNT_ID = re.compile(r"\d{12}")
_ROLE_NAME = re.compile(r"[\w+=,.@-]{1,64}", re.ASCII)


def _check_accounts(settings: Settings) -> None:
    for name, number in settings.accounts:
        if not ACCOUNT_NAME.fullmatch(name):
            raise SettingError(f"{ENV_PREFIX}ACCOUNTS name {name[:40]!r}: a short name is lower-case letters, "
                               "digits, _ and -, at most 32, starting with a letter or digit")
        if not _ACCOUNT_ID.fullmatch(number):
            raise SettingError(f"{ENV_PREFIX}ACCOUNTS {name!r}: {number[:40]!r} is not a 12-digit account id")
    listed = {name for name, _ in settings.accounts}
    unknown = sorted({name for name, _ in settings.account_profiles} - listed)
    if unknown:
        raise SettingError(f"{ENV_PREFIX}ACCOUNT_PROFILES names accounts {ENV_PREFIX}ACCOUNTS does not list: "
                           f"{', '.join(n[:40] for n in unknown)}")
    if not _ROLE_NAME.fullmatch(settings.account_role.replace("{role}", "role")):
        raise SettingError(f"{ENV_PREFIX}ACCOUNT_ROLE {settings.account_role[:70]!r}: a role name, in which only "
                           "{role} (the caller's home role's name) is replaced")


OIDC_ROLE_CLAIMS = ("tag", "sub")
"""What may select an oidc role: a claim each role's trust can check again (aws:RequestTag/<tag>, <provider>:sub)."""


def _check_oidc_role_map(settings: Settings) -> None:
    """A role map on a claim IAM cannot check (e.g. `groups`, the former default) chooses a role but restricts
    nobody: any holder of a token could exchange it with STS directly for any mapped role. Refused at start."""
    if settings.oidc_role_map and settings.oidc_role_claim not in OIDC_ROLE_CLAIMS:
        raise SettingError(
            f"{ENV_PREFIX}OIDC_ROLE_CLAIM={settings.oidc_role_claim!r}: a role's trust cannot check this claim, so "
            f"every token holder could assume every role of {ENV_PREFIX}OIDC_ROLE_MAP through STS directly. Map on "
            f"the principal tag (`tag`, {ENV_PREFIX}OIDC_ROLE_TAG, from the token's https://aws.amazon.com/tags "
            "claim) or on `sub`, and give each role the trust docs/auth.md's oidc section shows")
    if settings.oidc_role_claim == "tag" and not settings.oidc_role_tag.strip():
        raise SettingError(f"{ENV_PREFIX}OIDC_ROLE_TAG must name the principal tag that selects a role")


def session_name_pinned(settings: Settings, role_name: str) -> bool:
    """Whether the trust of `role_name` pins its session names to the person (the operator declares which)."""
    return any(fnmatch.fnmatchcase(role_name, pattern) for pattern in settings.pinned_session_roles)


def _check_principal_role_map(settings: Settings) -> None:
    """A key naming a session whose name its caller chooses would give the mapped role to whoever picks that name."""
    for key, _role in settings.principal_role_map:
        parts = key.split(":", 5)
        resource = parts[5] if len(parts) == 6 else ""
        kind, _, rest = resource.partition("/")
        if kind == "federated-user":
            raise SettingError(f"{ENV_PREFIX}PRINCIPAL_ROLE_MAP key {key[:120]!r}: a federated user's name is chosen "
                               "by whoever calls GetFederationToken; map the IAM user or a role instead")
        if kind == "assumed-role" and "/" in rest and not session_name_pinned(settings, rest.split("/", 1)[0]):
            raise SettingError(
                f"{ENV_PREFIX}PRINCIPAL_ROLE_MAP key {key[:120]!r} names one session of a role whose callers choose "
                f"their session name: anyone who may assume the role could name a session so. Map the role, or, if "
                f"its trust pins sts:RoleSessionName, add it to {ENV_PREFIX}PINNED_SESSION_ROLES")


def _documented() -> list[Field[Any]]:
    return [f for f in fields(Settings) if f.metadata.get("env")]


def _raw(setting_field: Field[Any], environ: Mapping[str, str]) -> str | None:
    variable = setting_field.metadata["env"]
    if variable == "AWS_REGION":
        return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or None
    return environ.get(variable)


@cache
def _types() -> dict[str, Any]:
    return typing.get_type_hints(Settings)


def _parse(setting_field: Field[Any], raw: str) -> Any:
    """`raw` as the field's type, or a `SettingError` saying what the variable accepts."""
    variable, kind = setting_field.metadata["env"], _types()[setting_field.name]
    text = raw.strip()
    if typing.get_origin(kind) is Literal:
        if text not in typing.get_args(kind):
            raise SettingError(f"{variable} must be one of {', '.join(typing.get_args(kind))}, not {text!r}")
        return text
    if kind is bool:
        if text.lower() not in _TRUE + _FALSE:
            raise SettingError(f"{variable} must be true or false, not {text!r}")
        return text.lower() in _TRUE
    if kind in (int, float):
        try:
            number = kind(text)
        except ValueError:
            noun = "a whole number" if kind is int else "a number"
            raise SettingError(f"{variable} must be {noun}, not {text[:40]!r}") from None
        minimum = setting_field.metadata["minimum"]
        if number != number or (minimum is not None and number < minimum):  # NaN, or below what works
            raise SettingError(f"{variable} must be at least {minimum}, not {text!r}")
        return number
    if kind == tuple[str, ...]:
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if kind == tuple[tuple[str, str], ...]:
        return _pairs(variable, text)
    return raw


def _pairs(variable: str, text: str) -> tuple[tuple[str, str], ...]:
    """A JSON object of strings, its order kept (first match wins where it is used)."""
    if not text:
        return ()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingError(f"{variable} must be a JSON object of strings: {exc.msg}") from None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise SettingError(f"{variable} must be a JSON object of strings, e.g. {{\"admins\": \"arn:...\"}}")
    return tuple(value.items())


def markdown_table() -> str:
    """Every setting the environment can give, for docs/settings.md (`aws-data-mcp settings-table`)."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for setting_field in _documented():
        default = setting_field.metadata["default_doc"] or _shown(setting_field)
        rows.append(f"| `{setting_field.metadata['env']}` | {default} | {setting_field.metadata['doc']} |")
    return "\n".join(rows) + "\n"


def _shown(setting_field: Field[Any]) -> str:
    value = setting_field.default
    if value is MISSING or value in ("", ()):
        return "(none)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"
