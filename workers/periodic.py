"""Periodic jobs, sent by the scheduler process and run by the workers on the periodic queue."""
from __future__ import annotations

import dramatiq

from workers.broker import broker  # noqa: F401  (actors bind to the configured broker)

# (name, interval in seconds, actor): filled as periodic jobs are added.
SCHEDULE: list[tuple[str, int, dramatiq.Actor]] = []
