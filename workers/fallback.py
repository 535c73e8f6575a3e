"""The fallbacks queue: the next step of a fallback chain (pipeline/stages/fallback.py), started by the
status-change listener below (workers.wire registers it) once a message with alternatives left has
failed for good. A queue of its own, so a burst of failures never waits behind the sends.

The listener marks the failed message's link in the failure's own transaction, then sends the step's
message after the commit: the mark is the step's outbox, read by the stuck-sends sweep should the
message be lost (a process killed after the commit, Redis away then)."""
from __future__ import annotations

import peewee

from pipeline.stages import fallback
from workers.actors import actor
from workers.enqueue import enqueue_after_commit
from workers.letters import enqueue_letter_pdf
from workers.sending import enqueue_deliveries

MAX_RETRIES = 5


def _retry_when(retries: int, exc: BaseException) -> bool:
    # A database briefly away is worth waiting for; anything else is a bug, reported once.
    return isinstance(exc, (peewee.OperationalError, peewee.InterfaceError)) and retries < MAX_RETRIES


@actor(queue_name="fallbacks", max_retries=MAX_RETRIES, retry_when=_retry_when)
def send_fallback(notification_id: str) -> None:
    fallback.send_next(notification_id, {"email": enqueue_deliveries, "letter": enqueue_letter_pdf})


def may_fall_back(new_status: str) -> bool:
    """Whether a change to new_status may start a step: such a change is made in a transaction with the mark."""
    return new_status in fallback.FALLS_BACK_ON


def status_changed(notification_id: str, new_status: str) -> None:
    """The status-change listener: a final failure of a message with an alternative left starts the next step."""
    if may_fall_back(new_status) and fallback.mark_failed(notification_id):
        enqueue_after_commit(send_fallback, notification_id)
