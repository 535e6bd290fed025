"""uvicorn on a loopback port, for `serve` and the demos.

The port is bound and listening before anything is printed. So a busy port fails with one line, not
after a banner for a server that never started. A client that connects once the banner shows is
served. uvicorn's limits bound what clients hold open. There is a cap on connections
(`connection_cap`, a 503 beyond). Each request head has a few seconds (`head_deadline`). The app
bounds bodies (`limits`).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.types import ASGIApp

if TYPE_CHECKING:
    import uvicorn

MAX_CONNECTIONS = 100
"""Connections served at once (50 concurrent clients measured with zero errors); beyond, a JSON-RPC 503 with
Retry-After (`connection_cap`)."""
HEAD_SECONDS = 5.0
"""How long a connection may take to deliver a complete request head, from when it opens and from the end of
each response (so also how long an idle keep-alive connection is kept); then it is closed."""


class PortUnavailable(OSError):
    """The port cannot be bound; the message says which. The command line adds how to choose another."""

    def __init__(self, message: str, port: int) -> None:
        super().__init__(message)
        self.port = port


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Accepted sockets inherit IPPROTO_TCP, and asyncio sets TCP_NODELAY only on those: with protocol 0, Nagle
    # held every response after the first on a kept-alive connection for the client's delayed ACK (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait out TIME_WAIT
    try:
        sock.bind((host, port))
        sock.listen()  # from now on a client is queued, not refused: the banner printed next never precedes readiness
    except OSError as exc:
        sock.close()
        raise PortUnavailable(f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server there?)",
                              port) from None
    return sock


def server(app: ASGIApp) -> uvicorn.Server:
    """uvicorn for `app`, with the limits above; run it on a socket from `bind`."""
    import uvicorn  # only when serving: the CLI's other commands (invoke, the docs tables) never load it

    from aws_data_mcp.transport.connection_cap import CappedProtocol

    # log_config None: uvicorn's loggers keep the server's format (observability.configure), not uvicorn's own.
    config = uvicorn.Config(app, lifespan="off", log_level="warning", log_config=None,
                            http=CappedProtocol, limit_concurrency=MAX_CONNECTIONS,
                            timeout_keep_alive=HEAD_SECONDS)
    return uvicorn.Server(config)


def serve(app: ASGIApp, host: str, port: int, ready: Callable[[], None]) -> None:
    """Bind, call `ready` (write the token file, print the banner), then serve until interrupted."""
    sock = bind(host, port)
    ready()
    server(app).run(sockets=[sock])
