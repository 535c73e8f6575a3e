"""The fast implementation of the throughput seam: group commit, cached SQL and leases (see
recording.py, counters.py and leases.py for what each saves, measured)."""
from __future__ import annotations

from models.notification import Notification
from pipeline.daily_limits import DailyCount
from pipeline.infrastructure.throughput import Enqueue, WithRow
from pipeline.infrastructure.throughput.fast import counters, leases, recording


class Fast:
    def record(self, rows: list[Notification], enqueue: Enqueue, daily: tuple[DailyCount, ...] = (),
               with_row: WithRow | None = None) -> None:
        recording.record(rows, enqueue, daily, with_row)

    def check_rate_limit(self, service_id: object, key_type: str, limit: int) -> None:
        leases.check_rate_limit(service_id, key_type, limit)

    def settings_generation(self) -> bytes | None:
        return counters.settings_generation()
