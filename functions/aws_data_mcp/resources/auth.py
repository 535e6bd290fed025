"""auth://: who the caller is, and what the server's filesystem allows."""

from __future__ import annotations

import os
import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypedDict

from aws_data_mcp.identity.accounts import listed, standing
from aws_data_mcp.registry import ResourceRequest, registry
from aws_data_mcp.resources.athena.catalog import data_catalogs
from aws_data_mcp.resources.athena.workgroups import query_workgroup


class AuthStatus(TypedDict):
    authenticated: bool
    auth_mode: str
    region: str
    principal_arn: str | None
    account: str | None
    user_id: str | None
    credential_expiry: str | None
    identity_digest: str | None
    """A stable hash of who the caller is (never of a secret): what this server's caches are keyed on. The same
    person shows the same digest across credential refreshes; two callers never share one."""
    session_name_pinned: bool | None
    """iam: whether the caller's role pins the session name to the person (PINNED_SESSION_ROLES). Only then is the
    session name who they are here: their own workflows, SourceIdentity, a session-keyed role map entry. None where
    the caller names no session (oidc: the issuer's subject; local: your own credentials)."""
    workflows_scope: Literal["caller", "role"] | None
    """Whose workflows this caller reads and writes: their own, or (an unpinned session) every caller of their role."""
    reason: str | None
    accounts: list[dict[str, Any]]
    """Each listed account: who the caller is there, or why they may not read it."""


@registry.resource(
    "auth://status",
    name="auth-status",
    title="Authentication status",
    description="Whether caller credentials were resolved: principal ARN, account, user id, auth mode, "
    "credential expiry, region, whether the session name is pinned and whose workflows the caller sees. Never a "
    "secret; reports 'not authenticated' cleanly. Lists the accounts the caller may reach, and who they are there.",
    aws_calls=["sts:GetCallerIdentity", "sts:AssumeRole", "sts:AssumeRoleWithWebIdentity"],
)
def auth_status(request: ResourceRequest) -> AuthStatus:
    """Rendered from the identity seam: the caller was resolved (and its principal asked of STS, once per
    set of credentials) before this runs, so a failure there is already a clean reason here.

    The identity digest is shown in every mode so a caller (or an operator comparing two answers) can see which
    identity the server's caches hold their results under; it is None whenever nobody was authenticated."""
    caller = request.caller
    expiry = caller.credential_expiry
    return AuthStatus(
        authenticated=caller.authenticated,
        auth_mode=caller.auth_mode,
        region=caller.region,
        principal_arn=caller.principal_arn,
        account=caller.account,
        user_id=caller.user_id,
        credential_expiry=expiry.isoformat() if expiry else None,
        identity_digest=caller.identity_digest,
        session_name_pinned=caller.session_name_pinned,
        workflows_scope=None if not caller.authenticated else "role" if caller.session_name_pinned is False
        else "caller",
        reason=caller.unauthenticated_reason,
        accounts=[outcome.value or {"name": outcome.item.name, "id": outcome.item.id, "reachable": False,
                                    "reason": outcome.error.message if outcome.error else None}
                  for outcome in request.fan_out(partial(standing, caller), listed(request.settings),
                                                 action="sts:AssumeRole")] if caller.authenticated else [],
    )


class CatalogInfo(TypedDict):
    region: str
    account: str | None
    deployment_mode: str
    protocol_revisions: list[str]
    data_catalogs: list[dict[str, Any]]
    data_catalogs_error: dict[str, Any] | None
    query_workgroup: dict[str, Any]


@registry.resource(
    "auth://catalog/info",
    name="catalog-info",
    title="Data catalog view",
    description="The caller's data catalog view: region, account, Athena data catalogs, the workgroup table "
    "queries use and its result location, deployment mode and protocol revisions.",
    requires="auth",
    aws_calls=["athena:ListDataCatalogs", "athena:GetWorkGroup"],
)
def catalog_info(request: ResourceRequest) -> CatalogInfo:
    """Where queries would run for this caller: the catalogs and the configured workgroup, each kept with its own
    error when the caller may not read it."""
    athena = request.client("athena")
    catalogs, catalogs_error = data_catalogs(athena)
    workgroup = query_workgroup(athena, request.settings.default_workgroup)
    return CatalogInfo(
        region=request.caller.region, account=request.caller.account, deployment_mode=request.settings.mode,
        protocol_revisions=list(request.settings.protocol_revisions),
        data_catalogs=[{"name": c["CatalogName"], "type": c.get("Type")} for c in catalogs],
        data_catalogs_error=catalogs_error, query_workgroup=workgroup,  # type: ignore[typeddict-item]
    )


class FilesystemStatus(TypedDict):
    temp_dir: str
    temp_writable: bool
    temp_free_mib: int | None
    home: str
    home_writable: bool
    root_read_only: bool


def _writable(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK)


@registry.resource(
    "auth://filesystem/status",
    name="filesystem-status",
    title="Server filesystem",
    description="The server's filesystem: writable temp dir and its free space, whether home is writable, "
    "and whether the root is read-only (as on Lambda).",
)
def filesystem_status(request: ResourceRequest) -> FilesystemStatus:
    temp_dir = tempfile.gettempdir()
    home = str(Path.home())
    try:
        free: int | None = shutil.disk_usage(temp_dir).free // 1_048_576
    except OSError:
        free = None
    return FilesystemStatus(
        temp_dir=temp_dir,
        temp_writable=_writable(temp_dir),
        temp_free_mib=free,
        home=home,
        home_writable=_writable(home),
        root_read_only=not os.access("/", os.W_OK),
    )
