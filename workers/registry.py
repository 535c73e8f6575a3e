"""What Dramatiq's Redis layout does not keep: which worker processes are alive, what each is
working on, and how many messages each queue finished or failed per minute and how long they took.

Each worker process counts in memory and writes it all every HEARTBEAT_SECONDS in one pipelined
round trip (never per message), under `<namespace>:ops:` in the Redis that holds limits and counters,
whichever broker carries the messages.
"""
from __future__ import annotations

import json
import os
import socket
import threading
import time
import traceback
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import dramatiq
import redis
from dramatiq.common import q_name
from dramatiq.middleware import Middleware

from config import get_settings, redis_url
from observability.logs import mask

HEARTBEAT_SECONDS = 2.0
ALIVE_SECONDS = 10.0  # a worker silent this long is shown dead (about five heartbeats missed)
STATS_TTL_SECONDS = 3600
DEAD_ERROR_TTL_SECONDS = 7 * 24 * 3600  # as long as Dramatiq keeps a dead letter
MAX_ERROR_CHARS = 8000
MAX_ARG_CHARS = 200  # arguments are ids, except a receipt batch's: shown shortened and masked
# Upper bounds (ms) of the duration buckets kept per actor and minute, for percentiles.
DURATION_BUCKETS_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 600000)


def keys(namespace: str) -> dict[str, str]:
    base = f"{namespace}:ops"
    return {"workers": f"{base}:workers", "queue_seen": f"{base}:queue-seen", "stats": f"{base}:stats"}


def dead_error_key(namespace: str, message_id: str) -> str:
    return f"{keys(namespace)['stats'].removesuffix(':stats')}:dead-error:{message_id}"


def stats_key(namespace: str, minute: int) -> str:
    return f"{keys(namespace)['stats']}:{minute}"


def bucket_of(duration_ms: float) -> int:
    for bound in DURATION_BUCKETS_MS:
        if duration_ms <= bound:
            return bound
    return DURATION_BUCKETS_MS[-1]


def _address(url: str) -> str:
    """The address this host reaches Redis from: tells hosts apart that share a hostname."""
    parts = urlsplit(url)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((parts.hostname or "127.0.0.1", parts.port or 6379))
            return probe.getsockname()[0]
        except OSError:
            return "unknown"


class _Running:
    """One running dramatiq Worker of this process and what it is doing."""

    def __init__(self, worker: dramatiq.Worker, queues: list[str]) -> None:
        self.worker = worker
        self.queues = queues
        self.started = time.time()
        self.address = ""  # learnt at the first heartbeat
        self.current: dict[str, dict[str, Any]] = {}
        self.done: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.durations: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()


class WorkerRegistry(Middleware):
    """Heartbeats of worker processes, their current messages and per-minute counts."""

    def __init__(self) -> None:
        settings = get_settings()
        self.namespace = settings.queue_namespace
        self.url = redis_url(settings)
        self._running: dict[int, _Running] = {}  # id(worker) -> state
        # message id -> what its attempt raised, from its end until it is acked or dead-lettered
        self._raised: dict[str, BaseException] = {}
        self._client: redis.Redis | None = None

    def _redis(self) -> redis.Redis:
        if self._client is None:  # made after the fork: never share a connection with the parent
            self._client = redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        return self._client

    def worker_id(self, worker: dramatiq.Worker) -> str:
        return f"{socket.gethostname()}:{os.getpid()}:{id(worker):x}"

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        # Before its threads start: the first messages they take are counted too.
        queues = worker.consumer_whitelist or broker.get_declared_queues()
        self._running[id(worker)] = _Running(worker, sorted(q for q in queues if q_name(q) == q))

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        running = self._running[id(worker)]
        self._heartbeat(running)
        threading.Thread(target=self._beat, args=(running,), daemon=True, name="worker-registry").start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        running = self._running.pop(id(worker), None)
        if running is not None:
            running.stop.set()
            self._flush(running)
            self._redis().hdel(keys(self.namespace)["workers"], self.worker_id(worker))

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        for running in self._running.values():
            with running.lock:
                running.current[message.message_id] = {
                    "actor": message.actor_name, "queue": message.queue_name, "message_id": message.message_id,
                    "args": message.args[:3], "since": time.time()}

    def after_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message, *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        queue = q_name(message.queue_name)
        if exception is not None:
            self._raised[message.message_id] = exception
        for running in self._running.values():
            with running.lock:
                began = running.current.pop(message.message_id, None)
                if began is None:
                    continue
                running.done[queue] += 1
                if exception is not None:
                    running.failed[queue] += 1
                else:
                    took_ms = (time.time() - began["since"]) * 1000
                    running.durations[f"{message.actor_name}:{bucket_of(took_ms)}"] += 1

    after_skip_message = after_process_message

    def after_ack(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        self._raised.pop(message.message_id, None)  # done, or retried as a new message

    def after_nack(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        """Dramatiq keeps the traceback of a retried attempt, not of the last one, which dead-letters
        the message: keep that one as long as the dead letter lives."""
        exception = self._raised.pop(message.message_id, None)
        if exception is None:
            return
        text = "".join(traceback.format_exception(exception, limit=30))[-MAX_ERROR_CHARS:]
        dead_id = message.options.get("redis_message_id", message.message_id)  # the id the Redis broker files it by
        try:
            self._redis().set(dead_error_key(self.namespace, dead_id), text, ex=DEAD_ERROR_TTL_SECONDS)
        except redis.RedisError:
            pass  # the dashboard then shows the traceback Dramatiq kept, if any

    def _beat(self, running: _Running) -> None:
        while not running.stop.wait(HEARTBEAT_SECONDS):
            try:
                self._heartbeat(running)
            except redis.RedisError:
                pass  # Redis away: the dashboard shows this worker silent; the next beat retries

    def _heartbeat(self, running: _Running) -> None:
        now = time.time()
        running.address = running.address or _address(self.url)
        with running.lock:
            running_now = list(running.current.values())
        # Masked here, for the few messages running at a beat, not for every message as it starts.
        current = [{**entry, "args": [mask(str(a))[:MAX_ARG_CHARS] for a in entry["args"]]} for entry in running_now]
        record = {
            "id": self.worker_id(running.worker), "host": socket.gethostname(),
            "address": running.address,
            "pid": os.getpid(), "queues": running.queues, "threads": running.worker.worker_threads,
            "started_at": running.started, "heartbeat": now, "current": current,
        }
        names = keys(self.namespace)
        pipe = self._redis().pipeline(transaction=False)
        pipe.hset(names["workers"], record["id"], json.dumps(record))
        pipe.hset(names["queue_seen"], mapping={queue: now for queue in running.queues})
        self._flush(running, pipe)

    def _flush(self, running: _Running, pipe: Any = None) -> None:
        with running.lock:
            done, failed, durations = running.done, running.failed, running.durations
            running.done, running.failed, running.durations = Counter(), Counter(), Counter()
        pipe = pipe if pipe is not None else self._redis().pipeline(transaction=False)
        key = stats_key(self.namespace, int(time.time() // 60))
        for name, counts in (("done", done), ("failed", failed), ("duration", durations)):
            for field, value in counts.items():
                pipe.hincrby(key, f"{name}:{field}", value)
        pipe.expire(key, STATS_TTL_SECONDS)
        pipe.execute()
