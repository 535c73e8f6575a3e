"""Limits shared by every web process through Redis: request rate, daily send counts, idempotency."""
from __future__ import annotations

import datetime
import json
import threading
import time
from typing import Any, Callable

import redis

from api.errors import ApiError, BadRequestError, RateLimitError, TooManyRequestsError
from config import get_settings, redis_url

RATE_WINDOW_SECONDS = 60
IDEMPOTENCY_TTL_SECONDS = 24 * 3600

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


def check_rate_limit(service_id: object, key_type: str, limit: int) -> None:
    """Fixed 60-second windows per service and key type: one round trip per request."""
    window = int(time.time()) // RATE_WINDOW_SECONDS
    key = _key("rate", service_id, key_type, window)
    pipe = client().pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, RATE_WINDOW_SECONDS * 2)
    count = pipe.execute()[0]
    if count > limit:
        raise RateLimitError(
            f"Exceeded rate limit for key type {key_type} of {limit} requests per {RATE_WINDOW_SECONDS} seconds"
        )


def reserve_daily(service_id: object, limits: dict[str, int]) -> list[str]:
    """Count one send against each of today's limits named (e.g. sms and international_sms).

    Raises TooManyRequestsError, counting nothing, when any would be exceeded; returns the keys
    counted so a send that fails afterwards can give them back.
    """
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    keys = {kind: _key("daily", service_id, kind, today) for kind in limits}
    pipe = client().pipeline(transaction=False)
    for key in keys.values():
        pipe.incr(key)
        pipe.expire(key, 2 * 24 * 3600)
    counts = pipe.execute()[::2]
    for (kind, key), count in zip(keys.items(), counts):
        if count > limits[kind]:
            release_daily(list(keys.values()))
            raise TooManyRequestsError(f"Exceeded send limits ({kind}: {limits[kind]}) for today")
    return list(keys.values())


def release_daily(keys: list[str]) -> None:
    if keys:
        pipe = client().pipeline(transaction=False)
        for key in keys:
            pipe.decr(key)
        pipe.execute()


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
