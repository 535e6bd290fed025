"""An HTTP transport for the SDK client that knows when every POST it sent has been answered in full, so a test can
close its client only then (an answer arriving while the client closes breaks the SDK client's own streams)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import anyio
import httpx2


class _Counted(httpx2.AsyncByteStream):
    """A response body that reports when it has been closed (read to the end, or given up)."""

    def __init__(self, inner: httpx2.AsyncByteStream, on_close: Callable[[], None]) -> None:
        self._inner = inner
        self._on_close = on_close

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._on_close()


class AnsweredPosts(httpx2.AsyncBaseTransport):
    """Counts the POSTs whose answers are not yet read in full; `settled()` waits until there are none."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self.open = 0

    def _closed(self) -> None:
        self.open -= 1

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST":
            return await self._inner.handle_async_request(request)
        self.open += 1
        try:
            response = await self._inner.handle_async_request(request)
        except BaseException:
            self._closed()
            raise
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                               stream=_Counted(response.stream, self._closed))

    async def settled(self, within: float = 30) -> None:
        with anyio.fail_after(within):
            while self.open:
                await anyio.sleep(0.05)
        await anyio.sleep(0)  # the client hands the last answer on right after reading it

    async def aclose(self) -> None:
        await self._inner.aclose()


def client_over(transport: AnsweredPosts) -> httpx2.AsyncClient:
    """An httpx client for `streamable_http_client` over `transport`, with the SDK's own timeouts."""
    return httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(30, read=300))
