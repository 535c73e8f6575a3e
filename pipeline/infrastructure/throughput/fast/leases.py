"""The request rate limit, counted in Redis for every web process, with tokens leased per process."""
from __future__ import annotations

import threading
import time

from pipeline.infrastructure.redis_state import namespaced
from pipeline.infrastructure.throughput import RATE_WINDOW_SECONDS, rate_limit_refusal
from pipeline.infrastructure.throughput.fast.counters import count


class _Lease:
    """Rate-limit tokens numbered next..last of one window, taken from Redis in one go."""

    __slots__ = ("window", "limit", "next", "last", "used_up")

    def __init__(self, window: int, limit: int, first: int, last: int) -> None:
        self.window, self.limit, self.next, self.last = window, limit, first, last
        # Counters only grow within a window: once one lease came back empty, all will.
        self.used_up = first > last


_leases: dict[tuple[object, str], _Lease] = {}
_leases_lock = threading.Lock()
# One lease taken from Redis at a time per service and key type: requests that found the lease
# spent together would each take one and keep only the last, losing the others' tokens.
_lease_takers: dict[tuple[object, str], threading.Lock] = {}
LEASE_MAX = 100


def lease_size(limit: int) -> int:
    """Tokens a process takes at once: a hundredth of the limit, so at most that many per process
    go unused when a window closes, and 1 below 200, where every request counts in Redis."""
    return max(1, min(LEASE_MAX, limit // 100))


def _local_token(key: tuple[object, str], window: int, limit: int) -> bool | None:
    """True: a token of this process's lease; False: the window is used up; None: ask Redis."""
    with _leases_lock:
        lease = _leases.get(key)
        if lease is None or lease.window != window or lease.limit != limit:
            return None  # a changed limit counts from this request: a lease of the old one is dropped
        if lease.used_up:
            return False
        if lease.next > lease.last:
            return None
        lease.next += 1
        return True


def _take_lease(lease_key: tuple[object, str], window: int, limit: int) -> bool:
    """Take the next lease of the window from Redis; whether it holds a token for this request."""
    service_id, key_type = lease_key
    size = lease_size(limit)
    reached = count((namespaced("rate", service_id, key_type, window), RATE_WINDOW_SECONDS * 2, size))[0]
    lease = _Lease(window, limit, reached - size + 1, min(reached, limit))
    allowed = not lease.used_up
    lease.next += allowed  # this request's token
    with _leases_lock:
        _leases[lease_key] = lease
    return allowed


def check_rate_limit(service_id: object, key_type: str, limit: int) -> None:
    """Each process takes tokens from the window's Redis counter in leases (see lease_size) and hands
    them out itself, so most requests make no round trip. More than the limit is never accepted;
    once it is reached, a process refuses without asking Redis until the next window."""
    window = int(time.time()) // RATE_WINDOW_SECONDS
    lease_key = (service_id, key_type)
    allowed = _local_token(lease_key, window, limit)
    if allowed is None:
        with _leases_lock:
            taker = _lease_takers.setdefault(lease_key, threading.Lock())
        with taker:
            allowed = _local_token(lease_key, window, limit)  # a request just before this one may have taken one
            if allowed is None:
                allowed = _take_lease(lease_key, window, limit)
    if not allowed:
        raise rate_limit_refusal(key_type, limit)
