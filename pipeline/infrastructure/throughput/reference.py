"""The reference implementation of the throughput seam: the peewee ORM and a Redis round trip of
each request's own, the plainest way to do what each operation of Throughput says."""
from __future__ import annotations

import datetime
import functools
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from models import cache, crypto
from models.db import database, utcnow
from models.held_receipt import HeldReceipt
from models.notification import Notification, unindexed_status
from pipeline.domain.statuses import CREATED
from pipeline.infrastructure import daily_limits
from pipeline.infrastructure.daily_limits import DailyCount
from pipeline.infrastructure.redis_state import client, namespaced
from pipeline.infrastructure.throughput import (
    RATE_WINDOW_SECONDS,
    Enqueue,
    Grouped,
    Loaded,
    R,
    T,
    WithRow,
    rate_limit_refusal,
)
from pipeline.infrastructure.throughput.shared import Shared

BATCH_SIZE = 100  # rows per INSERT of a job's chunk: SQLite takes at most 32,766 parameters in one


class Reference(Shared):
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

    def awaiting_dispatch(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        return _loaded(notification_ids, _awaiting())

    def claim_awaiting(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        loaded: list[Loaded | None] = []
        for each in notification_ids:
            claimed = (Notification.update(dispatch_started_at=utcnow())
                       .where((Notification.id == each) & _awaiting() & (Notification.key_type != "test")).execute())
            loaded += _loaded([each], Notification.dispatch_started_at.is_null(False)) if claimed else [None]
        return loaded

    def claim(self, notification_id: Any, at: datetime.datetime) -> bool:
        return bool(Notification.update(dispatch_started_at=at)
                    .where((Notification.id == notification_id) & _awaiting()).execute() == 1)

    def any_held_receipt(self, provider: str, provider_id: str) -> bool:
        return bool(HeldReceipt.select().where((HeldReceipt.provider == provider)
                                               & (HeldReceipt.provider_id == provider_id)).exists())

    def submit_all(self, group: Grouped[T, R], items: Sequence[T]) -> list[R]:
        outcomes = list(group.process(list(items)))
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return cast("list[R]", outcomes)


def _awaiting() -> Any:
    return (unindexed_status() == CREATED) & Notification.dispatch_started_at.is_null()


def _loaded(notification_ids: Sequence[uuid.UUID], condition: Any) -> list[Loaded | None]:
    """Each notification found, read by a query of its own; one whose content no longer decrypts
    fails only when its send makes it a model."""
    loaded: list[Loaded | None] = []
    seen: set[uuid.UUID] = set()
    for each in notification_ids:
        if each in seen:  # an id asked for twice is found once
            loaded.append(None)
            continue
        seen.add(each)
        try:
            found = Notification.get_or_none((Notification.id == each) & condition)
        except crypto.UNREADABLE as unreadable:
            loaded.append(functools.partial(_raise, unreadable))
            continue
        loaded.append(None if found is None else functools.partial(_same, found))
    return loaded


def _raise(error: BaseException) -> Notification:
    raise error


def _same(notification: Notification) -> Notification:
    return notification


def change_statuses(notification_ids: list[Any], allowed: frozenset[str],
                    values: dict[str, Any]) -> list[tuple[Any, str]]:
    """UPDATE the notifications whose status is one of allowed to values: (id, type) of each moved."""
    query = (Notification.update(values)
             .where(Notification.id.in_(notification_ids) & unindexed_status().in_(allowed))
             .returning(Notification.id, Notification.notification_type))
    return [(row.id, row.notification_type) for row in query.execute()]
