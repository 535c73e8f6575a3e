"""Dead-lettered messages (Dramatiq's dead-letter queue of a queue, `xq_name`): inspect them, re-queue or drop them.

Redis broker only: RabbitMQ keeps its dead letters in queues that can be counted (queue_stats) but
not read without consuming them; use RabbitMQ's own management tools there.
"""
from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.common import xq_name

from workers import registry
from workers.broker import current_broker, ops_redis
from workers.queue_stats import redis_key


@dataclass(frozen=True)
class DeadLetter:
    queue: str
    message_id: str
    actor: str
    args: list[Any]
    retries: int
    error: str  # the last line of the last traceback
    traceback: str
    died_at: datetime.datetime
    enqueued_at: datetime.datetime

    @property
    def call(self) -> str:
        """The actor and its arguments as the dead-letters page shows them: a group's message's list
        of notification ids in brackets, without Python's quotes."""
        def shown(argument: Any) -> str:
            return f"[{', '.join(map(str, argument))}]" if isinstance(argument, list) else str(argument)
        return f"{self.actor}({', '.join(map(shown, self.args))})"


def supported() -> bool:
    return isinstance(current_broker(), RedisBroker)


def _keys(queue: str) -> tuple[str, str]:
    return redis_key(xq_name(queue)), redis_key(xq_name(queue), messages=True)


def _utc(ms: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


def _decode(queue: str, message_id: str, data: bytes, died_ms: float, final_error: bytes | None) -> DeadLetter:
    message = dramatiq.Message.decode(data)
    trace = final_error.decode() if final_error else message.options.get("traceback") or ""
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    return DeadLetter(queue=queue, message_id=message_id, actor=message.actor_name, args=list(message.args),
                      retries=message.options.get("retries", 0), error=lines[-1] if lines else "",
                      traceback=trace, died_at=_utc(died_ms), enqueued_at=_utc(message.message_timestamp))


def list_dead(queue: str, limit: int = 50) -> list[DeadLetter]:
    """The most recently dead-lettered messages of a queue, newest first."""
    index, messages = _keys(queue)
    entries = current_broker().client.zrevrange(index, 0, limit - 1, withscores=True)
    if not entries:
        return []
    ids = [message_id.decode() for message_id, _ in entries]
    datas = current_broker().client.hmget(messages, ids)
    errors = ops_redis().mget([registry.dead_error_key(current_broker().namespace, message_id) for message_id in ids])
    return [_decode(queue, message_id, data, died, error)
            for message_id, (_, died), data, error in zip(ids, entries, datas, errors, strict=True) if data is not None]


def _take(queue: str, message_id: str) -> bytes | None:
    """Remove one dead letter; its data when this call removed it (two admins: one wins)."""
    index, messages = _keys(queue)
    pipe = current_broker().client.pipeline(transaction=True)
    pipe.hget(messages, message_id).zrem(index, message_id).hdel(messages, message_id)
    data, removed, _ = pipe.execute()
    if removed:
        ops_redis().delete(registry.dead_error_key(current_broker().namespace, message_id))
    return data if removed else None


def requeue(queue: str, message_id: str) -> bool:
    """Send the message to its queue again with fresh retries; False when it was not there."""
    data = _take(queue, message_id)
    if data is None:
        return False
    message = dramatiq.Message.decode(data)
    fresh = {k: v for k, v in message.options.items() if k not in ("retries", "traceback", "requeue_timestamp", "eta")}
    current_broker().enqueue(dataclasses.replace(message, options=fresh, queue_name=queue))
    return True


def drop(queue: str, message_id: str) -> bool:
    return _take(queue, message_id) is not None


def _all_ids(queue: str) -> list[str]:
    index, _ = _keys(queue)
    return [message_id.decode() for message_id in current_broker().client.zrange(index, 0, -1)]


def requeue_all(queue: str) -> int:
    return sum(requeue(queue, message_id) for message_id in _all_ids(queue))


def drop_all(queue: str) -> int:
    return sum(drop(queue, message_id) for message_id in _all_ids(queue))
