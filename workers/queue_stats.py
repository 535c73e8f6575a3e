"""What the worker dashboard, /_status and the queue metrics show, read from Dramatiq's own layout.

Redis broker (`redis_key`): `<ns>:<queue>` is the list of ready message ids, `<ns>:<queue>.msgs` the hash
of every message not yet acked (ready or held by a worker), the same of the delay queue (Dramatiq's
`dq_name`) the delayed messages and of the dead-letter queue (`xq_name`) the dead-lettered ones (a
sorted set by the time they died). RabbitMQ: its own
message counts per queue; the age of the oldest message is then unknown. Worker processes and
per-minute counts come from workers.registry, which Dramatiq does not keep.
"""
from __future__ import annotations

import datetime
import json
import time
from dataclasses import dataclass, field
from typing import Any

from dramatiq.brokers.redis import RedisBroker
from dramatiq.common import dq_name, q_name, xq_name

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.domain import statuses
from workers import registry
from workers.broker import current_broker, ops_redis

FORGET_WORKER_SECONDS = 600  # a silent worker's record is dropped this long after its last heartbeat


@dataclass
class QueueStats:
    name: str
    ready: int
    delayed: int
    dead: int
    in_progress: int | None  # held by a worker, not yet acked (None: the broker does not say)
    oldest_age_seconds: float | None
    live_workers: int
    last_worker_seen: float | None  # epoch seconds of the last heartbeat of a worker on this queue
    done: int = 0
    failed: int = 0
    minutes: int = 5

    @property
    def per_minute(self) -> float:
        return round(self.done / self.minutes, 1)

    @property
    def failure_rate(self) -> float | None:
        return round(self.failed / self.done, 3) if self.done else None


@dataclass
class WorkerProcess:
    id: str
    host: str
    address: str
    pid: int
    queues: list[str]
    threads: int
    started_at: float
    heartbeat: float
    current: list[dict[str, Any]] = field(default_factory=list)

    @property
    def alive(self) -> bool:
        return time.time() - self.heartbeat < registry.ALIVE_SECONDS


def redis_key(queue_name: str, *, messages: bool = False) -> str:
    """A queue's key in the Redis broker's layout: its ready message ids, or with `messages` the hash of
    its messages. Dramatiq's Redis script keeps them so and offers no function that names them."""
    return f"{current_broker().namespace}:{queue_name}{'.msgs' if messages else ''}"


def queue_names() -> list[str]:
    """The declared queues, without their delay and dead-letter queues."""
    return sorted(q for q in current_broker().get_declared_queues() if q_name(q) == q)


def worker_processes() -> list[WorkerProcess]:
    """Every worker process heard from lately, alive or silent; long-silent ones are forgotten."""
    client = ops_redis()
    key = registry.keys(get_settings().queue_namespace)["workers"]
    found, stale = [], []
    for worker_id, raw in client.hgetall(key).items():
        record = json.loads(raw)
        if time.time() - record["heartbeat"] > FORGET_WORKER_SECONDS:
            stale.append(worker_id)
            continue
        found.append(WorkerProcess(**record))
    if stale:
        client.hdel(key, *stale)
    return sorted(found, key=lambda w: (w.host, w.address, w.pid))


def _minute_stats(minutes: int) -> dict[str, int]:
    """The registry's counts of the last `minutes` whole minutes and this one, summed per field."""
    namespace = get_settings().queue_namespace
    now = int(time.time() // 60)
    pipe = ops_redis().pipeline(transaction=False)
    for minute in range(now - minutes, now + 1):
        pipe.hgetall(registry.stats_key(namespace, minute))
    totals: dict[str, int] = {}
    for counts in pipe.execute():
        for name, value in counts.items():
            name = name.decode()
            totals[name] = totals.get(name, 0) + int(value)
    return totals


def _redis_depths(names: list[str]) -> dict[str, tuple[int, int, int, int, float | None]]:
    """(ready, delayed, dead, in progress, oldest age) per queue, in two round trips."""
    pipe = current_broker().client.pipeline(transaction=False)
    for name in names:
        pipe.llen(redis_key(name)).hlen(redis_key(name, messages=True)).hlen(redis_key(dq_name(name), messages=True))
        pipe.zcard(redis_key(xq_name(name))).lindex(redis_key(name), 0)
    replies = pipe.execute()
    rows = [replies[i:i + 5] for i in range(0, len(replies), 5)]
    pipe = current_broker().client.pipeline(transaction=False)
    for name, row in zip(names, rows, strict=True):
        pipe.hget(redis_key(name, messages=True), row[4] or b"-")
    heads = pipe.execute()
    now_ms = time.time() * 1000
    result = {}
    for name, (ready, held, delayed, dead, _), head in zip(names, rows, heads, strict=True):
        age = (now_ms - json.loads(head)["message_timestamp"]) / 1000 if head else None
        result[name] = (ready, delayed, dead, max(held - ready, 0), age)
    return result


def _rabbitmq_depths(names: list[str]) -> dict[str, tuple[int, int, int, int | None, float | None]]:
    return {name: (*current_broker().get_queue_message_counts(name), None, None) for name in names}


def queue_stats(minutes: int = 5) -> list[QueueStats]:
    names = queue_names()
    depths = _redis_depths(names) if isinstance(current_broker(), RedisBroker) else _rabbitmq_depths(names)
    totals = _minute_stats(minutes)
    workers = [w for w in worker_processes() if w.alive]
    seen = {k.decode(): float(v) for k, v in
            ops_redis().hgetall(registry.keys(get_settings().queue_namespace)["queue_seen"]).items()}
    return [
        QueueStats(name=name, ready=ready, delayed=delayed, dead=dead, in_progress=held, oldest_age_seconds=age,
                   live_workers=sum(name in w.queues for w in workers), last_worker_seen=seen.get(name),
                   done=totals.get(f"done:{name}", 0), failed=totals.get(f"failed:{name}", 0), minutes=minutes)
        for name, (ready, delayed, dead, held, age) in depths.items()
    ]


def stage_percentiles(minutes: int = 15) -> dict[str, dict[str, float | int]]:
    """Per actor: messages finished in the last minutes and the 50th, 90th and 99th percentile of
    their duration in ms (the upper bound of the registry's bucket holding that rank)."""
    buckets: dict[str, dict[int, int]] = {}
    for name, count in _minute_stats(minutes).items():
        if name.startswith("duration:"):
            actor, bound = name.removeprefix("duration:").rsplit(":", 1)
            buckets.setdefault(actor, {})[int(bound)] = count
    result = {}
    for actor, counts in sorted(buckets.items()):
        total = sum(counts.values())
        ranks = {}
        for label, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            seen = 0
            for bound in sorted(counts):
                seen += counts[bound]
                if seen >= q * total:
                    ranks[label] = bound
                    break
        result[actor] = {"count": total, **ranks}
    return result


# How long a notification normally stays in each status before it moves on; longer is stuck.
STUCK_AFTER = {
    statuses.CREATED: datetime.timedelta(minutes=10),
    statuses.PENDING_VIRUS_CHECK: datetime.timedelta(minutes=10),
    statuses.SENDING: datetime.timedelta(hours=1),
}


def stuck_notifications(limit: int = 50) -> list[Notification]:
    """Notifications in created, pending-virus-check or sending beyond their normal time, oldest
    first (a created one counts from when it fell due). Reads the (status, created_at) index."""
    now = utcnow()
    found: list[Notification] = []
    for status, normal in STUCK_AFTER.items():
        condition = (Notification.status == status) & (Notification.created_at < now - normal)
        if status == statuses.CREATED:
            condition &= Notification.scheduled_for.is_null() | (Notification.scheduled_for < now - normal)
        found.extend(Notification.select(Notification.id, Notification.service, Notification.notification_type,
                                      Notification.status, Notification.created_at, Notification.key_type)
                  .where(condition).order_by(Notification.created_at).limit(limit))
    return sorted(found, key=lambda n: n.created_at)[:limit]
