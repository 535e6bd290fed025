"""A kept-alive local connection answers every request at once, not only its first.

With Nagle's algorithm on the server's side, each response after the first waited for the client's delayed
ACK (about 40 ms a request, 20 times a bare SDK app's time); `benchmarks/run.py --only http` times it."""

from __future__ import annotations

import socket

from aws_data_mcp.config import Settings
from support.servers import ServerThread, free_port


def test_the_server_side_of_every_connection_sends_without_waiting_for_acks() -> None:
    with ServerThread(Settings(mode="local", port=free_port())) as server, \
            socket.create_connection(("127.0.0.1", server.settings.port), timeout=10) as client:
        client.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.settings.port}\r\n\r\n".encode())
        assert client.recv(65536).startswith(b"HTTP/1.1 405 "), "served, and the connection is kept"
        accepted = [connection.transport.get_extra_info("socket")
                    for connection in list(server.server.server_state.connections)]
        assert len(accepted) == 1
        assert accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1, "Nagle's algorithm is off"
