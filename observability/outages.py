"""An outage of Redis or the database, logged twice per process: once when it starts and once when it
ends, with how many tries failed in between, never a line (with its traceback) per try.

Every log line of a process passes OutageFilter (observability.logs.configure adds it to the handler).
A line that carries an error meaning Redis or the database is unreachable (models.outages), as its
traceback or among its arguments, is counted against that outage instead of written: Dramatiq's
consumers, acks, retries and failed messages, the outboxes, the API's 503s and the sends left to the
sweeps all say so on every try, from every thread. The first such line starts the outage with one
WARNING; a probe (PING, SELECT 1) then asks every PROBE_SECONDS, and the answer ends it with one
WARNING that gives the count and the duration. Either line names the dependency, so a log search for
"unreachable" or "reachable again" finds every outage each process saw.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator

# Imported where used, not here: gunicorn's master loads this module (through observability.logs)
# before gevent patches its workers.
log = logging.getLogger(__name__)
REDIS, DATABASE = "Redis", "the database"
PROBE_SECONDS = 1.0
_OWN = "outage_report"  # set on this module's own lines, which the filter lets through
# Dramatiq's consumer says this after each error it met (counted already): a line per queue and try.
_CONSUMER_LOGGER, _CONSUMER_RESTART = "dramatiq.worker.ConsumerThread", "Restarting consumer"


def _ping_redis() -> None:
    import redis

    from config import get_settings, redis_url

    redis.Redis.from_url(redis_url(get_settings()), socket_connect_timeout=2, socket_timeout=2).ping()


def _select_one() -> None:
    from models.db import database

    with database.connection_context():
        database.execute_sql("SELECT 1")


class Outage:
    """One dependency's outage as this process sees it."""

    def __init__(self, name: str, probe: Callable[[], None]) -> None:
        self.name, self.probe = name, probe
        self._lock = threading.Lock()
        self.started: float | None = None  # time.monotonic() of its first failed try; None: none now
        self.failures = 0

    def failed(self, error: BaseException) -> None:
        """A try failed for want of this dependency: the first starts the outage, the others count."""
        with self._lock:
            self.failures += 1
            if self.started is not None:
                return
            self.started = time.monotonic()
        log.warning("%s unreachable (%s: %s); tries that fail are counted, not logged, until it answers again",
                    self.name, type(error).__name__, error, extra={_OWN: True})
        threading.Thread(target=self._until_back, daemon=True, name="outage-probe").start()

    def _until_back(self) -> None:
        from models.outages import UNAVAILABLE

        while True:
            time.sleep(PROBE_SECONDS)
            try:
                self.probe()
            except UNAVAILABLE:
                continue
            break
        with self._lock:
            took, failures = time.monotonic() - (self.started or time.monotonic()), self.failures
            self.started, self.failures = None, 0
        log.warning("%s reachable again after %.1f s; %d tries failed meanwhile", self.name, took, failures,
                    extra={_OWN: True})

    def reset(self) -> None:
        """In a forked child: the parent's outage, and its probe thread, are not the child's."""
        self._lock = threading.Lock()
        self.started, self.failures = None, 0


OUTAGES = {REDIS: Outage(REDIS, _ping_redis), DATABASE: Outage(DATABASE, _select_one)}


def _forked() -> None:
    for outage in OUTAGES.values():
        outage.reset()


os.register_at_fork(after_in_child=_forked)


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, what it was raised from or during, and errors it carries as arguments (Dramatiq's
    ConnectionClosed holds the Redis error), a few levels deep."""
    seen: list[BaseException] = []
    pending = [error]
    while pending and len(seen) < 8:
        current = pending.pop()
        if any(current is known for known in seen):
            continue
        seen.append(current)
        yield current
        pending.extend(e for e in (current.__cause__, current.__context__, *current.args)
                       if isinstance(e, BaseException))


def dependency_of(error: BaseException) -> str | None:
    """REDIS or DATABASE when the error means that one is unreachable; None otherwise."""
    from models.outages import DATABASE_UNAVAILABLE, REDIS_UNAVAILABLE

    for link in _chain(error):
        if isinstance(link, REDIS_UNAVAILABLE):
            return REDIS
        if isinstance(link, DATABASE_UNAVAILABLE):
            return DATABASE
    return None


def _errors_of(record: logging.LogRecord) -> Iterator[BaseException]:
    if record.exc_info and record.exc_info[1] is not None:
        yield record.exc_info[1]
    if isinstance(record.args, tuple):
        yield from (arg for arg in record.args if isinstance(arg, BaseException))


class OutageFilter(logging.Filter):
    """Lets a line through unless it reports a failed try against an unreachable Redis or database."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _OWN, False):
            return True
        if record.name.startswith(_CONSUMER_LOGGER) and str(record.msg).startswith(_CONSUMER_RESTART):
            return False
        for error in _errors_of(record):
            dependency = dependency_of(error)
            if dependency is not None:
                OUTAGES[dependency].failed(error)
                return False
        return True
