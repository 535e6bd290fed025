"""Live updates: telling clients that a resource, or the resource list, changed.

Served where a client's connection stays open: stdio, and local HTTP, which serves 2025-11-25 with sessions for
it. Lambda serves 2025-11-25 statelessly (any container may answer) and buffers responses, so no session there
could receive them and none are advertised. 2026-07-28 clients listen on `subscriptions/listen` (the SDK's bus);
2025-11-25 clients `resources/subscribe`, and every one that has spoken hears of list changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from weakref import WeakSet

import anyio
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp_types import (
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from aws_data_mcp.errors import ErrorCode, ResourceFailure
from aws_data_mcp.reading.reader import ResourceReader
from aws_data_mcp.server.answers import protocol_error
from aws_data_mcp.server.sdk_adapter import SdkServer, client_connection

SUBSCRIBED = "aws_data_mcp.subscribed"
"""Key in a client connection's state: the URIs it subscribed to (2025-11-25 resources/subscribe)."""


class LiveUpdates:
    def __init__(self, server: SdkServer, reader: ResourceReader) -> None:
        self.server = server
        self.reader = reader
        self._legacy_connections: WeakSet[Connection] = WeakSet()
        """2025-11-25 clients that may hear of changes; each keeps the URIs it subscribed to in its own state."""

    @property
    def served(self) -> bool:
        return self.server.serves("subscriptions/listen")

    def serve(self) -> None:
        """Serve change notifications: `resources/subscribe` and `unsubscribe` (2025-11-25) and
        `subscriptions/listen` (2026-07-28). Only for a transport that keeps a client's connection open to
        carry them (stdio, local HTTP); what is registered here is what the server's capabilities advertise."""
        self.server.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
        self.server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe)
        self.server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams,
                                        self.server.listen_handler())
        if self._remember_legacy_clients not in self.server.middleware:
            self.server.middleware.append(self._remember_legacy_clients)

    async def _remember_legacy_clients(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Every 2025-11-25 client that has spoken hears of list changes, subscribed to anything or not."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self._legacy_client(ctx)
        return await call_next(ctx)

    def _subscribable(self, uri: str) -> str:
        """`uri` as reads canonicalise it; one this server does not serve is refused as a read of it would be."""
        try:
            self.reader.resolve(uri)
        except ResourceFailure as failure:
            raise protocol_error(failure) from None
        return self.reader.canonical(uri)

    def _legacy_client(self, ctx: ServerRequestContext[Any, Any]) -> Connection:
        """The client connection behind a 2025-11-25 request, remembered so later changes reach it."""
        connection = client_connection(ctx)
        self._legacy_connections.add(connection)
        return connection

    async def _subscribe(self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        uri = self._subscribable(params.uri)
        client = self._legacy_client(ctx)
        if ctx.request is not None and client.session_id is None:  # HTTP without a session: nowhere to notify
            raise protocol_error(ResourceFailure(
                ErrorCode.INVALID_ARGUMENT, "resources/subscribe needs a session to carry its notifications",
                details=["Send initialize first, then this request with the Mcp-Session-Id header it returned."]))
        client.state.setdefault(SUBSCRIBED, set()).add(uri)
        return EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        self._legacy_client(ctx).state.setdefault(SUBSCRIBED, set()).discard(self.reader.canonical(params.uri))
        return EmptyResult()

    async def announce(self, uris: Sequence[str], *, lists_change: bool = False) -> None:
        """Tell listeners that `uris` changed, and on a create or delete that the resource list did, where live
        updates are served: `subscriptions/listen` streams through the SDK's bus (2026-07-28), and every known
        2025-11-25 session (stdio's one client; each local HTTP session), `updated` only for the URIs it
        subscribed to."""
        if not self.served:
            return
        for uri in uris:
            await self.server.publish(ResourceUpdated(uri=uri))
        if lists_change:
            await self.server.publish(ResourcesListChanged())
        for connection in list(self._legacy_connections):
            try:
                for uri in connection.state.get(SUBSCRIBED, set()).intersection(uris):
                    await connection.send_resource_updated(uri)
                if lists_change:
                    await connection.send_resource_list_changed()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._legacy_connections.discard(connection)  # its client went away
