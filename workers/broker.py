"""Dramatiq broker set-up, shared by the web process (which enqueues) and the worker processes.

Importing this builds nothing: a process's factory builds the broker through workers.wire(), which
binds the actors to it.
"""
from __future__ import annotations

import gc
import threading
from typing import Any

import dramatiq
import redis
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import Middleware

from config import get_settings, redis_url
from models.db import database, give_back_connection, init_database, is_postgres, open_connection
from observability.message_context import MessageLogContext
from observability.worker_metrics import WorkerMetrics
from workers.registry import WorkerRegistry


class DatabaseConnections(Middleware):
    """A worker process's threads share WORKER_DB_CONNECTIONS PostgreSQL connections, each held
    for a message (but not while it waits on a provider); with SQLite, or that setting at 0, each
    thread keeps one. A connection the server dropped is replaced before use. Forked worker
    processes drop any connection inherited from the parent."""

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        settings = get_settings()
        if database.obj is None:
            return
        if is_postgres() and settings.worker_db_connections:
            init_database(settings.database_url, shared_connections=settings.worker_db_connections)
        else:
            database.obj.dispose()

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        open_connection()

    def after_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message, *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        give_back_connection()

    after_skip_message = after_process_message


class LongLivedStartup(Middleware):
    """What a worker process loaded before its first message (the actors, their libraries, some
    130,000 objects) lives as long as the process: kept out of the collector's full passes, which
    walked them all while every thread of the process waited (gunicorn.conf.py does the same). Once
    per worker process, once its actors are loaded (the tests' in-process workers boot no process)."""

    def __init__(self) -> None:
        self.own_process = False

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        self.own_process = True  # before the actors' modules are imported: the freeze waits for them

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if self.own_process:
            gc.collect()  # garbage of the start-up is collected, not kept for good
            gc.freeze()


# Queues of the send path: a message waits on each of them in turn between accept and delivery.
PROMPT_QUEUES = frozenset({"send-sms", "send-email", "send-job-sms", "send-job-email", "callbacks",
                           "simulated-gateway", "jobs"})


class Broker(RedisBroker):
    """Dramatiq's Redis broker with idle polls of our own.

    A consumer whose queue ran empty backs off up to the worker's timeout (1 s by default) before
    looking again. The send path hands each message from queue to queue, so a second of back-off on
    a briefly empty one of those would stall it: its queues are polled every `idle_poll_ms` (100).
    Every other queue, and every delay queue (retries and scheduled sends, due in seconds or more),
    is polled every `quiet_poll_ms` (1000): a worker process consumes some 26 queues, and polling
    them all at 100 ms cost it about 15% of a core while idle and a third of its CPU under load.
    """

    def __init__(self, *, idle_poll_ms: int, quiet_poll_ms: int, **options: Any) -> None:
        super().__init__(**options)
        self.idle_poll_ms = idle_poll_ms
        self.quiet_poll_ms = quiet_poll_ms

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> dramatiq.Consumer:
        poll = self.idle_poll_ms if queue_name in PROMPT_QUEUES else self.quiet_poll_ms
        return super().consume(queue_name, prefetch, min(timeout, poll))


class RabbitBroker(RabbitmqBroker):
    """Dramatiq's RabbitMQ broker, for durable queues (BROKER_URL=amqp://...). Each enqueue is its
    own publish, confirmed by RabbitMQ."""


_ops_redis: redis.Redis | None = None
_ops_redis_made = threading.Lock()


def ops_redis() -> redis.Redis:
    """The Redis of limits, counters, outboxes and the worker registry, whichever broker carries
    the messages (redis-py's pool reconnects in a forked child)."""
    global _ops_redis
    if _ops_redis is None:
        # Made once: a second client made by a thread racing this one would be dropped at once, and
        # dropping a client closes its pool's connections under the thread still using it (a
        # web process's first concurrent requests answered 500, "Bad file descriptor").
        with _ops_redis_made:
            if _ops_redis is None:
                _ops_redis = redis.Redis.from_url(redis_url(get_settings()))
    return _ops_redis


def build_broker() -> dramatiq.Broker:
    """The broker the settings name, with this service's middleware (workers.wire builds it)."""
    settings = get_settings()
    broker: dramatiq.Broker
    if settings.broker_url and settings.broker_url.startswith(("amqp://", "amqps://")):
        broker = RabbitBroker(url=settings.broker_url, confirm_delivery=True)
    else:
        broker = Broker(
            idle_poll_ms=settings.queue_idle_poll_ms, quiet_poll_ms=settings.queue_quiet_poll_ms,
            url=redis_url(settings), namespace=settings.queue_namespace,
            heartbeat_timeout=settings.queue_heartbeat_timeout_ms,
            maintenance_chance=settings.queue_maintenance_chance,
        )
    broker.add_middleware(DatabaseConnections())
    broker.add_middleware(MessageLogContext())
    broker.add_middleware(WorkerRegistry())
    broker.add_middleware(WorkerMetrics())
    broker.add_middleware(LongLivedStartup())
    return broker


_current: dramatiq.Broker | None = None
NOT_WIRED = "no broker yet: this process's factory calls workers.wire() to build it"


def use_broker(broker: dramatiq.Broker) -> None:
    """Make broker this process's, Dramatiq's global one included (its CLI and Worker read that)."""
    global _current
    _current = broker
    dramatiq.set_broker(broker)


def current_broker() -> dramatiq.Broker:
    """The broker this process was wired with (workers.wire)."""
    if _current is None:
        raise RuntimeError(NOT_WIRED)
    return _current
