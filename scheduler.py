"""The scheduler process: sends each periodic job's message to the workers when it is due.

Due-ness is a Redis key set with NX and an expiry of the job's interval, so any number of scheduler
processes on any number of machines fire each job once per interval between them.

The scheduler outlives outages: while Redis cannot be reached it logs once, waits (backing off up
to MAX_BACKOFF_SECONDS) and tries again, so the sweeps resume by themselves once Redis is back. It
never touches the database; the jobs it sends do, on the workers, and run again at their next interval.
"""
from __future__ import annotations

import logging
import signal
import threading
from dataclasses import dataclass

import dramatiq
import dramatiq.errors
import redis

import workers
from config import get_settings, redis_url
from observability import logs
from workers.actors import Actor

log = logging.getLogger("scheduler")
MAX_BACKOFF_SECONDS = 10.0
OUTAGE_ERRORS = (redis.RedisError, dramatiq.errors.BrokerError)


@dataclass(frozen=True)
class Job:
    name: str
    every_seconds: int
    actor: Actor


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
    workers.wire()  # the actors it sends to, bound to the broker
    client = redis.Redis.from_url(redis_url(settings))
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    schedule = jobs()
    log.info("scheduler started with %d jobs: %s", len(schedule), ", ".join(j.name for j in schedule) or "none")
    run(client, settings.queue_namespace, schedule, stop)


def run(client: redis.Redis, namespace: str, schedule: list[Job], stop: threading.Event) -> None:
    """Tick every second until stopped, riding out Redis outages."""
    delay = 1.0
    # A job sent every few seconds (the held counts' fold, every 10) would fill the log at INFO; its
    # sends are logged at DEBUG, the others (a minute apart or more) at INFO.
    frequent = {job.name for job in schedule if job.every_seconds < 60}
    while not stop.is_set():
        try:
            for name in tick(client, namespace, schedule):
                log.log(logging.DEBUG if name in frequent else logging.INFO, "sent %s", name)
        except OUTAGE_ERRORS as exc:
            if delay == 1.0:
                log.warning("Redis unreachable, retrying until it is back: %r", exc)
            delay = min(delay * 2, MAX_BACKOFF_SECONDS)
        else:
            if delay > 1.0:
                log.info("Redis reachable again; jobs resume")
            delay = 1.0
        stop.wait(delay)


if __name__ == "__main__":
    main()
