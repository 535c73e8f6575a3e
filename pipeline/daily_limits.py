"""Today's send counts per service and kind (sms, email, letter, international_sms), in Redis.

The API's sends are counted by the notification writer, the sends of one moment in one round trip
(core/recording.py, core/limits.py); a bulk job counts all its rows at once when it starts. Both use
the keys made here, so they count against one limit.
"""
from __future__ import annotations

import datetime

import redis

from config import get_settings, redis_url
from pipeline.errors import Refusal, TooManyRequestsError

DAILY_KEY_TTL_SECONDS = 2 * 24 * 3600
_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(redis_url(get_settings()), socket_timeout=5)
    return _client


def today() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")


def daily_key(service_id: object, kind: str, day: str) -> str:
    return f"{get_settings().queue_namespace}:daily:{service_id}:{kind}:{day}"


def limit_message(kind: str, limit: int) -> Refusal:
    return Refusal("daily_limit_exceeded", f"Exceeded send limits ({kind}: {limit}) for today",
                   {"kind": kind, "limit": limit})


def used_today(service_id: object, kinds: list[str]) -> dict[str, int]:
    """How many sends of each kind today's counters hold."""
    values = _redis().mget([daily_key(service_id, kind, today()) for kind in kinds])
    return {kind: int(value or 0) for kind, value in zip(kinds, values, strict=True)}


def reserve(service_id: object, wanted: dict[str, int], limits: dict[str, int]) -> dict[str, int]:
    """Count wanted[kind] sends against today's limit of each kind, all or none.

    Raises TooManyRequestsError (counting nothing) when any kind would go over its limit; returns
    the amounts counted per key, for release().
    """
    day = today()
    amounts = {daily_key(service_id, kind, day): n for kind, n in wanted.items() if n}
    pipe = _redis().pipeline(transaction=False)
    for key, n in amounts.items():
        pipe.incrby(key, n)
        pipe.expire(key, DAILY_KEY_TTL_SECONDS)
    reached = pipe.execute()[::2]
    for kind, value in zip([kind for kind, n in wanted.items() if n], reached, strict=True):
        if value > limits[kind]:
            release(amounts)
            raise TooManyRequestsError(limit_message(kind, limits[kind]))
    return amounts


def release(amounts: dict[str, int]) -> None:
    if amounts:
        pipe = _redis().pipeline(transaction=False)
        for key, n in amounts.items():
            pipe.decrby(key, n)
        pipe.execute()
