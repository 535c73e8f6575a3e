"""What every worker must agree on about the SMS gateways, kept in Redis: which are out of rotation
(the circuit breaker) and which are slow with their receipts (checked every minute)."""
from __future__ import annotations

import time

import dramatiq

from config import get_settings
from models.db import utcnow
from pipeline.providers.sms import gateways
from pipeline.providers.sms.circuit import CircuitBreaker
from pipeline.providers.sms.slow_receipts import slow_gateways
from workers.broker import ops_redis

SLOW_FOR_SECONDS = 600  # a verdict of slowness lasts until the next checks renew it


def circuit() -> CircuitBreaker:
    """Built per call (it holds no state of its own), so a settings change takes effect at once."""
    settings = get_settings()
    return CircuitBreaker(ops_redis(), settings.queue_namespace, threshold=settings.sms_gateway_failure_threshold,
                          cooldown=settings.sms_gateway_cooldown_seconds)


def _slow_key() -> str:
    return f"{get_settings().queue_namespace}:sms-slow-receipts"


# The verdict changes once a minute at most (check_slow_receipts), so each process reads it again
# after this long rather than on every send: a Redis round trip less per text.
SLOW_READ_EVERY_SECONDS = 5.0
_slow_read: tuple[float, str, set[str]] | None = None  # (when, key, names)


def slow() -> set[str]:
    global _slow_read
    now, key = time.monotonic(), _slow_key()
    if _slow_read is None or _slow_read[1] != key or now - _slow_read[0] >= SLOW_READ_EVERY_SECONDS:
        _slow_read = (now, key, {name.decode() for name in ops_redis().smembers(key)})
    return _slow_read[2]


@dramatiq.actor(queue_name="periodic", max_retries=0)
def check_slow_receipts() -> None:
    names = [gateway.name for gateway in gateways.in_use(get_settings())]
    found = slow_gateways(names, utcnow())
    with ops_redis().pipeline() as pipe:
        pipe.delete(_slow_key())
        if found:
            pipe.sadd(_slow_key(), *found)
            pipe.expire(_slow_key(), SLOW_FOR_SECONDS)
        pipe.execute()
    global _slow_read
    _slow_read = (time.monotonic(), _slow_key(), set(found))  # this process knows at once


def forget_slow_verdict() -> None:
    """Read the verdict from Redis on the next send (tests that clear Redis between them)."""
    global _slow_read
    _slow_read = None
