"""Resource results cached per (caller identity, URI) for a short TTL.

The key starts with the caller's identity digest, so nothing cached for one caller reaches another.
Documents the same for everyone are cached under their URI alone (`reader.py`). The cache is bounded
(least recently used out first) and thread-safe: reads run in worker threads. A result holding a
retryable per-item error is not stored, so retrying really retries.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextvars import ContextVar
from typing import Generic, TypeVar

V = TypeVar("V")
MAX_ENTRIES = 512

_transient: ContextVar[list[bool] | None] = ContextVar("aws_data_mcp_transient_result", default=None)


def mark_transient() -> None:
    """Called (from any fan-out worker of the computation) when part of the result may differ on a retry."""
    flag = _transient.get()
    if flag is not None:
        flag[0] = True


class ResultCache(Generic[V]):
    def __init__(self, ttl_seconds: float, max_entries: int = MAX_ENTRIES) -> None:
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.ttl_seconds > 0

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> tuple[V, float]:
        """The cached result for `key` if still fresh, else `compute()` (outside the lock), stored; with how many
        seconds it stays fresh here (0: not stored, a retry recomputes it)."""
        now = time.monotonic()
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] > now:
                self._entries.move_to_end(key)
                return found[1], found[0] - now
        flag = [False]
        token = _transient.set(flag)
        try:
            value = compute()
        finally:
            _transient.reset(token)
        if flag[0]:
            mark_transient()  # a result built on this one (recommendations on discover) is partial too
            return value, 0.0
        with self._lock:
            self._entries[key] = (time.monotonic() + self.ttl_seconds, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value, self.ttl_seconds

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
