"""Command line: `serve` (local HTTP), `stdio`, `demo` (local HTTP against an emulated account) and
`invoke` (run the Lambda handler on an API Gateway event file, no Docker)."""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from aws_data_mcp.config import SettingError, Settings, state_directory
from aws_data_mcp.private_files import SymlinkRefused
from aws_data_mcp.transport.local_server import PortUnavailable


def _serve_http(settings: Settings, banner: str, about_data: str = "") -> None:
    """Serve once the port is ours: only then is the token file written and the banner printed."""
    from aws_data_mcp.app import create_http_app
    from aws_data_mcp.transport.local_server import serve

    def ready() -> None:
        if settings.local_token:
            from aws_data_mcp.transport.local_token import token_file, write_token_file

            write_token_file(token_file(settings.port), settings.local_token)
        print(banner, file=sys.stderr, flush=True)

    serve(create_http_app(settings, about_data), settings.host, settings.port, ready)


def _serve_stdio(settings: Settings, about_data: str = "") -> None:
    from aws_data_mcp.app import create_server

    create_server(settings, about_data).run("stdio")


@contextmanager
def _demo_account(profiles: Path) -> Iterator[Any]:
    """Start the embedded emulated account and act as its demo caller for the rest of the process; the caller's AWS
    profile (``demo-analyst``, with the account's endpoint) is written in `profiles`."""
    from aws_data_mcp.demo.account import DemoAccount
    from aws_data_mcp.demo.profiles import ProfileKeys, write_profiles
    from aws_data_mcp.identity import local_chain

    with DemoAccount() as account:
        demo_environment = account.merged_environment(os.environ)  # drops a shell's own AWS_SESSION_TOKEN etc.
        os.environ.clear()
        os.environ.update(demo_environment)
        local_chain.reset()
        keys = ProfileKeys(demo_environment["AWS_ACCESS_KEY_ID"], demo_environment["AWS_SECRET_ACCESS_KEY"])
        write_profiles(profiles, account.region, account.endpoint_url, {DEMO_PROFILE: keys})
        yield account


DEMO_PROFILE = "analyst"
"""The plain demo's caller's profile is demo-analyst (the demo-analyst user)."""


def _with_demo_workgroups(settings: Settings) -> Settings:
    """The demo's workgroups for athena_query, unless AWS_DATA_MCP_QUERY_WORKGROUPS names others."""
    from aws_data_mcp.demo.seed_data import QUERY_WORKGROUPS

    return settings if settings.query_workgroups else dataclasses.replace(settings, query_workgroups=QUERY_WORKGROUPS)


def _with_demo_accounts(settings: Settings, home_id: str) -> Settings:
    """The demo's accounts (home, lake, sandbox; the demo caller reaches each through its role there), unless
    AWS_DATA_MCP_ACCOUNTS names others."""
    from aws_data_mcp.demo.member_accounts import LOCAL_ROLE, demo_accounts

    return settings if settings.accounts else dataclasses.replace(settings, accounts=demo_accounts(home_id),
                                                                  account_role=LOCAL_ROLE)


def client_configurations(url: str, token: str | None, stdio_args: list[str], stdio_env: dict[str, str],
                          python: str = sys.executable) -> dict[str, Any]:
    """Ready-to-paste configuration for the common MCP clients: HTTP ones with the token's header, if any. The
    banners print it; docs/local.md's client table is it with placeholders (`client_table`)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    remote: dict[str, Any] = {"url": url, **({"headers": headers} if headers else {})}
    claude_code = f"claude mcp add --transport http aws-data-mcp {url}"
    if token:
        claude_code += f' --header "Authorization: Bearer {token}"'
    stdio: dict[str, Any] = {"command": python, "args": ["-m", "aws_data_mcp", "stdio", *stdio_args]}
    if stdio_env:
        stdio["env"] = stdio_env
    return {
        "Claude Desktop (claude_desktop_config.json, stdio: no token needed)": {"mcpServers": {"aws-data-mcp": stdio}},
        "Claude Code": claude_code,
        "Kiro (.kiro/settings/mcp.json)": {"mcpServers": {"aws-data-mcp": remote}},
        "Cursor (~/.cursor/mcp.json)": {"mcpServers": {"aws-data-mcp": remote}},
        "VS Code (.vscode/mcp.json)": {"servers": {"aws-data-mcp": {"type": "http", **remote}}},
    }


def banner(title: str, notes: list[str], configurations: dict[str, Any]) -> str:
    lines = [title, "", *notes, ""] if notes else [title, ""]
    for client, config in configurations.items():
        text = config if isinstance(config, str) else json.dumps(config, indent=2)
        lines += [f"== {client} ==", text, ""]
    lines.append("Press Ctrl+C to stop.")
    return "\n".join(lines)


def _serve_banner(settings: Settings, token: str | None) -> str:
    from aws_data_mcp.transport.local_token import token_file

    url = f"http://{settings.host}:{settings.port}/mcp"
    if token:
        lasting = ("It stays the same at every start: AWS_DATA_MCP_TOKEN sets it."
                   if os.environ.get("AWS_DATA_MCP_TOKEN") == token else
                   "It changes at every start unless AWS_DATA_MCP_TOKEN sets it.")
        notes = [f"Access token (also in {token_file(settings.port)}, readable by you only): {token}",
                 f"HTTP clients send it as: Authorization: Bearer <token>. {lasting}"]
    else:
        notes = [NO_TOKEN_WARNING]
    profile = {"AWS_PROFILE": os.environ["AWS_PROFILE"]} if os.environ.get("AWS_PROFILE") else \
        {"AWS_PROFILE": "<your profile>"}
    return banner(f"aws-data-mcp: serving {url} with your AWS credentials", notes,
                  client_configurations(url, token, [], profile))


DEMO_QUESTION = ("Ask your agent: \"Which sales channel had the most returned orders in the first week of January "
                 "2026, and what did the query cost?\" (athena_query runs it over sales.orders, 250,000 rows, in "
                 "the analytics workgroup, whose 10 MB cutoff Athena enforces: a full scan is refused).")




def _profile_note(profiles: Path) -> str:
    from aws_data_mcp.demo.profiles import profile_hint

    return f"Check any answer as the demo caller against the same account: {profile_hint(profiles, DEMO_PROFILE)}"


def _demo_banner(settings: Settings, inventory: Any, token_ignored: bool, profiles: Path) -> str:
    from aws_data_mcp.demo.member_accounts import accounts_line

    url = f"http://{settings.host}:{settings.port}/mcp"
    notes = [f"Seeded data lake: {inventory}", "No access token: the demo serves only the emulated account, "
             "never your credentials (`serve` asks for one).", DEMO_QUESTION, _profile_note(profiles),
             accounts_line(inventory.account_id)]
    if token_ignored:
        notes.append("AWS_DATA_MCP_TOKEN is set and ignored: the demo takes no token.")
    return banner(f"aws-data-mcp demo: serving {url} against an emulated AWS account", notes,
                  client_configurations(url, None, ["--demo"], {}))


STDIO_DEMO_READY = ("aws-data-mcp stdio --demo: ready, serving MCP on stdin/stdout against an emulated AWS account "
                    "(an MCP client starts this command; Ctrl+C stops it).")

NO_TOKEN_WARNING = ("WARNING: --no-token: any user or process on this machine can call this server and read AWS "
                    "as you. Use it only on a single-user machine.")


def _other_port(make_target: str, port: int) -> str:
    """How to choose another port, said both ways: most people started this through `make`, which takes PORT."""
    other = port + 1
    return f"Choose another port: make {make_target} PORT={other}, or --port {other}."


def _local_token(settings: Settings, wanted: bool) -> str | None:
    """The token `serve` asks for: AWS_DATA_MCP_TOKEN's, or a new one."""
    if not wanted:
        return None
    from aws_data_mcp.transport.local_token import new_token

    return settings.local_token or new_token()


def _invoke(event_file: Path) -> dict[str, Any]:
    """Run the real Lambda handler on one event and return its response with the body decoded."""
    os.environ["AWS_DATA_MCP_MODE"] = "lambda"  # the same code path as on Lambda, whatever the shell says
    from aws_data_mcp.demo.lambda_context import LocalLambdaContext
    from aws_data_mcp.handler import lambda_handler

    event = json.loads(event_file.read_text(encoding="utf-8"))
    with redirect_stdout(sys.stderr):  # EMF metric lines go to the log stream, not into the printed response
        response = lambda_handler(event, LocalLambdaContext())
    body = response.get("body") or ""
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode("utf-8", "replace")
    try:
        response["body"] = json.loads(body) if body else body
    except json.JSONDecodeError:
        response["body"] = body
    return response


DOC_TABLES = {"resource-table": "resource table, from the live registry",
              "settings-table": "settings table, from the settings the server reads",
              "client-table": "client configuration table, as `serve` prints it"}


def client_table() -> str:
    """What `serve` prints for each client, with placeholders for the token, the profile and the venv's path."""
    configurations = client_configurations("http://127.0.0.1:8000/mcp", "<token>", [], {"AWS_PROFILE": "analytics"},
                                           python="/abs/path/.venv/bin/python")
    rows = ["| client | configuration |", "|---|---|"]
    for client, config in configurations.items():
        rows.append(f"| {client} | `{config if isinstance(config, str) else json.dumps(config)}` |")
    return "\n".join(rows) + "\n"


def doc_table(name: str) -> str:
    """A generated docs table: the registry's resources and tools, every setting of config.py, or the client
    configurations."""
    if name == "client-table":
        return client_table()
    if name == "resource-table":
        from aws_data_mcp.resources import registry

        return registry.markdown_table()
    from aws_data_mcp.config import markdown_table

    return markdown_table()


def _update_between_markers(path: Path, name: str, text: str) -> None:
    """Replace what stands between `<!-- name:start -->` and `<!-- name:end -->` in a generated-docs file."""
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    document = path.read_text(encoding="utf-8")
    head, found, rest = document.partition(start)
    if not found or end not in rest:
        raise SystemExit(f"{path}: no {start.strip()} ... {end} markers")
    path.write_text(head + start + text + end + rest.split(end, 1)[1], encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="aws-data-mcp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve /mcp over HTTP on 127.0.0.1 with your AWS credentials")
    demo = commands.add_parser("demo", help="serve /mcp over HTTP against an embedded emulated AWS account")
    for command in (serve, demo):
        command.add_argument("--host", default=None, help="loopback interface to bind: 127.0.0.1 (default), "
                             "localhost or ::1; the server acts as you, so it never listens beyond this machine")
        command.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--no-token", action="store_true", help="serve without an access token: any local user or "
                       "process may then read AWS as you (single-user machines only)")
    demo.add_argument("--auth", choices=("iam", "oidc"), default=None,
                      help="serve the hosted path instead: a local API Gateway front (SigV4 or JWT) before the "
                      "Lambda handler, which acts as each demo caller through STS")
    stdio = commands.add_parser("stdio", help="serve MCP over stdin/stdout (desktop clients)")
    stdio.add_argument("--demo", action="store_true", help="against the embedded emulated AWS account")
    invoke = commands.add_parser("invoke", help="run the Lambda handler on an API Gateway event file")
    invoke.add_argument("event", type=Path)
    for name, what in DOC_TABLES.items():
        table = commands.add_parser(name, help=f"print the docs' {what}")
        table.add_argument("--update", type=Path, metavar="PAGE", help="rewrite the table in this page instead")
    args = parser.parse_args(argv)

    if args.command in DOC_TABLES:
        text = doc_table(args.command)
        if args.update is None:
            print(text, end="")
        else:
            _update_between_markers(args.update, args.command, text)
        return
    if args.command == "invoke":
        try:
            response = _invoke(args.event)
        except SettingError as refused:  # raised by the handler's import, which reads the settings
            parser.exit(2, f"aws-data-mcp: error: {refused}\n")
        print(json.dumps(response, indent=2))
        return
    if args.command == "demo" and args.auth:
        from aws_data_mcp.demo.hosted_front import serve

        try:
            serve(args.auth, args.host or "127.0.0.1", args.port or 8000, state_directory())
        except PortUnavailable as refused:
            parser.exit(2, f"aws-data-mcp: error: {refused} {_other_port(f'demo-{args.auth}', refused.port)}\n")
        return
    demo_mode = args.command == "demo" or getattr(args, "demo", False)
    overrides = {k: v for k, v in (("host", getattr(args, "host", None)), ("port", getattr(args, "port", None)))
                 if v is not None}
    try:
        settings = dataclasses.replace(Settings.from_env(default_mode="demo" if demo_mode else "local"), **overrides)
        if args.command == "serve":
            token = _local_token(settings, wanted=not args.no_token)
            settings = dataclasses.replace(settings, local_token=token or "")
            _serve_http(settings, _serve_banner(settings, token))
        elif args.command == "stdio" and not demo_mode:
            _serve_stdio(settings)
        else:
            profiles = state_directory() / ("demo" if args.command == "demo" else "demo-stdio")
            with _demo_account(profiles) as account:
                from aws_data_mcp.demo.seed_data import DEMO_DATA_STORY

                settings = _with_demo_accounts(_with_demo_workgroups(settings), account.account_id)
                if args.command == "demo":
                    # The demo is documented and printed as tokenless: a token from the shell would 401 its clients.
                    demo = dataclasses.replace(settings, local_token="")
                    _serve_http(demo, _demo_banner(demo, account.inventory, bool(settings.local_token), profiles),
                                DEMO_DATA_STORY)
                else:  # stdout is the protocol's
                    print(f"{STDIO_DEMO_READY}\n{_profile_note(profiles)}", file=sys.stderr, flush=True)
                    _serve_stdio(settings, DEMO_DATA_STORY)
    except PortUnavailable as refused:
        parser.exit(2, f"aws-data-mcp: error: {refused} {_other_port(args.command, refused.port)}\n")
    except (SettingError, SymlinkRefused) as refused:
        parser.exit(2, f"aws-data-mcp: error: {refused}\n")
