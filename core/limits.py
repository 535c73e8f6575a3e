"""Limits shared by every web process through Redis: the request rate and today's send counts."""
from __future__ import annotations

import datetime
import logging
import threading
import time

import redis

from core.counters import client, count, count_now, namespaced, settings_generation
from models import cache, settings_listener
from pipeline import daily_limits
from pipeline.errors import RateLimitError, Refusal, TooManyRequestsError

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
        raise RateLimitError(Refusal(
            "rate_limit_exceeded",
            f"Exceeded rate limit for key type {key_type} of {limit} requests per {RATE_WINDOW_SECONDS} seconds",
            {"key_type": key_type, "limit": limit, "seconds": RATE_WINDOW_SECONDS}))


# One send counted against one of today's limits: the counter's key, the limit and the limit's kind.
DailyCount = tuple[str, int, str]


def daily_counts(service_id: object, limits: dict[str, int]) -> tuple[DailyCount, ...]:
    """What a send of service_id counts against each of today's limits named (e.g. sms and
    international_sms), for count_daily or reserve_daily."""
    today = daily_limits.today()
    return tuple((daily_limits.daily_key(service_id, kind, today), limit, kind) for kind, limit in limits.items())


def count_daily(sends: list[tuple[DailyCount, ...]]) -> list[TooManyRequestsError | None]:
    """Count every send against its limits in one round trip, in the order given: each send is
    counted as an INCR of its own would count it. A send that would exceed any of its limits gets
    the refusal and its counts are given back (a second round trip, only then); None for the others."""
    counters = [(key, DAILY_KEY_TTL_SECONDS, 1) for send in sends for key, _, _ in send]
    values = iter(count_now(*counters) if counters else ())
    outcomes: list[TooManyRequestsError | None] = []
    given_back: list[str] = []
    for send in sends:
        over = [(kind, limit) for (_, limit, kind) in send if next(values) > limit]
        if over:
            given_back.extend(key for key, _, _ in send)
            outcomes.append(TooManyRequestsError(daily_limits.limit_message(*over[0])))
        else:
            outcomes.append(None)
    release_daily(given_back)
    return outcomes


def reserve_daily(counts: tuple[DailyCount, ...]) -> list[str]:
    """Count one send against each of today's limits in counts (daily_counts), in a round trip of its
    own (a send that record() does not write counts there instead). Raises TooManyRequestsError,
    counting nothing, when any would be exceeded; returns the keys counted so a send that fails
    afterwards can give them back."""
    refused = count_daily([counts])[0]
    if refused is not None:
        raise refused
    return [key for key, _, _ in counts]


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


def observe_settings() -> None:
    """Make sure this request meets no cached entry older than the latest settings change (models.cache).
    While this process listens for changes (models.settings_listener) there is nothing to do; until
    then the request reads the settings generation itself. Nothing when Redis cannot be asked: the
    cache's TTL bounds what the request may see, and Redis's outage is the limits' to report."""
    if settings_listener.listening():
        return
    settings_listener.listen()
    try:
        generation = settings_generation()
    except redis.RedisError:
        return
    cache.observe(generation)
