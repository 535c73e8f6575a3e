"""The scheduler process: sends each periodic job's message to the workers when it is due.

Due-ness is a Redis key set with NX and an expiry of the job's interval, so any number of scheduler
processes on any number of machines fire each job once per interval between them.
"""
from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass

import dramatiq
import redis

import workers  # noqa: F401  (declares every actor on the broker)
from config import get_settings, redis_url
from observability import logs

log = logging.getLogger("scheduler")


@dataclass(frozen=True)
class Job:
    name: str
    every_seconds: int
    actor: dramatiq.Actor


def jobs() -> list[Job]:
    from workers.periodic import SCHEDULE

    return [Job(name, every, actor) for name, every, actor in SCHEDULE]


def tick(client: redis.Redis, namespace: str, due: list[Job]) -> list[str]:
    """Send every job whose interval has passed; returns the names sent."""
    sent = []
    for job in due:
        if client.set(f"{namespace}:schedule:{job.name}", "1", nx=True, ex=job.every_seconds):
            job.actor.send()
            sent.append(job.name)
    return sent


def main() -> None:
    logs.configure("scheduler")
    settings = get_settings()
    client = redis.Redis.from_url(redis_url(settings))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    schedule = jobs()
    log.info("scheduler started with %d jobs: %s", len(schedule), ", ".join(j.name for j in schedule) or "none")
    while not stop.is_set():
        for name in tick(client, settings.queue_namespace, schedule):
            log.info("sent %s", name)
        stop.wait(1.0)


if __name__ == "__main__":
    main()
