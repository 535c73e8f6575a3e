"""The scheduler fires each job once per interval and outlives an outage of its Redis."""
from __future__ import annotations

import logging
import threading

import redis

from scheduler import Job, run
from tests.conftest import wait_for
from tests.private_servers import private_redis


class _Recorder:
    """Stands in for an actor: counts the messages it was sent."""

    def __init__(self) -> None:
        self.sent = 0

    def send(self) -> None:
        self.sent += 1


def test_jobs_resume_after_redis_comes_back(caplog):
    actor = _Recorder()
    stop = threading.Event()
    with private_redis() as server, caplog.at_level(logging.INFO, logger="scheduler"):
        client = redis.Redis.from_url(server.url, socket_timeout=1, socket_connect_timeout=1)
        ticking = threading.Thread(target=run, args=(client, "ns", [Job("probe", 1, actor)], stop), daemon=True)
        ticking.start()
        try:
            wait_for(lambda: actor.sent >= 1, timeout=10)
            server.kill()
            wait_for(lambda: any("Redis unreachable" in r.getMessage() for r in caplog.records), timeout=10)
            assert ticking.is_alive()

            sent_before = actor.sent
            server.start()
            wait_for(lambda: actor.sent > sent_before, timeout=30)
            assert any("jobs resume" in r.getMessage() for r in caplog.records)
        finally:
            stop.set()
            ticking.join(timeout=15)
    assert not ticking.is_alive()


def test_a_job_sent_every_few_seconds_is_logged_at_debug_the_others_at_info(caplog):
    often, hourly = _Recorder(), _Recorder()
    stop = threading.Event()
    with private_redis() as server, caplog.at_level(logging.DEBUG, logger="scheduler"):
        client = redis.Redis.from_url(server.url, socket_timeout=1, socket_connect_timeout=1)
        schedule = [Job("fold", 10, often), Job("roll-up", 3600, hourly)]
        ticking = threading.Thread(target=run, args=(client, "ns", schedule, stop), daemon=True)
        ticking.start()
        try:
            wait_for(lambda: often.sent >= 1 and hourly.sent >= 1, timeout=10)
        finally:
            stop.set()
            ticking.join(timeout=15)
    levels = {r.getMessage(): r.levelname for r in caplog.records if r.getMessage().startswith("sent ")}
    assert levels == {"sent fold": "DEBUG", "sent roll-up": "INFO"}
