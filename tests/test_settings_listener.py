"""A web process hears each settings change as it is made (models.settings_listener), so its requests
read no settings generation of their own, and a settings write returns only once every listening
process has heard it."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from config import get_settings, redis_url
from models import cache, settings_listener
from pipeline.infrastructure import redis_state
from tests.factories import auth_headers, create_key
from tests.redis_watch import commands_naming

ROOT = Path(__file__).resolve().parent.parent


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 15
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _listening() -> None:
    settings_listener.listen()
    _until(settings_listener.listening, "the listener did not subscribe")


def _generation_reads():  # noqa: ANN202 (a context manager yielding the reads seen)
    # A request that reads the generation itself does so with an MGET of its key (either throughput
    # implementation, pipeline.infrastructure.throughput).
    return commands_naming(cache.generation_key(), "MGET")


def _change_settings_elsewhere() -> None:
    """A settings change made by another process, which waits for the listeners as every settings
    write does (models.cache)."""
    settings = get_settings()
    env = {**os.environ, "REDIS_URL": redis_url(settings), "QUEUE_NAMESPACE": settings.queue_namespace}
    subprocess.run([sys.executable, "-c", "from models import cache; cache._bump()"], cwd=ROOT, env=env,
                   check=True, timeout=60)


def test_requests_of_a_listening_process_read_no_generation(client, service):
    headers = auth_headers(create_key(service=service))
    _listening()
    with _generation_reads() as reads:
        for _ in range(5):
            assert client.get("/v2/notifications", headers=headers).status_code == 200
    assert reads == []


def test_a_process_not_listening_reads_the_generation_per_request(client, service, monkeypatch):
    headers = auth_headers(create_key(service=service))
    monkeypatch.setattr(settings_listener, "listening", lambda: False)
    with _generation_reads() as reads:
        for _ in range(3):
            assert client.get("/v2/notifications", headers=headers).status_code == 200
    assert len(reads) == 3


def test_a_change_made_in_another_process_is_heard_before_its_write_returns(caching):
    _listening()
    assert cache.cached(("probe",), lambda: "before") == "before"
    _change_settings_elsewhere()
    # No wait here: the other process returned only once this one had heard the change.
    assert cache.cached(("probe",), lambda: "after") == "after"


def test_a_lost_subscription_drops_the_cache_and_listens_again(caching):
    _listening()
    assert cache.cached(("probe",), lambda: "before") == "before"
    ours = [c for c in redis_state.client().client_list(_type="pubsub") if c["name"] == settings_listener.client_name()]
    assert len(ours) == 1
    redis_state.client().client_kill_filter(_id=ours[0]["id"])
    _until(lambda: cache.cached(("probe",), lambda: "after") == "after", "the cache outlived its subscription")
    _listening()
    _change_settings_elsewhere()
    assert cache.cached(("probe",), lambda: "changed") == "changed"
