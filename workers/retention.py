"""The nightly retention purge, on the periodic queue (scheduled in workers/periodic.py)."""
from __future__ import annotations

from pipeline.stages.retention import purge_expired as purge
from workers.actors import actor

# A first purge of a large backlog runs long; batches commit as they go, so a purge cut off by this
# limit (or a killed worker) is resumed where it stopped by the next night's run.
TIME_LIMIT_MS = 6 * 3600 * 1000
DAY_SECONDS = 24 * 3600


@actor(queue_name="periodic", max_retries=0, time_limit=TIME_LIMIT_MS)
def purge_expired() -> None:
    """Notifications past their service's retention (counts kept), received texts and callback
    attempts past 7 days, letter PDFs of purged letters."""
    purge()
