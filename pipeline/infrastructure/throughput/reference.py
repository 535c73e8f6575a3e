"""The reference implementation of the throughput seam: the peewee ORM and a Redis round trip of
each request's own. What the operations mean; the fast implementation must behave the same."""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

from models import cache
from models.db import database
from models.notification import Notification, unindexed_status
from pipeline.infrastructure import daily_limits
from pipeline.infrastructure.daily_limits import DailyCount
from pipeline.infrastructure.redis_state import client, namespaced
from pipeline.infrastructure.throughput import RATE_WINDOW_SECONDS, Enqueue, WithRow, rate_limit_refusal

BATCH_SIZE = 100  # rows per INSERT of a job's chunk: SQLite takes at most 32,766 parameters in one


class Reference:
    def record(self, rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
               with_row: WithRow | None = None) -> None:
        counted = daily_limits.reserve_sends(daily, len(rows))
        try:
            with database.atomic():
                Notification.bulk_create(rows, batch_size=BATCH_SIZE)
                for row in rows:
                    if with_row is not None:
                        with_row(row)
                enqueue(rows)  # its messages go once the outermost transaction commits
        except BaseException:
            daily_limits.give_back(counted)
            raise

    def check_rate_limit(self, service_id: object, key_type: str, limit: int) -> None:
        window = int(time.time()) // RATE_WINDOW_SECONDS
        key = namespaced("rate", service_id, key_type, window)
        pipe = client().pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, RATE_WINDOW_SECONDS * 2)
        if pipe.execute()[0] > limit:
            raise rate_limit_refusal(key_type, limit)

    def settings_generation(self) -> bytes | None:
        # An MGET, as the fast implementation reads it: the generation's readers are counted by command.
        return cast("bytes | None", client().mget([cache.generation_key()])[0])

    def change_status(self, notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
        moved = change_statuses([notification_id], allowed, values)
        return moved[0][1] if moved else None

    def change_statuses(self, notification_ids: list[Any], allowed: frozenset[str],
                        values: dict[str, Any]) -> list[tuple[Any, str]]:
        return change_statuses(notification_ids, allowed, values)

    def change_each_status(self, allowed: frozenset[str], shared: dict[str, Any],
                           changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
        moved = []
        with database.atomic():
            for notification_id, fields in changes:
                moved += change_statuses([notification_id], allowed, {**shared, **fields})
        return moved


def change_statuses(notification_ids: list[Any], allowed: frozenset[str],
                    values: dict[str, Any]) -> list[tuple[Any, str]]:
    """UPDATE the notifications whose status is one of allowed to values: (id, type) of each moved."""
    query = (Notification.update(values)
             .where(Notification.id.in_(notification_ids) & unindexed_status().in_(allowed))
             .returning(Notification.id, Notification.notification_type))
    return [(row.id, row.notification_type) for row in query.execute()]
