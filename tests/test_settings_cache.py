"""The hot-path cache and the settings generation that makes its entries stale in every process."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import peewee
import pytest

from models import cache
from models.db import database
from pipeline.infrastructure import throughput
from tests.factories import create_notification, create_service


def _generation() -> bytes | None:
    return throughput.seam().settings_generation()


def test_an_entry_loaded_before_a_new_generation_is_not_used(caching):
    cache.observe(b"one")
    assert cache.cached("k", lambda: "old") == "old"
    assert cache.cached("k", lambda: "new") == "old"
    cache.observe(b"two")
    assert cache.cached("k", lambda: "new") == "new"
    # A request that read the old generation and reports it late does not bring the old entry back.
    cache.observe(b"one")
    assert cache.cached("k", lambda: "newer") == "newer"
    # A Redis that lost the generation (restarted empty) counts as a new one too.
    cache.observe(None)
    assert cache.cached("k", lambda: "after restart") == "after restart"


def _blocked_load(started: threading.Event, release: threading.Event, calls: list[str], value: str):
    def load() -> str:
        calls.append(value)
        started.set()
        release.wait(timeout=10)
        return value
    return load


def test_requests_missing_the_same_entry_together_share_one_load(caching):
    cache.observe(b"one")
    started, release, calls = threading.Event(), threading.Event(), []
    with ThreadPoolExecutor(max_workers=8) as pool:
        leader = pool.submit(cache.cached, "k", _blocked_load(started, release, calls, "loaded"))
        assert started.wait(timeout=10)
        followers = [pool.submit(cache.cached, "k", lambda: calls.append("another") or "another") for _ in range(7)]
        release.set()
        assert [leader.result(), *[f.result() for f in followers]] == ["loaded"] * 8
    assert calls == ["loaded"]


def test_a_load_under_an_older_generation_is_not_shared(caching):
    cache.observe(b"one")
    started, release, calls = threading.Event(), threading.Event(), []
    with ThreadPoolExecutor(max_workers=2) as pool:
        old = pool.submit(cache.cached, "k", _blocked_load(started, release, calls, "old"))
        assert started.wait(timeout=10)
        cache.observe(b"two")  # a settings change was seen while the old load ran
        assert cache.cached("k", lambda: "new") == "new"
        release.set()
        assert old.result() == "old"
    assert cache.cached("k", lambda: "newer") == "new"


def test_when_the_shared_load_fails_each_waiting_request_loads_on_its_own(caching):
    started, release = threading.Event(), threading.Event()

    def failing() -> str:
        started.set()
        release.wait(timeout=10)
        raise peewee.OperationalError("database gone")

    with ThreadPoolExecutor(max_workers=2) as pool:
        leader = pool.submit(cache.cached, "k", failing)
        assert started.wait(timeout=10)
        follower = pool.submit(cache.cached, "k", lambda: "own")
        release.set()
        with pytest.raises(peewee.OperationalError):
            leader.result()
        assert follower.result() == "own"


def test_committed_writes_to_settings_change_the_generation(service):
    before = _generation()
    service.rate_limit = 5
    service.save()
    changed = _generation()
    assert changed != before
    with database.atomic() as transaction:
        service.rate_limit = 6
        service.save()
        assert _generation() == changed  # not before the commit: another process would load the old row
        transaction.rollback()
    assert _generation() == changed  # nor for a write rolled back
    with database.atomic():
        create_service()
    assert _generation() != changed
    now = _generation()
    create_notification(service=service)  # sends are not settings
    assert _generation() == now


def test_a_keys_last_use_is_not_a_settings_change(service):
    from models.api_key import create_api_key, record_key_use

    key, _ = create_api_key(service, name="k", key_type="live")
    before = _generation()
    record_key_use(key.id)
    assert _generation() == before


def test_every_database_the_models_are_given_is_watched_once():
    suite_database = database.obj
    other = peewee.SqliteDatabase(":memory:")
    try:
        database.initialize(other)
        database.initialize(other)
        assert len(other.query_hooks) == 1
    finally:
        database.initialize(suite_database)
    assert other in cache._watched
