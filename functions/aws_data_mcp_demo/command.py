"""`python -m aws_data_mcp_demo`: the server against the emulated account, over HTTP (default) or stdio, or the
hosted path (`--auth iam|oidc`: a local API Gateway front before the real Lambda handler)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aws_data_mcp.cli import (
    add_listen_arguments,
    banner,
    client_configurations,
    listen_overrides,
    other_port,
    serve_http,
    serve_stdio,
)
from aws_data_mcp.config import SettingError, Settings, state_directory
from aws_data_mcp.identity.resolve import local_chain
from aws_data_mcp.private_files import SymlinkRefused
from aws_data_mcp.transport.local_server import PortUnavailable

DEMO_PROFILE = "analyst"
"""The plain demo's caller's profile is demo-analyst (the demo-analyst user)."""

MODULE = "aws_data_mcp_demo"

DEMO_QUESTION = ("Ask your agent: \"Which sales channel had the most returned orders in the first week of January "
                 "2026, and what did the query cost?\" (athena_query runs it over sales.orders, 250,000 rows, in "
                 "the analytics workgroup, whose 10 MB cutoff Athena enforces: a full scan is refused).")

STDIO_DEMO_READY = ("aws_data_mcp_demo stdio: ready, serving MCP on stdin/stdout against an emulated AWS account "
                    "(an MCP client starts this command; Ctrl+C stops it).")


@contextmanager
def demo_account(profiles: Path) -> Iterator[Any]:
    """Start the emulated account and act as its demo caller for the rest of the process; the caller's AWS
    profile (``demo-analyst``, with the account's endpoint) is written in `profiles`."""
    from aws_data_mcp_demo.account.emulated import DemoAccount
    from aws_data_mcp_demo.account.profiles import ProfileKeys, write_profiles

    with DemoAccount() as account:
        demo_environment = account.merged_environment(os.environ)  # drops a shell's own AWS_SESSION_TOKEN etc.
        os.environ.clear()
        os.environ.update(demo_environment)
        local_chain.reset()
        keys = ProfileKeys(demo_environment["AWS_ACCESS_KEY_ID"], demo_environment["AWS_SECRET_ACCESS_KEY"])
        write_profiles(profiles, account.region, account.endpoint_url, {DEMO_PROFILE: keys})
        yield account


def with_demo_settings(settings: Settings, home_id: str) -> Settings:
    """The demo's query workgroups and accounts (home, lake, sandbox, each reached through the demo caller's role
    there), unless AWS_DATA_MCP_QUERY_WORKGROUPS or AWS_DATA_MCP_ACCOUNTS name others."""
    from aws_data_mcp_demo.account.members import LOCAL_ROLE, demo_accounts
    from aws_data_mcp_demo.account.seed_data import QUERY_WORKGROUPS

    if not settings.query_workgroups:
        settings = dataclasses.replace(settings, query_workgroups=QUERY_WORKGROUPS)
    if settings.accounts:
        return settings
    return dataclasses.replace(settings, accounts=demo_accounts(home_id), account_role=LOCAL_ROLE)


def _profile_note(profiles: Path) -> str:
    from aws_data_mcp_demo.account.profiles import profile_hint

    return f"Check any answer as the demo caller against the same account: {profile_hint(profiles, DEMO_PROFILE)}"


def _demo_banner(settings: Settings, inventory: Any, token_ignored: bool, profiles: Path) -> str:
    from aws_data_mcp_demo.account.members import accounts_line

    url = f"http://{settings.host}:{settings.port}/mcp"
    notes = [f"Seeded data lake: {inventory}", "No access token: the demo serves only the emulated account, "
             "never your credentials (`serve` asks for one).", DEMO_QUESTION, _profile_note(profiles),
             accounts_line(inventory.account_id)]
    if token_ignored:
        notes.append("AWS_DATA_MCP_TOKEN is set and ignored: the demo takes no token.")
    return banner(f"aws-data-mcp demo: serving {url} against an emulated AWS account", notes,
                  client_configurations(url, None, [], {}, module=MODULE))


def instance_directory(state: Path, mode: str, port: int | None) -> Path:
    """This instance's own folder under `state`: its profiles (and metrics) name its emulator's endpoint, so two
    demos side by side (two ports, or two stdio clients) never overwrite each other's and each banner's check
    command reaches its own account. Over HTTP it is the port's (`demo-8000`, `demo-oidc-8000`); over stdio, which
    has none, the process's (`demo-stdio-<pid>`)."""
    return state / (f"{mode}-{port}" if port is not None else f"{mode}-stdio-{os.getpid()}")


def _serve(transport: str, settings: Settings) -> None:
    from aws_data_mcp_demo.account.seed_data import DEMO_DATA_STORY

    profiles = instance_directory(state_directory(), "demo", settings.port if transport == "http" else None)
    with demo_account(profiles) as account:
        settings = with_demo_settings(settings, account.account_id)
        if transport == "http":
            # The demo is documented and printed as tokenless: a token from the shell would 401 its clients.
            demo = dataclasses.replace(settings, local_token="")
            serve_http(demo, _demo_banner(demo, account.inventory, bool(settings.local_token), profiles),
                       DEMO_DATA_STORY)
        else:  # stdout is the protocol's
            print(f"{STDIO_DEMO_READY}\n{_profile_note(profiles)}", file=sys.stderr, flush=True)
            serve_stdio(settings, DEMO_DATA_STORY)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__)
    parser.add_argument("transport", nargs="?", choices=("http", "stdio"), default="http",
                        help="http (default): serve /mcp on 127.0.0.1; stdio: for clients that start the server")
    add_listen_arguments(parser)
    parser.add_argument("--auth", choices=("iam", "oidc"), default=None,
                        help="serve the hosted path instead: a local API Gateway front (SigV4 or JWT) before the "
                        "Lambda handler, which acts as each demo caller through STS")
    args = parser.parse_args(argv)
    try:
        if args.auth:
            from aws_data_mcp_demo.front.hosted import serve

            port = args.port or 8000
            serve(args.auth, args.host or "127.0.0.1", port,
                  instance_directory(state_directory(), f"demo-{args.auth}", port))
            return
        settings = dataclasses.replace(Settings.from_env(default_mode="demo"), **listen_overrides(args))
        _serve(args.transport, settings)
    except PortUnavailable as refused:
        target = f"demo-{args.auth}" if args.auth else "demo"
        parser.exit(2, f"{MODULE}: error: {refused} {other_port(target, refused.port)}\n")
    except (SettingError, SymlinkRefused) as refused:
        parser.exit(2, f"{MODULE}: error: {refused}\n")
