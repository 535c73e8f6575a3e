"""How far a job has got: its rows made into notifications, and those notifications by outcome.

The counts are one GROUP BY over the job's rows, read through the (job_id, job_row_number) index:
a 100,000-row job is counted in well under a second without counters that every status change
would have to keep up (status_changes.transition's hot path stays as it is).
"""
from __future__ import annotations

from dataclasses import dataclass

import peewee

from models.job import Job
from models.notification import Notification
from models.plain_rows import tuple_rows
from pipeline.domain.statuses import DELIVERED, FAILURES, SENT

OUTCOMES = ("sending", "delivered", "failed")


@dataclass(frozen=True)
class Progress:
    rows: int  # in the file
    processed: int  # made into notifications
    sending: int  # notifications not yet delivered or failed (created, sending, pending)
    delivered: int  # delivered, or sent (international texts report nothing further)
    failed: int
    cancelled: int


def outcome(status: str) -> str:
    if status in (DELIVERED, SENT):
        return "delivered"
    if status in FAILURES:
        return "failed"
    if status == "cancelled":
        return "cancelled"
    return "sending"


def job_progress(job: Job) -> Progress:
    totals = {"sending": 0, "delivered": 0, "failed": 0, "cancelled": 0}
    query = (Notification.select(Notification.status, peewee.fn.COUNT(Notification.id))
             .where(Notification.job_id == job.id).group_by(Notification.status))
    for status, count in tuple_rows(query):
        totals[outcome(status)] += count
    return Progress(rows=job.notification_count, processed=job.rows_processed, **totals)
