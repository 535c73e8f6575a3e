"""What every worker must agree on about the SMS gateways, kept in Redis: which are out of rotation
(the circuit breaker), the pace each is sent at, and which are slow with their receipts (checked
every minute)."""
from __future__ import annotations

from config import get_settings
from models.cache import cached
from models.db import utcnow
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.circuit import CircuitBreaker
from pipeline.infrastructure.providers.sms.pacing import Pacer, Pacing
from pipeline.infrastructure.providers.sms.slow_receipts import slow_gateways
from workers.actors import actor
from workers.broker import ops_redis

SLOW_FOR_SECONDS = 600  # a verdict of slowness lasts until the next checks renew it


def circuit() -> CircuitBreaker:
    """Built per call (it holds no state of its own), so a settings change takes effect at once."""
    settings = get_settings()
    return CircuitBreaker(ops_redis(), settings.queue_namespace, threshold=settings.sms_gateway_failure_threshold,
                          cooldown=settings.sms_gateway_cooldown_seconds)


_pacers: dict[tuple, Pacer] = {}


def pacing(breaker: CircuitBreaker) -> Pacing:
    """The gateways' pace for one send, with their settings as the hot-path cache has them."""
    settings = get_settings()
    client = ops_redis()
    key = (id(client), settings.queue_namespace, settings.sms_gateway_timeout_seconds)
    pacer = _pacers.get(key)
    if pacer is None:  # it registers its scripts once; built twice at once, either serves
        pacer = _pacers[key] = Pacer(client, settings.queue_namespace,
                                     request_seconds=settings.sms_gateway_timeout_seconds)
    limits = {row.name: gateways.limits(row) for row in gateways.in_use(settings)}
    return Pacing(pacer, limits, breaker.probation_key)


def _slow_key() -> str:
    return f"{get_settings().queue_namespace}:sms-slow-receipts"


def slow() -> set[str]:
    # Through the hot-path cache (CACHE_TTL_SECONDS): the verdict changes once a minute at most
    # (check_slow_receipts), so a Redis round trip on every send bought nothing.
    key = _slow_key()
    return cached(("sms-slow-receipts", key), lambda: {name.decode() for name in ops_redis().smembers(key)})


@actor(queue_name="periodic", max_retries=0)
def check_slow_receipts() -> None:
    names = [gateway.name for gateway in gateways.in_use(get_settings())]
    found = slow_gateways(names, utcnow())
    with ops_redis().pipeline() as pipe:
        pipe.delete(_slow_key())
        if found:
            pipe.sadd(_slow_key(), *found)
            pipe.expire(_slow_key(), SLOW_FOR_SECONDS)
        pipe.execute()
