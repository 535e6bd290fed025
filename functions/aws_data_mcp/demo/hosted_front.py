"""`aws-data-mcp demo --auth iam|oidc`: the hosted path on one machine.

The emulated account with its demo callers, the Lambda handler configured as the stack
configures it (hosted, the chosen auth mode, the function's own credentials for STS), and
the API Gateway front before it. Prints, per caller, exactly how to connect.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import boto3

from aws_data_mcp.transport import local_server

from .account import CONFLICTING_ENVIRONMENT, DemoAccount
from .callers import CALLERS, FUNCTION_USER, DemoCaller
from .gateway import API_ID, ApiGatewayFront, DemoIssuer
from .seed_data import QUERY_WORKGROUPS

TOKEN_LIFETIME_SECONDS = 12 * 3600


@dataclass(frozen=True)
class HostedDemo:
    account: DemoAccount
    front: ApiGatewayFront
    url: str
    auth_mode: str
    issuer: DemoIssuer | None
    profiles: Path | None
    """iam: the directory holding the demo callers' AWS config and credentials files."""

    def token(self, caller: DemoCaller) -> str:
        assert self.issuer is not None
        return self.issuer.token(caller.name, [caller.group], lifetime=TOKEN_LIFETIME_SECONDS)

    def profile_environment(self) -> dict[str, str]:
        assert self.profiles is not None
        return {"AWS_CONFIG_FILE": str(self.profiles / "config"),
                "AWS_SHARED_CREDENTIALS_FILE": str(self.profiles / "credentials")}


def handler_environment(account: DemoAccount, auth_mode: str, url: str) -> dict[str, str]:
    """What template.yaml gives the function, pointed at the emulated account, with the function's own keys."""
    assert account.function_keys is not None
    roles = account.caller_roles
    access_key, secret = account.function_keys
    return {
        "AWS_ENDPOINT_URL": account.endpoint_url, "AWS_ACCESS_KEY_ID": access_key, "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_REGION": account.region, "AWS_DEFAULT_REGION": account.region,
        "AWS_DATA_MCP_MODE": "lambda", "AWS_DATA_MCP_AUTH_MODE": auth_mode, "AWS_DATA_MCP_API_ID": API_ID,
        "AWS_DATA_MCP_FUNCTION_ROLE_ARN": f"arn:aws:iam::{account.account_id}:user/{FUNCTION_USER}",
        "AWS_DATA_MCP_OIDC_ISSUER": url.removesuffix("/mcp"),
        "AWS_DATA_MCP_OIDC_ROLE_ARN": roles["demo-analyst-role"],
        "AWS_DATA_MCP_OIDC_ROLE_MAP": json.dumps({c.group: roles[c.role] for c in CALLERS}),
        "AWS_DATA_MCP_QUERY_WORKGROUPS": ",".join(QUERY_WORKGROUPS),
    }


def write_profiles(account: DemoAccount, directory: Path) -> Path:
    """AWS config and credentials files with one profile per caller, holding that caller's role session.

    The sessions are issued through the emulated STS, as `aws sso login` would issue a real one. The files
    are readable by their owner only.
    """
    assert account.function_keys is not None
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(stat.S_IRWXU)
    sts = boto3.client("sts", endpoint_url=account.endpoint_url, region_name=account.region,
                       aws_access_key_id=account.function_keys[0], aws_secret_access_key=account.function_keys[1])
    config, credentials = [], []
    for caller in CALLERS:
        session = sts.assume_role(RoleArn=account.caller_roles[caller.role], RoleSessionName=caller.name,
                                  DurationSeconds=TOKEN_LIFETIME_SECONDS)["Credentials"]
        config.append(f"[profile demo-{caller.name}]\nregion = {account.region}\n")
        credentials.append(f"[demo-{caller.name}]\naws_access_key_id = {session['AccessKeyId']}\n"
                           f"aws_secret_access_key = {session['SecretAccessKey']}\n"
                           f"aws_session_token = {session['SessionToken']}\n")
    for name, lines in (("config", config), ("credentials", credentials)):
        path = directory / name
        path.touch(mode=0o600)
        path.write_text("\n".join(lines), encoding="utf-8")
    return directory


@contextmanager
def hosted_demo(auth_mode: str, host: str, port: int, profiles: Path | None = None) -> Iterator[HostedDemo]:
    """The account, the handler and the front, ready to serve; the process environment is the function's."""
    url = f"http://{host}:{port}/mcp"
    with DemoAccount(hosted_callers=True) as account:
        for name in CONFLICTING_ENVIRONMENT:
            os.environ.pop(name, None)
        os.environ.update(handler_environment(account, auth_mode, url))
        from aws_data_mcp.handler import lambda_handler  # configured from the environment just set

        issuer = DemoIssuer(url.removesuffix("/mcp")) if auth_mode == "oidc" else None
        front = ApiGatewayFront(lambda_handler, auth_mode, account.region, issuer)
        written = write_profiles(account, profiles) if auth_mode == "iam" and profiles is not None else None
        yield HostedDemo(account, front, url, auth_mode, issuer, written)


PROXY_VERSION = "1.7.0"
"""The mcp-proxy-for-aws the iam banner names: the version the suite runs end to end (the Makefile pins it too)."""


def banner(demo: HostedDemo) -> str:
    lines = [f"aws-data-mcp demo, hosted path ({demo.auth_mode}): API Gateway front at {demo.url}",
             "  -> the Lambda handler, acting as each caller through STS, against an emulated account", ""]
    if demo.auth_mode == "iam":
        lines += [f"Each caller connects through mcp-proxy-for-aws {PROXY_VERSION} (the version tested), run by "
                  "`uvx` from uv (https://docs.astral.sh/uv/).", ""]
    for caller in CALLERS:
        lines.append(f"== {caller.name}: role {caller.role}, {caller.rights} ==")
        if demo.auth_mode == "iam":
            env = " ".join(f"{k}={v}" for k, v in demo.profile_environment().items())
            lines += [f"{env} \\", f"  uvx mcp-proxy-for-aws@{PROXY_VERSION} {demo.url} --service execute-api "
                      f"--region {demo.account.region} --profile demo-{caller.name}"]
        else:
            token = demo.token(caller)
            lines += [f"Authorization: Bearer {token}",
                      f"claude mcp add --transport http aws-data-mcp-{caller.name} {demo.url} "
                      f"--header \"Authorization: Bearer {token}\""]
        lines.append("")
    if demo.auth_mode == "oidc":
        lines.append(f"Issuer: {demo.url.removesuffix('/mcp')} (JWKS and discovery under /.well-known/)")
    lines.append("Press Ctrl+C to stop.")
    return "\n".join(lines)


def serve(auth_mode: str, host: str, port: int, state_dir: Path) -> None:
    with hosted_demo(auth_mode, host, port, state_dir / f"demo-{auth_mode}") as demo:
        local_server.serve(demo.front, host, port, lambda: print(banner(demo), file=sys.stderr, flush=True))

