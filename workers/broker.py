"""Dramatiq broker set-up, shared by the web process (which enqueues) and the worker processes.

Imported before any actor is declared: actors bind to the broker set here.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

import dramatiq
import redis
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker
from dramatiq.common import current_millis
from dramatiq.middleware import Middleware
from redis.exceptions import NoScriptError

from config import get_settings, redis_url
from models.db import database, init_database, open_connection
from observability.message_context import MessageLogContext
from observability.worker_metrics import WorkerMetrics
from workers.registry import WorkerRegistry


class DatabaseConnections(Middleware):
    """Each worker thread keeps one connection, replaced when the server dropped it; forked
    worker processes drop any connection inherited from the parent."""

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        if database.obj is not None:
            database.obj.dispose()

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        open_connection()


class Broker(RedisBroker):
    """Dramatiq's Redis broker with a short idle poll and enqueues in one round trip.

    A consumer whose queue ran empty backs off up to the worker's timeout (1 s by default) before
    looking again. Our stages hand work from queue to queue one message at a time, so a second of
    back-off on a briefly empty queue stalls the whole chain; polling an idle queue every 100 ms
    costs Redis next to nothing.
    """

    def __init__(self, *, idle_poll_ms: int, **options: Any) -> None:
        super().__init__(**options)
        self.idle_poll_ms = idle_poll_ms
        self._pipelined = threading.local()

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> dramatiq.Consumer:
        return super().consume(queue_name, prefetch, min(timeout, self.idle_poll_ms))

    @contextlib.contextmanager
    def pipelined(self) -> Iterator[None]:
        """Messages this thread enqueues inside the block reach Redis together, in one round trip
        when the block ends (the outermost block, when they nest). Each still runs dramatiq's own
        script and the enqueue middleware, whose after_enqueue hooks run before the block ends."""
        if getattr(self._pipelined, "pending", None) is not None:
            yield
            return
        pending: list[list[Any]] = []
        self._pipelined.pending = pending
        try:
            yield
        finally:
            self._pipelined.pending = None
            if pending:
                self._dispatch_all(pending)

    def do_enqueue(self, queue_name: str, message_id: str, data: bytes) -> None:
        pending = getattr(self._pipelined, "pending", None)
        if pending is None:
            self._dispatch("enqueue")(queue_name, message_id, data)
            return
        # The arguments RedisBroker._dispatch passes to dispatch.lua (dramatiq is pinned; the tests
        # consume messages sent this way with a real worker).
        pending.append(["enqueue", current_millis(), queue_name, self.broker_id, self.heartbeat_timeout,
                        self.dead_message_ttl, self._should_do_maintenance("enqueue"), self._max_unpack_size(),
                        message_id, data])

    def _dispatch_all(self, calls: list[list[Any]]) -> None:
        script = self.scripts["dispatch"]
        pipe = self.client.pipeline(transaction=False)
        for args in calls:
            # EVALSHA straight on the pipeline: a Script on a pipeline asks SCRIPT EXISTS first,
            # one more round trip on every batch.
            pipe.evalsha(script.sha, 1, self.namespace, *args)
        replies = pipe.execute(raise_on_error=False)
        for args, reply in zip(calls, replies):
            if isinstance(reply, NoScriptError):
                script(keys=[self.namespace], args=args)  # loads the script (a restarted Redis) and runs it
        failed = [reply for reply in replies if isinstance(reply, Exception) and not isinstance(reply, NoScriptError)]
        if failed:
            raise failed[0]


class RabbitBroker(RabbitmqBroker):
    """Dramatiq's RabbitMQ broker, for durable queues (BROKER_URL=amqp://...). Each enqueue is its
    own publish, confirmed by RabbitMQ: pipelined() only keeps the helpers' interface."""

    @contextlib.contextmanager
    def pipelined(self) -> Iterator[None]:
        yield


_ops_redis: redis.Redis | None = None


def ops_redis() -> redis.Redis:
    """The Redis of limits, counters, outboxes and the worker registry, whichever broker carries
    the messages (redis-py's pool reconnects in a forked child)."""
    global _ops_redis
    if _ops_redis is None:
        _ops_redis = redis.Redis.from_url(redis_url(get_settings()))
    return _ops_redis


def build_broker() -> dramatiq.Broker:
    settings = get_settings()
    if database.obj is None:
        init_database(settings.database_url)
    broker: dramatiq.Broker
    if settings.broker_url and settings.broker_url.startswith(("amqp://", "amqps://")):
        broker = RabbitBroker(url=settings.broker_url, confirm_delivery=True)
    else:
        broker = Broker(
            idle_poll_ms=settings.queue_idle_poll_ms,
            url=redis_url(settings), namespace=settings.queue_namespace,
            heartbeat_timeout=settings.queue_heartbeat_timeout_ms,
            maintenance_chance=settings.queue_maintenance_chance,
        )
    broker.add_middleware(DatabaseConnections())
    broker.add_middleware(MessageLogContext())
    broker.add_middleware(WorkerRegistry())
    broker.add_middleware(WorkerMetrics())
    return broker


broker = build_broker()
dramatiq.set_broker(broker)
