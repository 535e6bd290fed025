"""auth://: who the caller is, and what the server's filesystem allows."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TypedDict

from aws_data_mcp.registry import ResourceRequest
from aws_data_mcp.resources import registry


class AuthStatus(TypedDict):
    authenticated: bool
    auth_mode: str
    region: str
    principal_arn: str | None
    account: str | None
    user_id: str | None
    credential_expiry: str | None
    reason: str | None


@registry.resource(
    "auth://status",
    name="auth-status",
    title="Authentication status",
    description="Whether caller credentials were resolved: principal ARN, account, user id, auth mode, "
    "credential expiry and region. Never a secret; reports 'not authenticated' cleanly.",
    aws_calls=["sts:GetCallerIdentity"],
)
def auth_status(request: ResourceRequest) -> AuthStatus:
    """Rendered from the identity seam: the caller was resolved (and its principal asked of STS, once per
    set of credentials) before this runs, so a failure there is already a clean reason here."""
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
        reason=caller.unauthenticated_reason,
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
