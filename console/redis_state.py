"""Short-lived state in Redis, shared by every console process: attempt counters, codes sent, TOTP codes used."""
from __future__ import annotations

import threading

import redis

from config import get_settings, redis_url

_made = threading.Lock()
_redis: redis.Redis | None = None


def _client() -> redis.Redis:
    global _redis
    if _redis is None:
        # Made once under a lock: a client made by a racing thread and dropped closes its pool's
        # connections under the thread still using them (workers/broker.py ops_redis, the same race).
        with _made:
            if _redis is None:
                _redis = redis.Redis.from_url(redis_url(get_settings()), socket_timeout=5, socket_connect_timeout=5)
    return _redis


def _key(bucket: str) -> str:
    return f"{get_settings().queue_namespace}:console:{bucket}"


def hit(bucket: str, *, limit: int, window_seconds: int) -> bool:
    """Count one attempt in the bucket's window; False once more than `limit` were made in it."""
    key = _key(bucket)
    with _client().pipeline() as pipe:
        # The window starts with the first attempt (SET NX: Redis 6 has no EXPIRE NX).
        pipe.set(key, 0, ex=window_seconds, nx=True)
        pipe.incr(key)
        _, count = pipe.execute()
    return int(count) <= limit


def reset(bucket: str) -> None:
    _client().delete(_key(bucket))


def store(name: str, value: str, *, ttl_seconds: int) -> None:
    """Keep a short-lived value (a sign-in code's hash) where every console process finds it."""
    _client().set(_key(name), value, ex=ttl_seconds)


def fetch(name: str) -> str | None:
    value = _client().get(_key(name))
    return None if value is None else value.decode()


def claim_once(name: str, *, ttl_seconds: int) -> bool:
    """True the first time within ttl_seconds (a TOTP code may be used once)."""
    return bool(_client().set(_key(name), "1", ex=ttl_seconds, nx=True))


def forget(name: str) -> None:
    _client().delete(_key(name))
