"""`python -m aws_data_mcp_demo --auth iam|oidc`: the hosted path on one machine.

The emulated account with its demo callers, the Lambda handler configured as the stack
configures it (hosted, the chosen auth mode, the function's own credentials for STS), and
the API Gateway front before it. Prints, per caller, exactly how to connect.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import boto3
from starlette.types import ASGIApp

from aws_data_mcp.private_files import open_private
from aws_data_mcp.transport import local_server
from aws_data_mcp_demo.account.callers import CALLERS, FUNCTION_USER, DemoCaller, identity_claims
from aws_data_mcp_demo.account.emulated import CONFLICTING_ENVIRONMENT, DemoAccount
from aws_data_mcp_demo.account.members import accounts_line, hosted_environment
from aws_data_mcp_demo.account.profiles import ProfileKeys, profile_environment, profile_hint, write_profiles
from aws_data_mcp_demo.account.seed_data import DEMO_DATA_STORY, QUERY_WORKGROUPS
from aws_data_mcp_demo.front.authorization_server import (
    ACCESS_TOKEN_LIFETIME_SECONDS,
    DemoAuthorizationServer,
    with_sign_in,
)
from aws_data_mcp_demo.front.gateway import API_ID, ApiGatewayFront, DemoIssuer

TOKEN_LIFETIME_SECONDS = 12 * 3600


def caller_token(issuer: DemoIssuer, caller: DemoCaller, lifetime: int = TOKEN_LIFETIME_SECONDS) -> str:
    """The demo issuer's token for a caller: the banner's static tokens and every signed-in user's, alike."""
    return issuer.sign(identity_claims(caller), lifetime=lifetime)


@dataclass(frozen=True)
class HostedDemo:
    account: DemoAccount
    front: ApiGatewayFront
    url: str
    auth_mode: str
    issuer: DemoIssuer | None
    profiles: Path | None
    """The directory holding the demo callers' AWS config and credentials files (``profiles``)."""
    authorization_server: DemoAuthorizationServer | None = None
    """oidc: where an OAuth client signs a person in; it serves before the front."""

    def token(self, caller: DemoCaller) -> str:
        assert self.issuer is not None
        return caller_token(self.issuer, caller)

    @property
    def app(self) -> ASGIApp:
        """What the demo serves: the front, after the authorization server's routes in oidc mode."""
        if self.authorization_server is None:
            return self.front
        return with_sign_in(self.front, self.authorization_server)

    def profile_environment(self) -> dict[str, str]:
        assert self.profiles is not None
        return profile_environment(self.profiles)


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
        "AWS_DATA_MCP_DATA_DESCRIPTION": DEMO_DATA_STORY,
        **hosted_environment(account.account_id),
    }


def write_caller_profiles(account: DemoAccount, directory: Path) -> Path:
    """A profile per caller (``profiles``), holding that caller's role session, issued through the emulated STS as
    `aws sso login` would issue a real one."""
    assert account.function_keys is not None
    sts = boto3.client("sts", endpoint_url=account.endpoint_url, region_name=account.region,
                       aws_access_key_id=account.function_keys[0], aws_secret_access_key=account.function_keys[1])
    sessions = {}
    for caller in CALLERS:
        session = sts.assume_role(RoleArn=account.caller_roles[caller.role], RoleSessionName=caller.name,
                                  DurationSeconds=TOKEN_LIFETIME_SECONDS)["Credentials"]
        sessions[caller.name] = ProfileKeys(session["AccessKeyId"], session["SecretAccessKey"],
                                            session["SessionToken"])
    return write_profiles(directory, account.region, account.endpoint_url, sessions)


@contextmanager
def hosted_demo(auth_mode: str, host: str, port: int, profiles: Path | None = None,
                access_token_lifetime: int = ACCESS_TOKEN_LIFETIME_SECONDS) -> Iterator[HostedDemo]:
    """The account, the handler and the front, ready to serve; the process environment is the function's.

    `access_token_lifetime` is that of the tokens a signed-in user's client gets (oidc).
    """
    url = f"http://{host}:{port}/mcp"
    with DemoAccount(hosted_callers=True) as account:
        for name in CONFLICTING_ENVIRONMENT:
            os.environ.pop(name, None)
        os.environ.update(handler_environment(account, auth_mode, url))
        from aws_data_mcp.handler import lambda_handler  # configured from the environment just set

        issuer = DemoIssuer(url.removesuffix("/mcp")) if auth_mode == "oidc" else None
        front = ApiGatewayFront(lambda_handler, auth_mode, account.region, issuer)
        written = write_caller_profiles(account, profiles) if profiles is not None else None
        server = None if issuer is None else DemoAuthorizationServer(
            issuer, url, partial(caller_token, issuer), access_token_lifetime)
        yield HostedDemo(account, front, url, auth_mode, issuer, written, server)


PROXY_VERSION = "1.7.0"
"""The mcp-proxy-for-aws the iam banner names: the version the suite runs end to end (the Makefile pins it too)."""


def banner(demo: HostedDemo, metrics: Path | None = None) -> str:
    """How each caller connects; `metrics` names the file the handler's EMF lines go to instead of the terminal."""
    lines = [f"aws-data-mcp demo, hosted path ({demo.auth_mode}): API Gateway front at {demo.url}",
             "  -> the Lambda handler, acting as each caller through STS, against an emulated account", ""]
    if demo.auth_mode == "iam":
        lines += [f"Each caller connects through mcp-proxy-for-aws {PROXY_VERSION} (the version tested), run by "
                  "`uvx` from uv (https://docs.astral.sh/uv/).", ""]
    if demo.auth_mode == "oidc":
        lines += ["== Sign in from your client (OAuth) ==",
                  f"Add {demo.url} to your MCP client as an HTTP server and sign in in the browser when it asks:",
                  f"the demo's sign-in page lets you choose {', '.join(c.name for c in CALLERS)}.",
                  f"claude mcp add --transport http aws-data-mcp {demo.url}   (then /mcp in Claude Code to sign in)",
                  "", "== Or a static token per caller, for clients without OAuth ==",
                  "Send a caller's Authorization line as a header, e.g. claude mcp add --transport http "
                  f"aws-data-mcp-alice {demo.url} --header \"Authorization: Bearer <alice's token>\"", ""]
    for caller in CALLERS:
        lines.append(f"== {caller.name}: role {caller.role}, {caller.rights} ==")
        if demo.auth_mode == "iam":
            env = " ".join(f"{k}={v}" for k, v in demo.profile_environment().items())
            lines += [f"{env} \\", f"  uvx mcp-proxy-for-aws@{PROXY_VERSION} {demo.url} --service execute-api "
                      f"--region {demo.account.region} --profile demo-{caller.name}"]
        else:
            lines.append(f"Authorization: Bearer {demo.token(caller)}")  # once: each is about 900 characters
        if demo.profiles is not None:
            lines.append(f"As {caller.name} against the same account: {profile_hint(demo.profiles, caller.name)}")
        lines.append("")
    lines.append(accounts_line(demo.account.account_id, hosted=True))
    if demo.auth_mode == "oidc":
        lines.append(f"Issuer: {demo.url.removesuffix('/mcp')} (JWKS and discovery under /.well-known/)")
    if metrics is not None:
        lines.append(f"Metrics: each request's EMF line (what CloudWatch would get) goes to {metrics}")
    lines.append("Press Ctrl+C to stop.")
    return "\n".join(lines)


@contextmanager
def metrics_to(path: Path) -> Iterator[None]:
    """The handler's EMF lines, which it writes to stdout as on Lambda (where CloudWatch reads them), into `path`
    (owner-only, a new one per start): the terminal keeps the banner and readable log lines."""
    with os.fdopen(open_private(path, os.O_WRONLY | os.O_TRUNC), "w", buffering=1, encoding="utf-8") as file, \
            redirect_stdout(file):
        yield


def serve(auth_mode: str, host: str, port: int, state: Path,
          access_token_lifetime: int = ACCESS_TOKEN_LIFETIME_SECONDS) -> None:
    """The hosted demo on `port`, its profiles and metrics in `state`, the instance's own folder."""
    metrics = state / "metrics.jsonl"
    with hosted_demo(auth_mode, host, port, state, access_token_lifetime) as demo, metrics_to(metrics):
        local_server.serve(demo.app, host, port, lambda: print(banner(demo, metrics), file=sys.stderr, flush=True))

