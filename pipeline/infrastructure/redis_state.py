"""The Redis that holds what every web process shares (limits, idempotency answers, the settings
generation): one client per process, and the deployment's namespace for its keys."""
from __future__ import annotations

import threading

import redis

from config import get_settings, redis_url

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


def namespaced(*parts: object) -> str:
    """A Redis key of this deployment's namespace."""
    return ":".join([get_settings().queue_namespace, *map(str, parts)])
