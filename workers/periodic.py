"""Periodic jobs, sent by the scheduler process and run by the workers on the periodic queue."""
from __future__ import annotations

import datetime
import logging

import dramatiq

from models.db import utcnow
from models.notification import Notification
from pipeline import statuses
from workers.broker import broker  # noqa: F401  (actors bind to the configured broker)

log = logging.getLogger(__name__)

# A notification still `created` this long after it was due has lost its queue message.
STUCK_AFTER = datetime.timedelta(minutes=2)
# A claim older than this belongs to a worker that died during the provider call: whether the
# provider got the message is unknown, so it is failed rather than risk sending it twice.
CLAIM_ABANDONED_AFTER = datetime.timedelta(minutes=10)
SENDING_TIMEOUT = datetime.timedelta(hours=72)


def _move(notification_id: object, new_status: str) -> None:
    try:
        statuses.transition(notification_id, new_status)
    except statuses.IllegalTransition:
        pass  # a receipt moved it on meanwhile; the refusal is logged by the transition table


@dramatiq.actor(queue_name="periodic", max_retries=0)
def sweep_stuck_notifications() -> None:
    from workers.sending import enqueue_deliveries

    now = utcnow()
    stuck = Notification.select().where(
        (Notification.status == statuses.CREATED)
        & Notification.notification_type.in_(("sms", "email"))
        & Notification.dispatch_started_at.is_null()
        & (Notification.created_at < now - STUCK_AFTER)
        & (Notification.scheduled_for.is_null() | (Notification.scheduled_for < now - STUCK_AFTER))
    ).limit(10_000)
    enqueue_deliveries(list(stuck))
    abandoned = Notification.select(Notification.id).where(
        (Notification.status == statuses.CREATED)
        & (Notification.dispatch_started_at < now - CLAIM_ABANDONED_AFTER)
    )
    for row in abandoned:
        log.warning("dispatch of %s was abandoned mid-call; marking technical-failure", row.id)
        _move(row.id, statuses.TECHNICAL_FAILURE)


@dramatiq.actor(queue_name="periodic", max_retries=0)
def time_out_sending() -> None:
    """Email and sms with no final receipt 72 hours after creation become temporary-failure."""
    overdue = Notification.select(Notification.id).where(
        Notification.status.in_((statuses.SENDING, statuses.PENDING))
        & Notification.notification_type.in_(("sms", "email"))
        & (Notification.created_at < utcnow() - SENDING_TIMEOUT)
    )
    for row in overdue:
        _move(row.id, statuses.TEMPORARY_FAILURE)


# (name, interval in seconds, actor)
SCHEDULE: list[tuple[str, int, dramatiq.Actor]] = [
    ("sweep-stuck-notifications", 60, sweep_stuck_notifications),
    ("time-out-sending", 3600, time_out_sending),
]


@dramatiq.actor(queue_name="periodic", max_retries=0)
def delete_expired_files() -> None:
    """Files sent by email past their retention period: stored bytes and rows (issue 5)."""
    from pipeline.documents.cleanup import delete_expired_files as delete_expired, delete_orphaned_files

    delete_expired()
    delete_orphaned_files()


SCHEDULE.append(("delete-expired-files", 3600, delete_expired_files))

# Letters (workers/letters.py): hand accepted letters to the printer, read its answers, resend lost stages.
from workers.letters import print_letters, read_print_answers, sweep_stuck_letters  # noqa: E402
from config import get_settings as _get_settings  # noqa: E402

SCHEDULE.extend([
    ("print-letters", _get_settings().print_batch_seconds, print_letters),
    ("read-print-answers", _get_settings().print_batch_seconds, read_print_answers),
    ("sweep-stuck-letters", 60, sweep_stuck_letters),
])

# The simulated gateway's outboxes (workers/receipts.py): a lost flush message must not strand them.
from workers.receipts import sweep_simulated_outboxes  # noqa: E402

SCHEDULE.append(("sweep-simulated-outboxes", 60, sweep_simulated_outboxes))

# Retention (workers/retention.py): once a day, past-retention notifications, received texts, attempts.
from workers.retention import DAY_SECONDS, purge_expired  # noqa: E402

SCHEDULE.append(("purge-expired", DAY_SECONDS, purge_expired))

# SMS gateways (workers/sms_rotation.py): a gateway slow with its receipts gets a smaller share.
from workers.sms_rotation import check_slow_receipts  # noqa: E402

SCHEDULE.append(("check-slow-sms-receipts", 60, check_slow_receipts))
