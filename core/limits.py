"""Limits shared by every web process through Redis: request rate, daily send counts, idempotency."""
from __future__ import annotations

import datetime
import json
import threading
import time
from typing import Any, Callable

import redis

from pipeline.batching import Batcher
from api.errors import ApiError, BadRequestError, RateLimitError, TooManyRequestsError
from config import get_settings, redis_url
from models import cache
from pipeline import daily_limits

RATE_WINDOW_SECONDS = 60
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
DAILY_KEY_TTL_SECONDS = daily_limits.DAILY_KEY_TTL_SECONDS

_client: redis.Redis | None = None
_client_lock = threading.Lock()


def client() -> redis.Redis:
    """One client per process. Made under a lock: a second client made by a racing request thread
    would replace the first, whose finaliser then closes its pool's connections, including one
    another thread is reading from (seen as EBADF under load)."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = redis.Redis.from_url(redis_url(get_settings()), socket_timeout=5)
    return _client


def _key(*parts: object) -> str:
    return ":".join([get_settings().queue_namespace, *map(str, parts)])


Counter = tuple[str, int, int]  # key, expiry in seconds, amount to add
# What a request asks of one round trip: a key to read (or None) and counters to add to.
Ask = tuple["str | None", tuple[Counter, ...]]


def _count_batch(batch: list[Ask]) -> list[tuple[bytes | None, list[int]]]:
    """INCRBY every counter of every request, one INCRBY per key: each request gets the values it
    would have got from INCRBYs of its own, in the order the requests came. A key read is read in
    the same round trip, once however many requests asked for it."""
    totals: dict[str, int] = {}
    ttls: dict[str, int] = {}
    reads = list(dict.fromkeys(read for read, _ in batch if read is not None))
    for _, counters in batch:
        for key, ttl, amount in counters:
            totals[key] = totals.get(key, 0) + amount
            ttls[key] = ttl
    pipe = client().pipeline(transaction=False)
    for key, added in totals.items():
        pipe.incrby(key, added)
        pipe.expire(key, ttls[key])
    if reads:
        pipe.mget(reads)
    replies = pipe.execute()
    read = dict(zip(reads, replies.pop() if reads else ()))
    reached = {key: reply - totals[key] for key, reply in zip(totals, replies[::2])}
    values: list[tuple[bytes | None, list[int]]] = []
    for key_read, counters in batch:
        mine = []
        for key, _, amount in counters:
            reached[key] += amount
            mine.append(reached[key])
        values.append((None if key_read is None else read[key_read], mine))
    return values


_counters = Batcher("redis-counters", _count_batch)


def count(*counters: Counter) -> list[int]:
    """Add to each counter; their new values."""
    return _counters.submit((None, counters))[1]  # type: ignore[index]


def settings_generation() -> bytes | None:
    """The settings generation (models.cache), read in the round trip the counters of the requests
    waiting at the same moment make: under load, many requests share one read."""
    return _counters.submit((cache.generation_key(), ()))[0]  # type: ignore[index]


def settings_generation_counting(*counters: Counter) -> tuple[bytes | None, list[int]]:
    """settings_generation() and count(*counters) in the same round trip."""
    return _counters.submit((cache.generation_key(), counters))  # type: ignore[return-value]


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
    reached = count((_key("rate", service_id, key_type, window), RATE_WINDOW_SECONDS * 2, size))[0]
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


def reserve_daily(service_id: object, limits: dict[str, int],
                  counted: dict[str, tuple[str, int]] | None = None) -> list[str]:
    """Count one send against each of today's limits named (e.g. sms and international_sms).

    counted: the kinds already counted for this send, each with its key and the value it reached
    (api.auth counts a live send's channel in the round trip that reads the settings generation).
    Raises TooManyRequestsError, counting nothing, when any would be exceeded; returns the keys
    counted so a send that fails afterwards can give them back.
    """
    reached = dict(counted or {})
    missing = [kind for kind in limits if kind not in reached]
    if missing:
        counters = [daily_counter(service_id, kind) for kind in missing]
        for kind, counter, value in zip(missing, counters, count(*counters)):
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
    if counted_on == datetime.datetime.now(datetime.timezone.utc).date():
        release_daily([daily_limits.daily_key(service_id, kind, f"{counted_on:%Y-%m-%d}") for kind in kinds])


class Idempotency:
    """`Idempotency-Key`: a retried POST gets the first response instead of sending again."""

    def __init__(self, service_id: object, header: str | None) -> None:
        self.key = _key("idempotency", service_id, header) if header else None

    def replay(self) -> tuple[int, Any] | None:
        """The stored response, or None after claiming the key for this request."""
        if self.key is None:
            return None
        for _ in range(50):
            if client().set(self.key, "pending", nx=True, ex=IDEMPOTENCY_TTL_SECONDS):
                return None
            stored = client().get(self.key)
            if stored and stored != b"pending":
                saved = json.loads(stored)
                return saved["status"], saved["body"]
            time.sleep(0.1)  # the first request is still being answered
        # Never send twice: a caller retrying while the first request hangs is told to wait.
        raise BadRequestError("A request with this Idempotency-Key is still being processed", status_code=409)

    def store(self, status: int, body: Any) -> None:
        if self.key is not None:
            client().set(self.key, json.dumps({"status": status, "body": body}), ex=IDEMPOTENCY_TTL_SECONDS)

    def forget(self) -> None:
        """A refused request is not remembered: fixing the request and retrying must work."""
        if self.key is not None:
            client().delete(self.key)


def answer_once(service_id: object, header: str | None, make: Callable[[], dict]) -> tuple[dict, int]:
    """201 and make()'s body, or the first answer again for a repeated Idempotency-Key."""
    idempotency = Idempotency(service_id, header)
    replay = idempotency.replay()
    if replay is not None:
        status, saved = replay
        return saved, status
    try:
        body = make()
    except ApiError:
        idempotency.forget()
        raise
    idempotency.store(201, body)
    return body, 201
