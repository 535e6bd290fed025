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

from aws_data_mcp.config import Settings


def _serve_http(settings: Settings) -> None:
    import uvicorn

    from aws_data_mcp.app import create_http_app

    uvicorn.run(create_http_app(settings), host=settings.host, port=settings.port, lifespan="off",
                log_level="warning")


def _serve_stdio(settings: Settings) -> None:
    from aws_data_mcp.app import create_server

    create_server(settings).run("stdio")


@contextmanager
def _demo_account() -> Iterator[Any]:
    """Start the embedded emulated account and act as its demo caller for the rest of the process."""
    from aws_data_mcp.demo import DemoAccount
    from aws_data_mcp.identity import local_chain

    with DemoAccount() as account:
        demo_environment = account.merged_environment(os.environ)  # drops a shell's own AWS_SESSION_TOKEN etc.
        os.environ.clear()
        os.environ.update(demo_environment)
        local_chain.reset()
        yield account


def client_configurations(url: str, python: str) -> dict[str, Any]:
    """Ready-to-paste configuration for the common MCP clients."""
    return {
        "Claude Desktop (claude_desktop_config.json, stdio)": {
            "mcpServers": {"aws-data-mcp": {"command": python, "args": ["-m", "aws_data_mcp", "stdio", "--demo"]}}
        },
        "Claude Code": f"claude mcp add --transport http aws-data-mcp {url}",
        "Kiro (.kiro/settings/mcp.json)": {"mcpServers": {"aws-data-mcp": {"url": url}}},
        "Cursor (~/.cursor/mcp.json)": {"mcpServers": {"aws-data-mcp": {"url": url}}},
    }


def _print_banner(settings: Settings, inventory: Any) -> None:
    url = f"http://{settings.host}:{settings.port}/mcp"
    lines = [f"aws-data-mcp demo: serving {url} against an emulated AWS account", ""]
    lines += [f"Seeded data lake: {inventory}", ""]
    for client, config in client_configurations(url, sys.executable).items():
        text = config if isinstance(config, str) else json.dumps(config, indent=2)
        lines += [f"== {client} ==", text, ""]
    lines.append("Press Ctrl+C to stop.")
    print("\n".join(lines), file=sys.stderr, flush=True)


def _invoke(event_file: Path) -> dict[str, Any]:
    """Run the real Lambda handler on one event and return its response with the body decoded."""
    os.environ["AWS_DATA_MCP_MODE"] = "lambda"  # the same code path as on Lambda, whatever the shell says
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


@dataclasses.dataclass
class LocalLambdaContext:
    """The fields of a Lambda context object that Powertools and Mangum read."""

    function_name: str = "aws-data-mcp-local"
    function_version: str = "$LATEST"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:000000000000:function:aws-data-mcp-local"
    memory_limit_in_mb: int = 1024
    aws_request_id: str = "local-invoke"
    log_group_name: str = "/aws/lambda/aws-data-mcp-local"
    log_stream_name: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


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
    demo.add_argument("--auth", choices=("iam", "oidc"), default=None,
                      help="serve the hosted path instead: a local API Gateway front (SigV4 or JWT) before the "
                      "Lambda handler, which acts as each demo caller through STS")
    stdio = commands.add_parser("stdio", help="serve MCP over stdin/stdout (desktop clients)")
    stdio.add_argument("--demo", action="store_true", help="against the embedded emulated AWS account")
    invoke = commands.add_parser("invoke", help="run the Lambda handler on an API Gateway event file")
    invoke.add_argument("event", type=Path)
    table = commands.add_parser("resource-table", help="print the README's resource table from the live registry")
    table.add_argument("--update", type=Path, metavar="README", help="rewrite the table in this file instead")
    args = parser.parse_args(argv)

    if args.command == "resource-table":
        from aws_data_mcp.resources import registry

        if args.update is None:
            print(registry.markdown_table(), end="")
        else:
            _update_between_markers(args.update, "resource-table", registry.markdown_table())
        return
    if args.command == "invoke":
        print(json.dumps(_invoke(args.event), indent=2))
        return
    if args.command == "demo" and args.auth:
        from aws_data_mcp.demo.hosted_front import serve, state_directory

        serve(args.auth, args.host or "127.0.0.1", args.port or 8000, state_directory())
        return
    demo_mode = args.command == "demo" or getattr(args, "demo", False)
    settings = Settings.from_env(default_mode="demo" if demo_mode else "local")
    overrides = {k: v for k, v in (("host", getattr(args, "host", None)), ("port", getattr(args, "port", None)))
                 if v is not None}
    try:
        settings = dataclasses.replace(settings, **overrides)
    except ValueError as refused:
        parser.error(str(refused))
    if args.command == "serve":
        _serve_http(settings)
    elif args.command == "stdio" and not demo_mode:
        _serve_stdio(settings)
    else:
        with _demo_account() as account:
            if args.command == "demo":
                _print_banner(settings, account.inventory)
                _serve_http(settings)
            else:
                _serve_stdio(settings)
