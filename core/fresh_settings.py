"""Settings changed in one process take effect in every other before their next request."""
from __future__ import annotations

import redis

from models import cache, settings_listener
from pipeline.infrastructure import throughput


def observe_settings() -> None:
    """Make sure this request meets no cached entry older than the latest settings change (models.cache).
    While this process listens for changes (models.settings_listener) there is nothing to do; until
    then the request reads the settings generation itself. Nothing when Redis cannot be asked: the
    cache's TTL bounds what the request may see, and Redis's outage is the limits' to report."""
    if settings_listener.listening():
        return
    settings_listener.listen()
    try:
        generation = throughput.seam().settings_generation()
    except redis.RedisError:
        return
    cache.observe(generation)
