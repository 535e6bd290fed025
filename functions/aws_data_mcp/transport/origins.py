"""A present `Origin` that is not listed is refused with 403 on /mcp, on Lambda as locally.

MCP's HTTP transport says servers MUST validate `Origin`. A web page's script sends one; other MCP
clients send none, and are never refused for it. Locally the SDK's DNS-rebinding protection checks
it too. Behind API Gateway that protection is off, as the Host is the gateway's. Without this check,
any page could call a hosted server with its visitor's token. The list: the local server's loopback
origins, and `AWS_DATA_MCP_ALLOWED_ORIGINS`.
"""

from __future__ import annotations

from mcp_types import INVALID_REQUEST
from starlette.types import Scope, Send

from aws_data_mcp.config import Settings
from aws_data_mcp.errors import echo
from aws_data_mcp.transport.json_errors import send_error

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def allowed_origins(settings: Settings) -> tuple[str, ...]:
    """Exact `Origin` values /mcp accepts: the local server's own addresses, then the operator's list."""
    own = () if settings.hosted else tuple(f"http://{name}:{settings.port}" for name in LOOPBACK_NAMES)
    return (*own, *settings.allowed_origins)


def refused_origin(scope: Scope, allowed: tuple[str, ...]) -> str | None:
    """The request's `Origin` when it is present and not in `allowed`; else None."""
    origin = next((value for name, value in scope.get("headers") or () if name.lower() == b"origin"), None)
    if origin is None:
        return None
    text = origin.decode("latin-1")
    return None if text in allowed else text


async def refuse_origin(send: Send, origin: str) -> None:
    await send_error(send, 403, INVALID_REQUEST, f"Forbidden: Origin {echo(origin, 100)!r} may not call this server "
                     "(AWS_DATA_MCP_ALLOWED_ORIGINS lists those that may)")
