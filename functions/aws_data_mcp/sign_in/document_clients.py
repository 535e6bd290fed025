"""One Cognito app client per Client ID Metadata Document URL, made when that client first signs in.

Cognito issues its own client IDs and names allow no `/`, so the app client's name holds a hash of
the URL. Anyone can publish a document, so the facade makes at most `max_clients` of them: past it,
a clear refusal."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from aws_data_mcp.sign_in.client_documents import MAX_CACHED_DOCUMENTS, ClientDocument
from aws_data_mcp.sign_in.registration import create_public_client

NAME_PREFIX = "mcp document "
"""Every app client made for a document, and only those, is named so: the cap counts them."""
DEFAULT_MAX_DOCUMENT_CLIENTS = 100
PAGE_SIZE = 60
"""ListUserPoolClients' largest page."""


class TooManyDocumentClients(Exception):
    """The pool already holds the app clients the operator allows for documents."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"this server already holds {limit} app clients made for client metadata documents "
            "(its limit, SignInDocumentClientLimit): ask its operator, or register the client "
            "instead"
        )


def client_name(url: str) -> str:
    """The app client's name for the document at `url`: the prefix and 40 hex digits of a SHA-256."""
    return NAME_PREFIX + hashlib.sha256(url.encode()).hexdigest()[:40]


@dataclass
class DocumentClients:
    """The pool's app clients for documents, found by name; the ones found are kept per container
    (bounded)."""

    cognito: Any
    user_pool_id: str
    max_clients: int = DEFAULT_MAX_DOCUMENT_CLIENTS
    _known: OrderedDict[str, str] = field(default_factory=OrderedDict, init=False)

    def _scan(self, name: str) -> tuple[list[str], int]:
        """The ids of the clients named `name` (sorted) and how many document clients the pool
        holds."""
        matches, count = [], 0
        pages = self.cognito.get_paginator("list_user_pool_clients").paginate(
            UserPoolId=self.user_pool_id, PaginationConfig={"PageSize": PAGE_SIZE}
        )
        for page in pages:
            for listed in page["UserPoolClients"]:
                count += listed["ClientName"].startswith(NAME_PREFIX)
                if listed["ClientName"] == name:
                    matches.append(listed["ClientId"])
        return sorted(matches), count

    def _remember(self, url: str, client_id: str) -> str:
        self._known[url] = client_id
        while len(self._known) > MAX_CACHED_DOCUMENTS:
            self._known.popitem(last=False)
        return client_id

    def find(self, url: str) -> str | None:
        """The app client made for `url`, or None if it never signed in here."""
        if url in self._known:
            return self._known[url]
        matches, _ = self._scan(client_name(url))
        return self._remember(url, matches[0]) if matches else None

    def ensure(
        self, document: ClientDocument, callback_urls: list[str], scopes: tuple[str, ...]
    ) -> str:
        """The app client for `document`, made now if there is none (Cognito's `ClientError`
        raised).

        Two first sign-ins at once may both make one: the lowest id is the one every container then
        picks."""
        if document.client_id in self._known:
            return self._known[document.client_id]
        name = client_name(document.client_id)
        matches, count = self._scan(name)
        if not matches:
            if count >= self.max_clients:
                raise TooManyDocumentClients(self.max_clients)
            created = create_public_client(
                self.cognito, self.user_pool_id, name, callback_urls, scopes
            )
            matches = self._scan(name)[0] or [created["ClientId"]]
        return self._remember(document.client_id, matches[0])
