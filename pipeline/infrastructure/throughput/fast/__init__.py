"""The fast implementation of the throughput seam: group commit, cached SQL and leases (see
recording.py, counters.py, leases.py and statuses.py for what each saves, measured)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from models.notification import Notification
from pipeline.infrastructure.daily_limits import DailyCount
from pipeline.infrastructure.throughput import Enqueue, WithRow
from pipeline.infrastructure.throughput.fast import counters, leases, recording, statuses


class Fast:
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
