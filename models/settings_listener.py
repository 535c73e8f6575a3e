"""A web process hears each new settings generation as it is made, instead of reading it per request.

A thread of the process subscribes to the channel every settings write publishes on (models.cache),
reads the current generation once it is subscribed, then hands each new one to cache.observe() and
acknowledges it; the write waits for those acknowledgements. While the subscription holds, a request
needs no Redis read to know its cached settings are current. When the connection breaks, the process
is not listening until it has subscribed again and read the generation anew, and its requests read
the generation themselves meanwhile (core.fresh_settings.observe_settings).
"""
from __future__ import annotations

import logging
import os
import threading
import time

import redis

from config import get_settings, redis_url
from models import cache

log = logging.getLogger(__name__)

# How often redis-py's health check PINGs an idle subscription. A connection that Redis or a restart
# closed is noticed at once; one cut off without closing may take TCP minutes, and meanwhile the
# cache's TTL bounds what this process serves (models.cache).
HEALTH_CHECK_SECONDS = 5
RETRY_SECONDS = 1.0

_lock = threading.Lock()
# What a listener listens to: the process, and the settings naming the Redis and channel. Tests
# change the settings; a forked child starts its own listener.
Target = tuple[int, "str | None", str, str]
_started: Target | None = None  # the listener running, which stops once another replaces it
_heard: Target | None = None  # what the running listener holds a subscription for now


def _target() -> Target:
    settings = get_settings()
    return os.getpid(), settings.redis_url, str(settings.instance_dir), settings.queue_namespace


def client_name() -> str:
    """The name this process's listener gives its Redis connections (CLIENT LIST shows it)."""
    return f"settings-listener-{os.getpid()}"


def listening() -> bool:
    """Whether this process hears every new generation of the current deployment's channel now."""
    return _heard is not None and _heard == _target()


def listen() -> None:
    """Start this process's listener unless it runs already."""
    global _started
    target = _target()
    if _started == target:
        return
    with _lock:
        if _started == target:
            return
        _started = target
        threading.Thread(target=_run, args=(target, cache.changes_channel(), redis_url(get_settings())),
                         name="settings-listener", daemon=True).start()


def _run(target: Target, channel: str, url: str) -> None:
    client = redis.Redis.from_url(url, socket_timeout=None, health_check_interval=HEALTH_CHECK_SECONDS,
                                  client_name=client_name())
    while _started == target:
        try:
            _listen(client, channel, target)
        except redis.RedisError as exc:
            if _heard == target:  # a subscription that held is lost: retries are not logged again
                log.warning("settings listener lost Redis (%s); requests read the settings generation meanwhile", exc)
        _stop_hearing(target)
        time.sleep(RETRY_SECONDS)
    client.close()


def _listen(client: redis.Redis, channel: str, target: Target) -> None:
    global _heard
    pubsub = client.pubsub()
    try:
        pubsub.subscribe(channel)
        # Once Redis confirms the subscription, every later generation arrives as a message; one
        # made before it is read here.
        confirmation = None
        while confirmation is None:
            confirmation = pubsub.get_message(timeout=HEALTH_CHECK_SECONDS)
        if confirmation["type"] != "subscribe":
            raise redis.ConnectionError(f"expected the subscription's confirmation, got {confirmation['type']}")
        current = client.get(cache.generation_key())
        cache.observe(current if isinstance(current, bytes) else None)
        _heard = target
        while _started == target:
            message = pubsub.get_message(ignore_subscribe_messages=True, timeout=HEALTH_CHECK_SECONDS)
            if message is None or message["type"] != "message":
                continue
            generation = message["data"]
            cache.observe(generation)
            heard = cache.acknowledgements_key(generation)
            pipe = client.pipeline(transaction=False)
            pipe.rpush(heard, b"1")
            pipe.expire(heard, cache.ACKNOWLEDGEMENT_TTL_SECONDS)
            pipe.execute()
    finally:
        pubsub.close()


def _stop_hearing(target: Target) -> None:
    """Entries loaded while changes might have gone unheard are dropped: the next subscription
    starts from a fresh cache."""
    global _heard
    if _heard == target:
        _heard = None
        cache.clear()
