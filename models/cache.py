"""A short-lived in-process cache for the rows every send reads: service, keys, templates, senders.

Entries live CACHE_TTL_SECONDS (default 2 s, as GOV.UK Notify caches its serialised services), so a
settings change or a revoked key takes effect everywhere within that time without a query per
request on the hot path. Writes through the admin API clear this process's cache at once.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Hashable, TypeVar

from config import get_settings

T = TypeVar("T")
MAX_ENTRIES = 10_000

_entries: dict[Hashable, tuple[float, object]] = {}
_lock = threading.Lock()


def cached(key: Hashable, load: Callable[[], T]) -> T:
    ttl = get_settings().cache_ttl_seconds
    if ttl <= 0:
        return load()
    now = time.monotonic()
    hit = _entries.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]  # type: ignore[return-value]
    value = load()
    with _lock:
        if len(_entries) >= MAX_ENTRIES:
            _entries.clear()
        _entries[key] = (now + ttl, value)
    return value


def clear() -> None:
    with _lock:
        _entries.clear()
