"""AWS profiles for the demo's callers, so the AWS CLI and any SDK reach the same emulated account as the server.

Each demo mode writes owner-only `config` and `credentials` files (`private_files`, never via a
link). Each caller has a profile, `demo-<name>`, carrying the emulated `endpoint_url`. The AWS CLI
v2 and the SDKs read it. So `aws --profile demo-alice glue get-table ...` answers as the server
would answer alice.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aws_data_mcp.private_files import open_private


@dataclass(frozen=True)
class ProfileKeys:
    """One caller's credentials in the emulated account (a role session's carry its token)."""

    access_key_id: str
    secret_access_key: str
    session_token: str | None = None


def write_profiles(directory: Path, region: str, endpoint_url: str, callers: Mapping[str, ProfileKeys]) -> Path:
    """``directory/config`` and ``directory/credentials`` with a ``demo-<name>`` profile per caller; returns
    `directory`."""
    config, credentials = [], []
    for name, keys in callers.items():
        config.append(f"[profile demo-{name}]\nregion = {region}\nendpoint_url = {endpoint_url}\n")
        token = f"aws_session_token = {keys.session_token}\n" if keys.session_token else ""
        credentials.append(f"[demo-{name}]\naws_access_key_id = {keys.access_key_id}\n"
                           f"aws_secret_access_key = {keys.secret_access_key}\n{token}")
    for file_name, sections in (("config", config), ("credentials", credentials)):
        with os.fdopen(open_private(directory / file_name, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as file:
            file.write("\n".join(sections))
    return directory


def profile_environment(directory: Path) -> dict[str, str]:
    """The variables that point the AWS CLI and SDKs at the profiles `write_profiles` wrote in `directory`."""
    return {"AWS_CONFIG_FILE": str(directory / "config"), "AWS_SHARED_CREDENTIALS_FILE": str(directory / "credentials")}


def profile_hint(directory: Path, name: str) -> str:
    """The banner's line: how to check a verdict as caller `name` with the AWS CLI."""
    variables = " ".join(f"{key}={value}" for key, value in profile_environment(directory).items())
    return f"{variables} aws --profile demo-{name} glue get-table --database-name sales --name orders"
