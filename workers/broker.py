"""Dramatiq broker set-up, shared by the web process (which enqueues) and the worker processes.

Importing this builds nothing: a process's factory builds the broker through workers.wire(), which
binds the actors to it.
"""
from __future__ import annotations

import collections
import contextlib
import gc
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import dramatiq
import redis
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.brokers.redis import RedisBroker
from dramatiq.common import current_millis
from dramatiq.middleware import Middleware
from redis.exceptions import NoScriptError

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


ACK_EVERY_SECONDS = 0.01
log = logging.getLogger(__name__)

# Queues of the send path: a message waits on each of them in turn between accept and delivery.
PROMPT_QUEUES = frozenset({"send-sms", "send-email", "send-job-sms", "send-job-email", "callbacks",
                           "simulated-gateway", "jobs"})


class Broker(RedisBroker):
    """Dramatiq's Redis broker with idle polls of our own and enqueues in one round trip.

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
        self._pipelined = threading.local()
        self.ack_every_seconds = ACK_EVERY_SECONDS
        self._acks: collections.deque[tuple[str, str]] = collections.deque()
        self._ack_sender: threading.Thread | None = None
        self._ack_sender_lock = threading.Lock()

    def do_ack(self, queue_name: str, message_id: str) -> None:
        """A processed message's ack waits up to ack_every_seconds and goes to Redis with the
        others of that moment, in one round trip (send_acks): an ack of its own cost a worker process
        a round trip per message, a tenth of its CPU on the send path. One not yet sent when the
        process dies leaves its message to come back after the heartbeat timeout, as a process
        killed mid-message does: every stage is idempotent."""
        self._acks.append((queue_name, message_id))
        if self._ack_sender is None:
            with self._ack_sender_lock:
                if self._ack_sender is None:
                    self._ack_sender = threading.Thread(target=self._send_acks_forever, daemon=True, name="acks")
                    self._ack_sender.start()

    def _send_acks_forever(self) -> None:
        while True:
            time.sleep(self.ack_every_seconds)
            try:
                self.send_acks()
            except redis.RedisError:
                log.warning("acks not sent (Redis unreachable); trying again", exc_info=True)

    def send_acks(self) -> None:
        """Send the waiting acks, each as dispatch.lua's ack (dramatiq is pinned), in one round
        trip; when Redis cannot be reached they wait for the next try."""
        batch: list[tuple[str, str]] = []
        while self._acks:
            batch.append(self._acks.popleft())
        if not batch:
            return
        calls = [self._script_args("ack", queue_name, message_id) for queue_name, message_id in batch]
        pipe = self.client.pipeline(transaction=False)
        for args in calls:
            # EVALSHA straight on the pipeline: a Script on a pipeline asks SCRIPT EXISTS first.
            pipe.evalsha(self.scripts["dispatch"].sha, 1, self.namespace, *args)
        try:
            replies = pipe.execute(raise_on_error=False)
        except (redis.ConnectionError, redis.TimeoutError):
            self._acks.extendleft(reversed(batch))  # an ack sent twice finds nothing to remove
            raise
        self._check_replies(replies, dict(enumerate(calls)))

    def _script_args(self, command: str, queue_name: str, *args: Any) -> list[Any]:
        """The arguments RedisBroker._dispatch passes to dispatch.lua (dramatiq is pinned; the tests
        consume messages sent and acked this way with a real worker)."""
        return [command, current_millis(), queue_name, self.broker_id, self.heartbeat_timeout, self.dead_message_ttl,
                self._should_do_maintenance(command), self._max_unpack_size(), *args]

    def _check_replies(self, replies: list[Any], scripted: dict[int, list[Any]]) -> None:
        """After a pipeline: run again each script call (position: arguments) that a restarted Redis
        did not know, which loads the script; then raise the first other error."""
        for position, args in scripted.items():
            if isinstance(replies[position], NoScriptError):
                self.scripts["dispatch"](keys=[self.namespace], args=args)
        failed = [reply for reply in replies if isinstance(reply, Exception) and not isinstance(reply, NoScriptError)]
        if failed:
            raise failed[0]

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError):
            self.send_acks()
        super().close()

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> dramatiq.Consumer:
        poll = self.idle_poll_ms if queue_name in PROMPT_QUEUES else self.quiet_poll_ms
        return super().consume(queue_name, prefetch, min(timeout, poll))

    @contextlib.contextmanager
    def pipelined(self) -> Iterator[None]:
        """Messages this thread enqueues inside the block reach Redis together, in one round trip
        when the block ends (the outermost block, when they nest). Each still runs the enqueue
        middleware, whose after_enqueue hooks run before the block ends."""
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
        pending.append(self._script_args("enqueue", queue_name, message_id, data))

    def _dispatch_all(self, calls: list[list[Any]]) -> None:
        """Send the messages enqueued in a block, in one round trip and in order.

        dispatch.lua's enqueue stores a message in the queue's hash and pushes its id, after
        noting the sender's heartbeat, which only matters for a consumer. Running the script once
        per message cost Redis more than the messages themselves: a run of messages to one queue
        is sent as one HSET and then one RPUSH instead, so a consumer never meets an id before its
        message. (A MULTI/EXEC around them cost this process more than the script for the one
        message a quiet moment sends; a message stored but never pushed, were the connection to
        break between the two, is one whose row has committed: the sweeps send it again, as when
        Redis is down.) A message whose send drew dramatiq's maintenance still runs the script, so
        the broker's upkeep happens as often as before.
        """
        script = self.scripts["dispatch"]
        pipe = self.client.pipeline(transaction=False)
        scripted: dict[int, list[Any]] = {}  # the position of the script's reply: its arguments
        run: list[list[Any]] = []
        commands = 0

        def push_run() -> None:
            nonlocal commands
            commands += 2
            queue = f"{self.namespace}:{run[0][2]}"
            pipe.hset(f"{queue}.msgs", mapping={args[-2]: args[-1] for args in run})
            pipe.rpush(queue, *(args[-2] for args in run))
            run.clear()

        for args in calls:
            if run and (args[6] or args[2] != run[0][2]):
                push_run()
            if args[6]:  # do_maintenance
                # EVALSHA straight on the pipeline: a Script on a pipeline asks SCRIPT EXISTS first.
                pipe.evalsha(script.sha, 1, self.namespace, *args)
                scripted[commands] = args
                commands += 1
            else:
                run.append(args)
        if run:
            push_run()
        self._check_replies(pipe.execute(raise_on_error=False), scripted)


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
