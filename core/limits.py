"""Limits shared by every web process through Redis: the request rate and today's send counts, one of
which a request about to send makes in the round trip that reads the settings generation."""
from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Collection

import redis

from core.counters import Counter, client, count, namespaced, settings_generation, settings_generation_counting
from models import cache
from pipeline import daily_limits
from pipeline.errors import RateLimitError, TooManyRequestsError

RATE_WINDOW_SECONDS = 60
DAILY_KEY_TTL_SECONDS = daily_limits.DAILY_KEY_TTL_SECONDS

log = logging.getLogger(__name__)


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
    """Fixed 60-second windows per service and key type, counted in Redis for every web process.

    Each process takes tokens from the window's Redis counter in leases (see lease_size) and hands
    them out itself, so most requests make no round trip. More than the limit is never accepted;
    once it is reached, a process refuses without asking Redis until the next window.
    """
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
        raise RateLimitError(
            f"Exceeded rate limit for key type {key_type} of {limit} requests per {RATE_WINDOW_SECONDS} seconds"
        )


def daily_counter(service_id: object, kind: str) -> Counter:
    """One send against today's limit of kind, as count() takes it."""
    return daily_limits.daily_key(service_id, kind, daily_limits.today()), DAILY_KEY_TTL_SECONDS, 1


def reserve_daily(service_id: object, limits: dict[str, int], ahead: CountedAhead | None = None) -> list[str]:
    """Count one send against each of today's limits named (e.g. sms and international_sms).

    ahead: a count of this send made before it ran (see observe_settings); reserve_daily takes it
    for its kind instead of counting that kind again.
    Raises TooManyRequestsError, counting nothing, when any would be exceeded; returns the keys
    counted so a send that fails afterwards can give them back.
    """
    reached = {} if ahead is None else ahead.take(service_id, limits)
    missing = [kind for kind in limits if kind not in reached]
    if missing:
        counters = [daily_counter(service_id, kind) for kind in missing]
        for kind, counter, value in zip(missing, counters, count(*counters), strict=True):
            reached[kind] = (counter[0], value)
    keys = [reached[kind][0] for kind in limits]
    for kind in limits:
        if reached[kind][1] > limits[kind]:
            release_daily(keys)
            raise TooManyRequestsError(daily_limits.limit_message(kind, limits[kind]))
    return keys


def release_daily(keys: list[str]) -> None:
    if keys:
        pipe = client().pipeline(transaction=False)
        for key in keys:
            pipe.decr(key)
        pipe.execute()


def release_daily_of(service_id: object, kinds: tuple[str, ...], counted_on: datetime.date) -> None:
    """Give back one send counted on that day against each limit named (a cancelled message). Only
    today's counts limit anything; an older day's key may have expired, and a DECR would make it anew
    without an expiry, so those are left alone."""
    if counted_on == datetime.datetime.now(datetime.UTC).date():
        release_daily([daily_limits.daily_key(service_id, kind, f"{counted_on:%Y-%m-%d}") for kind in kinds])


class CountedAhead:
    """One send counted against today's limit of a kind before the send ran: a web request that is
    about to send counts it in the round trip that reads the settings generation (observe_settings)
    instead of one of its own. Whoever holds it either hands it to the send (reserve_daily takes it)
    or gives it back, once, when no send took it (the request failed, or replayed an earlier answer).
    """

    __slots__ = ("service_id", "kind", "key", "value", "_open")

    def __init__(self, service_id: object, kind: str, key: str, value: int) -> None:
        self.service_id, self.kind, self.key, self.value = service_id, kind, key, value
        self._open = True

    def take(self, service_id: object, kinds: Collection[str]) -> dict[str, tuple[str, int]]:
        """{kind: (key, value reached)} when this counts a send of service_id against one of kinds and
        is still open; the taker now owns the count. Otherwise nothing."""
        if not self._open or self.service_id != service_id or self.kind not in kinds:
            return {}
        self._open = False
        return {self.kind: (self.key, self.value)}

    def give_back(self) -> None:
        """Give the count back unless it was taken or given back already."""
        if not self._open:
            return
        self._open = False
        try:
            release_daily([self.key])
        except redis.RedisError:
            log.warning("could not give back a daily count of service %s (Redis unavailable)", self.service_id)


def observe_settings(send: tuple[object, str] | None = None) -> CountedAhead | None:
    """Read the settings generation for models.cache: entries cached before the latest settings
    change are not used by this request. With send (a service id and a kind), that send is counted
    against today's limit of its kind in the same round trip; the count is returned for the send to
    take. Nothing when Redis cannot be asked: the cache's TTL bounds what the request may see, and
    Redis's outage is the limits' to report."""
    try:
        if send is None:
            generation, ahead = settings_generation(), None
        else:
            service_id, kind = send
            counter = daily_counter(service_id, kind)
            generation, (value,) = settings_generation_counting(counter)
            ahead = CountedAhead(service_id, kind, counter[0], value)
    except redis.RedisError:
        return None
    cache.observe(generation)
    return ahead
