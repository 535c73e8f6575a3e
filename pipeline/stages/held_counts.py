"""The counts of each service's notifications still held, per UTC day of creation and kind
(models/held_count.py): read for the dashboard, the usage page and the rollup instead of the
notifications, and the journal the database writes folded into them. The reads and the fold are
operations of the throughput seam (held_counts, fold_held_counts: pipeline/infrastructure/throughput/shared.py
says how the counts are kept); workers/periodic.py folds every FOLD_SECONDS.
"""
from __future__ import annotations

import datetime

from models.held_count import COUNTED_FROM_THE_START, HeldCountStart, as_date

FOLD_SECONDS = 10


def counted_from() -> datetime.date:
    """The first UTC day whose notifications are all counted. A database that held notifications when
    step 180 ran is counted from the day after; the days before are read from their notifications."""
    row = HeldCountStart.select(HeldCountStart.counted_from).first()
    return as_date(row.counted_from) if row is not None else COUNTED_FROM_THE_START
