"""The sending timeout (SENDING_TIMEOUT_SECONDS, 72 hours): email and sms with no final receipt by then
become temporary-failure.

The overdue rows are walked per status in the (status, created_at) index's order, continuing after
the last row of each batch, and each batch moves in one statement through the transition table.
"""
from __future__ import annotations

import datetime
import uuid

import peewee

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.stages import status_changes

BATCH = 1000
WAITING = (statuses.SENDING, statuses.PENDING)


def overdue_batch_query(status: str, cutoff: datetime.datetime,
                        after: tuple[datetime.datetime, uuid.UUID] | None, batch_size: int) -> peewee.Select:
    """The next batch of email and sms in `status` created before `cutoff`, after `after` in index order."""
    condition = ((Notification.status == status) & (Notification.created_at < cutoff)
                 & Notification.notification_type.in_(("sms", "email")))
    if after is not None:
        condition &= peewee.Tuple(Notification.created_at, Notification.id) > peewee.Tuple(
            Notification.created_at.db_value(after[0]), Notification.id.db_value(after[1]))
    return (Notification.select(Notification.id, Notification.created_at).where(condition)
            .order_by(Notification.created_at, Notification.id).limit(batch_size))


def time_out_overdue(*, now: datetime.datetime | None = None, batch_size: int = BATCH) -> int:
    """Move every overdue notification to temporary-failure; how many this call moved."""
    cutoff = (now or utcnow()) - datetime.timedelta(seconds=get_settings().sending_timeout_seconds)
    moved = 0
    for status in WAITING:
        after = None
        while rows := list(overdue_batch_query(status, cutoff, after, batch_size)):
            # A receipt that moved one on meanwhile wins: the transition table skips it.
            moved += len(status_changes.transition_many([row.id for row in rows], statuses.TEMPORARY_FAILURE))
            if len(rows) < batch_size:
                break  # the walk's end, known without reading an empty range
            after = (rows[-1].created_at, rows[-1].id)
    return moved
