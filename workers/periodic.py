"""Periodic jobs, sent by the scheduler process and run by the workers on the periodic queue.

Their intervals and ages are settings (config.py); what each does is its stage's.
"""
from __future__ import annotations

import datetime
import logging

from config import get_settings
from models.db import utcnow
from pipeline.stages import fallback, stuck_sends
from pipeline.stages.receipts import sweep_held_receipts
from pipeline.stages.sending_timeout import time_out_overdue
from workers.actors import Actor, actor
from workers.enqueue import enqueue_after_commit, relay_waiting

log = logging.getLogger(__name__)
_settings = get_settings()


@actor(queue_name="periodic", max_retries=0)
def sweep_stuck_notifications() -> None:
    """Send again what lost its queue message (a send, or a fallback chain's next step); fail claims
    whose outcome stayed unknown."""
    from workers.fallback import send_fallback
    from workers.sending import enqueue_deliveries

    settings, now = get_settings(), utcnow()
    enqueue_deliveries(stuck_sends.lost_messages(now, settings))
    for notification_id in fallback.steps_overdue(now, settings):
        enqueue_after_commit(send_fallback, notification_id)
    stuck_sends.fail_abandoned_claims(now, settings)


@actor(queue_name="periodic", max_retries=0)
def relay_follow_ups() -> None:
    """Send the follow-ups (workers.enqueue.follow_up) written more than STUCK_AFTER_SECONDS ago and
    still waiting: their writer died between its commit and its relay, or the broker was away."""
    relayed = relay_waiting(utcnow() - datetime.timedelta(seconds=get_settings().stuck_after_seconds))
    if relayed:
        log.warning("relayed %d follow-ups their writer had not sent", relayed)


@actor(queue_name="periodic", max_retries=0)
def time_out_sending() -> None:
    """Email and sms with no final receipt SENDING_TIMEOUT_SECONDS (72 hours) after creation become
    temporary-failure."""
    log.info("sending timeout: %d notifications moved to temporary-failure", time_out_overdue())


@actor(queue_name="periodic", max_retries=0)
def sweep_held_receipts_job() -> None:
    """Receipts that came before their message was known: apply those known now, drop old ones."""
    sweep_held_receipts()


# (name, interval in seconds, actor)
SCHEDULE: list[tuple[str, int, Actor]] = [
    ("sweep-stuck-notifications", _settings.sweep_interval_seconds, sweep_stuck_notifications),
    ("relay-follow-ups", _settings.sweep_interval_seconds, relay_follow_ups),
    ("time-out-sending", _settings.slow_sweep_interval_seconds, time_out_sending),
    ("sweep-held-receipts", _settings.sweep_interval_seconds, sweep_held_receipts_job),
]


@actor(queue_name="periodic", max_retries=0)
def delete_expired_files() -> None:
    """Files sent by email past their retention period: stored bytes and rows (issue 5)."""
    from pipeline.stages.documents.cleanup import delete_expired_files as delete_expired, delete_orphaned_files

    delete_expired()
    delete_orphaned_files()


SCHEDULE.append(("delete-expired-files", _settings.slow_sweep_interval_seconds, delete_expired_files))

# Letters (workers/letters.py): hand accepted letters to the printer, read its answers, resend lost stages.
from config import get_settings as _get_settings  # noqa: E402
from workers.letters import print_letters, read_print_answers, sweep_stuck_letters  # noqa: E402

SCHEDULE.extend([
    ("print-letters", _get_settings().print_batch_seconds, print_letters),
    ("read-print-answers", _get_settings().print_batch_seconds, read_print_answers),
    ("sweep-stuck-letters", _settings.sweep_interval_seconds, sweep_stuck_letters),
])

# The simulated gateway's outboxes (workers/receipts.py): a lost flush message must not strand them.
from workers.enqueue import start_flush  # noqa: E402
from workers.receipts import flush_simulated_receipts, outbox_of  # noqa: E402
from workers.sending import flush_simulated_sends  # noqa: E402


@actor(queue_name="periodic", max_retries=0)
def sweep_outboxes() -> None:
    """Start a flush for what a lost flush message left waiting; flushes running side by side are
    safe, each batch is taken by one of them."""
    for flush in (flush_simulated_sends, flush_simulated_receipts):
        if outbox_of(flush).waiting():
            start_flush(flush)


SCHEDULE.append(("sweep-outboxes", _settings.sweep_interval_seconds, sweep_outboxes))

# Retention (workers/retention.py): once a day, past-retention notifications, received texts, attempts.
from workers.retention import DAY_SECONDS, purge_expired  # noqa: E402

SCHEDULE.append(("purge-expired", DAY_SECONDS, purge_expired))

# SMS gateways (workers/sms_rotation.py): a gateway slow with its receipts gets a smaller share.
from workers.sms_rotation import check_slow_receipts  # noqa: E402

SCHEDULE.append(("check-slow-sms-receipts", 60, check_slow_receipts))
# Texts whose send's outcome is unknown (workers/unknown_outcomes.py): asked for at gateways that can be asked.
from workers.unknown_outcomes import SETTLE_INTERVAL_SECONDS, settle_unknown_outcomes  # noqa: E402

SCHEDULE.append(("settle-unknown-outcomes", SETTLE_INTERVAL_SECONDS, settle_unknown_outcomes))

# The console's messages reports (workers/reports.py): kept a day, then deleted with their files.
from workers.reports import purge_message_reports  # noqa: E402

SCHEDULE.append(("purge-message-reports", _settings.slow_sweep_interval_seconds, purge_message_reports))
# The daily rollup (pipeline/stages/daily_rollup.py): closed days summed for the dashboard and the usage page.
from pipeline.stages.daily_rollup import roll_up  # noqa: E402

ROLL_UP_TIME_LIMIT_MS = 3600 * 1000  # a first rollup of every held day runs long; the next run resumes


@actor(queue_name="periodic", max_retries=0, time_limit=ROLL_UP_TIME_LIMIT_MS)
def roll_up_days() -> None:
    """Each service's closed days not yet settled, summed again from one snapshot."""
    log.info("daily rollup: %d service days written", roll_up())


SCHEDULE.append(("roll-up-days", _settings.slow_sweep_interval_seconds, roll_up_days))
# The held counts (pipeline/stages/held_counts.py): the journal the database writes, added into the counts.
from pipeline.infrastructure import throughput  # noqa: E402
from pipeline.stages.held_counts import FOLD_SECONDS  # noqa: E402


@actor(queue_name="periodic", max_retries=0)
def fold_held_counts() -> None:
    """Keep the journal short, so that the dashboard's read of today's counts stays a few rows."""
    throughput.seam().fold_held_counts()


SCHEDULE.append(("fold-held-counts", FOLD_SECONDS, fold_held_counts))
# Bulk jobs (workers/jobs.py): due jobs whose start was lost, jobs whose chunk was lost.
from workers.jobs import sweep_jobs  # noqa: E402

SCHEDULE.append(("sweep-jobs", _settings.sweep_interval_seconds, sweep_jobs))
# API keys (workers/key_expiry.py): their managers are told 14 days before a key expires.
from workers.key_expiry import warn_expiring_keys  # noqa: E402

SCHEDULE.append(("warn-expiring-keys", _settings.slow_sweep_interval_seconds, warn_expiring_keys))
# Case events (workers/case_events.py): events and klantcontacten whose message was lost; old events.
from workers.case_events import sweep_case_events  # noqa: E402

SCHEDULE.append(("sweep-case-events", _settings.sweep_interval_seconds, sweep_case_events))
# Whether each service's subscription at Open Notificaties still holds (pipeline/stages/case_events/watch.py).
from pipeline.stages.case_events.watch import CHECK_EVERY_SECONDS  # noqa: E402
from workers.case_events import check_case_event_subscriptions  # noqa: E402

SCHEDULE.append(("check-case-event-subscriptions", CHECK_EVERY_SECONDS, check_case_event_subscriptions))
