"""The local server's bound on how long a connection may take to deliver a request head (uvicorn, h11)."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with its keep-alive timer made a deadline for the whole request head.

    uvicorn arms that timer only after a response and cancels it on any byte received, so a connection that
    sends nothing, or a header line now and then, was held for ever: 100 of them (`MAX_CONNECTIONS`), opened
    by anyone on the machine without the token (checked only once headers parse), made every request 503.
    Here the timer is also armed when a connection opens and is cancelled only when a request head is
    complete (uvicorn's `handle_events` does that), so idle and slow-header connections close alike.
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        # As uvicorn's, without cancelling the timer: a byte of a request head is not the head.
        self.conn.receive_data(data)
        self.handle_events()
