"""Snapshot-safe keys for the SDK's sealed `requestState` (2026-07-28 input-required flows).

`MCPServer` otherwise generates its AES-GCM key with `os.urandom` at init. Under
SnapStart every execution environment is restored from one snapshot, so such a key
would be shared by all of them: security-relevant randomness must come after restore.
This codec is the SDK's own, keyed on first use instead of at init.
"""

from __future__ import annotations

import os
import threading

from mcp.server.request_state import AESGCMRequestStateCodec, RequestStateSecurity


class KeyedOnFirstUseCodec:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._codec: AESGCMRequestStateCodec | None = None

    def _keyed(self) -> AESGCMRequestStateCodec:
        with self._lock:
            if self._codec is None:
                self._codec = AESGCMRequestStateCodec([os.urandom(32)])
            return self._codec

    def seal(self, payload: bytes) -> str:
        return self._keyed().seal(payload)

    def unseal(self, token: str) -> bytes:
        return self._keyed().unseal(token)


def snapshot_safe_request_state() -> RequestStateSecurity:
    """Per-process keys, created after any snapshot. This server issues no requestState of its own."""
    return RequestStateSecurity(codec=KeyedOnFirstUseCodec())
