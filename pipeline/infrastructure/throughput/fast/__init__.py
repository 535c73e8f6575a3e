"""The fast implementation of the throughput seam: group commit, cached SQL and leases (see
recording.py, counters.py, leases.py, statuses.py and dispatch.py for what each saves, measured;
batching.py for the group commit, sql.py for the statements built once)."""
from __future__ import annotations

import datetime
import uuid
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from models.notification import Notification
from pipeline.infrastructure.daily_limits import DailyCount
from pipeline.infrastructure.throughput import Enqueue, Grouped, Loaded, R, T, WithRow
from pipeline.infrastructure.throughput.fast import counters, dispatch, leases, recording, statuses
from pipeline.infrastructure.throughput.fast.batching import Batcher


class Fast:
    def __init__(self) -> None:
        # Weakly: a group made per object (an outbox's adds) goes with its object.
        self._batchers: weakref.WeakKeyDictionary[Grouped, Batcher] = weakref.WeakKeyDictionary()

    def record(self, rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
               with_row: WithRow | None = None) -> None:
        recording.record(rows, enqueue, daily, with_row)

    def check_rate_limit(self, service_id: object, key_type: str, limit: int) -> None:
        leases.check_rate_limit(service_id, key_type, limit)

    def settings_generation(self) -> bytes | None:
        return counters.settings_generation()

    def change_status(self, notification_id: Any, allowed: frozenset[str], values: dict[str, Any]) -> str | None:
        return statuses.change_status(notification_id, allowed, values)

    def change_statuses(self, notification_ids: list[Any], allowed: frozenset[str],
                        values: dict[str, Any]) -> list[tuple[Any, str]]:
        return statuses.change_statuses(notification_ids, allowed, values)

    def change_each_status(self, allowed: frozenset[str], shared: dict[str, Any],
                           changes: Sequence[tuple[Any, Mapping[str, Any]]]) -> list[tuple[Any, str]]:
        return statuses.change_each_status(allowed, shared, changes)

    def awaiting_dispatch(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        return dispatch.awaiting_dispatch(notification_ids)

    def claim_awaiting(self, notification_ids: Sequence[uuid.UUID]) -> list[Loaded | None]:
        return dispatch.claim_awaiting(notification_ids)

    def claim(self, notification_id: Any, at: datetime.datetime) -> bool:
        return dispatch.claim(notification_id, at)

    def any_held_receipt(self, provider: str, provider_id: str) -> bool:
        return dispatch.any_held_receipt(provider, provider_id)

    def submit_all(self, group: Grouped[T, R], items: Sequence[T]) -> list[R]:
        return self.batcher(group).submit_all(items)

    def batcher(self, group: Grouped[T, R]) -> Batcher[T, R]:
        """The Batcher that serves group in this process."""
        batcher = self._batchers.get(group)
        if batcher is None:  # made twice at once, one of them serves both
            batcher = self._batchers.setdefault(
                group, Batcher(group.name, group.process, linger_seconds=group.linger_seconds))
        return batcher
