"""Texts and emails stuck on their way to a provider, found by the periodic sweep: those whose queue
message was lost (sent again), and claims whose send's outcome stayed unknown too long (failed).

A claim whose send's outcome is unknown (timed out after the request went out, or its worker died)
waits for the provider's receipt or its lookup (pipeline/stages/unknown_outcomes.py), which move it
on; it becomes technical-failure only when neither did within OUTCOME_UNKNOWN_TIMEOUT_SECONDS.
"""
from __future__ import annotations

import datetime
import logging

from config import Settings
from models import crypto
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.stages import status_changes
from pipeline.stages.letters.held import held_batch_ids

log = logging.getLogger(__name__)
SWEPT_AT_ONCE = 10_000


def lost_messages(now: datetime.datetime, settings: Settings) -> list[Notification]:
    """Sends `created` and unclaimed for longer than STUCK_AFTER_SECONDS: their message was lost.
    Only the columns enqueueing needs: content is not decrypted, so a bad row cannot stop the sweep."""
    stuck_after = datetime.timedelta(seconds=settings.stuck_after_seconds)
    return list(Notification.select(Notification.id, Notification.key_type, Notification.notification_type,
                                    Notification.scheduled_for).where(
        (Notification.status == statuses.CREATED)
        & Notification.notification_type.in_(("sms", "email"))
        & Notification.dispatch_started_at.is_null()
        & (Notification.created_at < now - stuck_after)
        # One waiting out an outage has its delayed message: lost only if overdue by as much again.
        & (Notification.retry_at.is_null() | (Notification.retry_at < now - stuck_after))
        & (Notification.scheduled_for.is_null() | (Notification.scheduled_for < now - stuck_after))
    ).limit(SWEPT_AT_ONCE))


def fail_abandoned_claims(now: datetime.datetime, settings: Settings) -> int:
    """Claims older than OUTCOME_UNKNOWN_TIMEOUT_SECONDS with no receipt become technical-failure
    (unless a receipt came meanwhile); a row that cannot be read is logged and left. The number of
    such bad rows."""
    abandoned = Notification.select(Notification.id).where(
        (Notification.status == statuses.CREATED)
        & (Notification.dispatch_started_at
           < now - datetime.timedelta(seconds=settings.outcome_unknown_timeout_seconds))
    )
    # Their letters wait, claimed, for the print provider (pipeline/stages/letters/held.py).
    held_batches = held_batch_ids()
    if held_batches:
        abandoned = abandoned.where(Notification.provider_reference.is_null()
                                    | Notification.provider_reference.not_in(held_batches))
    bad = 0
    for row in abandoned:
        log.warning("no receipt for %s, whose send's outcome was unknown; marking technical-failure", row.id)
        try:
            status_changes.transition_if_allowed(row.id, statuses.TECHNICAL_FAILURE)
        except crypto.UNREADABLE:  # a listener that reads the row's content
            bad += 1
            log.exception("sweep-stuck-notifications: skipped notification %s, which cannot be read", row.id)
    if bad:
        log.warning("sweep-stuck-notifications: %d rows skipped", bad)
    return bad
