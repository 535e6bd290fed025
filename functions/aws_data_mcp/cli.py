"""Command line: `serve` (local HTTP), `stdio`, `invoke` (the Lambda handler on an API Gateway event file, no
Docker) and `check` (what a deployed stack will refuse, read with your credentials). The demo has its own:
`python -m aws_data_mcp_demo`."""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from aws_data_mcp.config import SettingError, Settings
from aws_data_mcp.private_files import SymlinkRefused
from aws_data_mcp.transport.local_server import PortUnavailable


def serve_http(settings: Settings, banner: str, about_data: str = "") -> None:
    """Serve once the port is ours: only then is the token file written and the banner printed."""
    from aws_data_mcp.app import create_http_app
    from aws_data_mcp.transport.local_server import serve

    def ready() -> None:
        if settings.local_token:
            from aws_data_mcp.transport.local_token import token_file, write_token_file

            write_token_file(token_file(settings.port), settings.local_token)
        print(banner, file=sys.stderr, flush=True)

    serve(create_http_app(settings, about_data), settings.host, settings.port, ready)


def serve_stdio(settings: Settings, about_data: str = "") -> None:
    import anyio

    from aws_data_mcp.app import create_server
    from aws_data_mcp.transport import stdio

    anyio.run(stdio.serve, create_server(settings, about_data))


def client_configurations(url: str, token: str | None, stdio_args: list[str], stdio_env: dict[str, str],
                          python: str = sys.executable, module: str = "aws_data_mcp") -> dict[str, Any]:
    """Ready-to-paste configuration for the common MCP clients: HTTP ones with the token's header, if any. The
    banners print it; docs/local.md's client table is it with placeholders (`client_table`)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    remote: dict[str, Any] = {"url": url, **({"headers": headers} if headers else {})}
    claude_code = f"claude mcp add --transport http aws-data-mcp {url}"
    if token:
        claude_code += f' --header "Authorization: Bearer {token}"'
    stdio: dict[str, Any] = {"command": python, "args": ["-m", module, "stdio", *stdio_args]}
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


NO_TOKEN_WARNING = ("WARNING: --no-token: any user or process on this machine can call this server and read AWS "
                    "as you. Use it only on a single-user machine.")


def other_port(make_target: str, port: int) -> str:
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
    from aws_data_mcp.handler import lambda_handler
    from aws_data_mcp.transport.lambda_context import LocalLambdaContext

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


def add_listen_arguments(command: argparse.ArgumentParser) -> None:
    """--host and --port, for `serve` and the demo's command alike."""
    command.add_argument("--host", default=None, help="loopback interface to bind: 127.0.0.1 (default), localhost "
                         "or ::1; the server acts as you, so it never listens beyond this machine")
    command.add_argument("--port", type=int, default=None, help="port (default 8000)")


def listen_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings --host and --port override, where given."""
    return {key: value for key in ("host", "port") if (value := getattr(args, key, None)) is not None}


def _check(stack: str | None, roles: tuple[str, ...], as_json: bool) -> bool:
    """Print the findings; True when any fails."""
    import boto3

    from aws_data_mcp.check.report import render, run_checks
    from aws_data_mcp.check.target import Target, stack_target

    settings = Settings.from_env(default_mode="local")
    session = boto3.Session(region_name=settings.region)
    target = stack_target(session, stack, settings, roles) if stack else Target(settings, "local", caller_roles=roles)
    findings = run_checks(session, target)
    print(render(findings, as_json))
    return any(finding.verdict == "fail" for finding in findings)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="aws-data-mcp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve /mcp over HTTP on 127.0.0.1 with your AWS credentials")
    add_listen_arguments(serve)
    serve.add_argument("--no-token", action="store_true", help="serve without an access token: any local user or "
                       "process may then read AWS as you (single-user machines only)")
    commands.add_parser("stdio", help="serve MCP over stdin/stdout (desktop clients)")
    invoke = commands.add_parser("invoke", help="run the Lambda handler on an API Gateway event file")
    invoke.add_argument("event", type=Path)
    check = commands.add_parser("check", help="what a deployed stack (or the local setup) will refuse, for whom, "
                                "and the fix; read-only, with your credentials")
    check.add_argument("--stack", help="the stack's name (default: the local settings from this environment)")
    check.add_argument("--role", action="append", default=[], metavar="ARN",
                       help="iam mode: a caller role to check beside the role map's (repeatable)")
    check.add_argument("--json", action="store_true", help="findings as JSON")
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
    if args.command == "check":
        try:
            failed = _check(args.stack, tuple(args.role), args.json)
        except SettingError as refused:
            parser.exit(2, f"aws-data-mcp: error: {refused}\n")
        parser.exit(1 if failed else 0)
    if args.command == "invoke":
        try:
            response = _invoke(args.event)
        except SettingError as refused:  # raised by the handler's import, which reads the settings
            parser.exit(2, f"aws-data-mcp: error: {refused}\n")
        print(json.dumps(response, indent=2))
        return
    try:
        settings = dataclasses.replace(Settings.from_env(default_mode="local"), **listen_overrides(args))
        if args.command == "serve":
            token = _local_token(settings, wanted=not args.no_token)
            settings = dataclasses.replace(settings, local_token=token or "")
            serve_http(settings, _serve_banner(settings, token))
        else:
            serve_stdio(settings)
    except PortUnavailable as refused:
        parser.exit(2, f"aws-data-mcp: error: {refused} {other_port(args.command, refused.port)}\n")
    except (SettingError, SymlinkRefused) as refused:
        parser.exit(2, f"aws-data-mcp: error: {refused}\n")
