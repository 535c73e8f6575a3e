"""Actors of the send-sms and send-email queues: each calls the delivery stage (pipeline/stages/delivery.py)
for its notifications; groups of sends, and the test key's simulated gateway."""
from __future__ import annotations

import datetime
import functools
import logging
from collections import defaultdict

import dramatiq

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from models.outages import UNAVAILABLE
from pipeline.stages import delivery, dispatch
from pipeline.stages.outcomes import TryAgain
from pipeline.stages.routing import Gateways
from workers.actors import Actor, actor
from workers.enqueue import add_after_commit, enqueue_after_commit, enqueued_together, start_flush
from workers.receipts import (
    FLUSH_RETRIES,
    post_simulated_receipts,
    queue_simulated_receipts,
    simulated_outbox,
)
from workers.sms_rotation import circuit, pacing, slow

log = logging.getLogger(__name__)
_settings = get_settings()
RETRIES = {
    "max_retries": _settings.provider_max_retries,
    "min_backoff": _settings.provider_min_backoff_ms,
    "max_backoff": _settings.provider_max_backoff_ms,
    # A send that reached no provider asks for its own retry (dramatiq.Retry) while its window lasts
    # (pipeline/domain/retry_window.py). A database or Redis that is briefly unreachable is retried a few
    # times; anything else is a bug, reported once and failed rather than retried for hours.
    "retry_when": lambda retries, exc: isinstance(exc, dramatiq.Retry)
    or (isinstance(exc, UNAVAILABLE) and retries < _settings.provider_max_retries),
    "on_retry_exhausted": "delivery_retries_exhausted",
}


GATEWAYS = Gateways(circuit=circuit, pacing=pacing, slow=slow, queue_receipts=queue_simulated_receipts)


def deliver(notification_id: str, channel: str | None = None) -> None:
    """The delivery stage for one notification, its wait turned into Dramatiq's retry."""
    try:
        delivery.deliver(notification_id, channel, GATEWAYS)
    except TryAgain as again:
        raise dramatiq.Retry(str(again), delay=again.delay_ms) from None


@actor(queue_name="send-sms", **RETRIES)
def deliver_sms(notification_id: str) -> None:
    deliver(notification_id, "sms")


@actor(queue_name="send-email", **RETRIES)
def deliver_email(notification_id: str) -> None:
    deliver(notification_id, "email")


# The sends of bulk jobs: queues of their own, so the API's sends never wait behind a 100,000-row
# job's, and a lower priority (a larger number), so a worker holding both takes the API's first.
JOB_SEND_PRIORITY = 10


@actor(queue_name="send-job-sms", priority=JOB_SEND_PRIORITY, **RETRIES)
def deliver_job_sms(notification_id: str) -> None:
    deliver(notification_id, "sms")


@actor(queue_name="send-job-email", priority=JOB_SEND_PRIORITY, **RETRIES)
def deliver_job_email(notification_id: str) -> None:
    deliver(notification_id, "email")


# The sends recorded together (by a web process's requests of a moment, or a job's chunk) travel in
# one message, up to this many: each message costs
# a worker about as much as a send's own work, and one thread sends them one after another, so a
# larger group would hold back the last of them for little more saving.
SENDS_PER_MESSAGE = 8
# A group's message is never retried as a whole: what it cannot do is handed to messages of one send
# each (below). Only handing them over can fail, and then the sweeps send them again.
GROUP_RETRIES = {"max_retries": 0}


def _deliver_each(notification_ids: list[str], channel: str, one: Actor) -> None:
    """Send each notification of a group's message as its own message would. One that must wait out
    an outage, or meets an error, goes on (with those after it, for an error: the database or Redis
    may be away) on messages of one send each, which retry and give up as a lone send's does. The
    sends their provider takes together go first, all at once."""
    try:
        notification_ids = delivery.deliver_together(notification_ids, channel, GATEWAYS)
    except Exception as exc:
        log.warning("sending %s together failed (%r): %d sends of its group retry on messages of their own",
                    notification_ids[0], exc, len(notification_ids))
        _on_their_own(one, notification_ids, _settings.provider_min_backoff_ms)
        return
    for position, notification_id in enumerate(notification_ids):
        try:
            deliver(notification_id, channel)
        except dramatiq.Retry as retry:
            _on_their_own(one, [notification_id], retry.delay)
        except Exception as exc:
            rest = notification_ids[position:]
            log.warning("sending %s failed (%r): %d sends of its group retry on messages of their own",
                        notification_id, exc, len(rest))
            _on_their_own(one, rest, _settings.provider_min_backoff_ms)
            return


def _on_their_own(one: Actor, notification_ids: list[str], delay_ms: int | None) -> None:
    with enqueued_together():  # an outage here is logged: the sweeps send them again
        for notification_id in notification_ids:
            one.send_with_options(args=(notification_id,), delay=delay_ms)


@actor(queue_name="send-sms", **GROUP_RETRIES)
def deliver_sms_group(notification_ids: list[str]) -> None:
    _deliver_each(notification_ids, "sms", deliver_sms)


@actor(queue_name="send-email", **GROUP_RETRIES)
def deliver_email_group(notification_ids: list[str]) -> None:
    _deliver_each(notification_ids, "email", deliver_email)


@actor(queue_name="send-job-sms", priority=JOB_SEND_PRIORITY, **GROUP_RETRIES)
def deliver_job_sms_group(notification_ids: list[str]) -> None:
    _deliver_each(notification_ids, "sms", deliver_job_sms)


@actor(queue_name="send-job-email", priority=JOB_SEND_PRIORITY, **GROUP_RETRIES)
def deliver_job_email_group(notification_ids: list[str]) -> None:
    _deliver_each(notification_ids, "email", deliver_job_email)


GROUP_OF = {deliver_sms: deliver_sms_group, deliver_email: deliver_email_group,
            deliver_job_sms: deliver_job_sms_group, deliver_job_email: deliver_job_email_group}


@actor(queue_name="send-sms", max_retries=3)
def delivery_retries_exhausted(message_data: dict, retry_info: dict) -> None:
    delivery.give_up(message_data["args"][0])


@actor(queue_name="send-test-key", **RETRIES)
def deliver_simulated(notification_id: str) -> None:
    """Scheduled test-key sends, when they fall due; on their own queue so test traffic never
    holds up live sends."""
    add_after_commit(simulated_outbox("sends"), [notification_id], flush_simulated_sends)


# Its own queue: behind the sends it flushes, a flush would wait until the queue ran dry.
@actor(queue_name="simulated-gateway", **FLUSH_RETRIES)
def flush_simulated_sends(flush_id: str) -> None:
    """The simulated gateway takes test-key sends a batch at a time and posts their receipts."""
    def send_batch(notification_ids: list[str]) -> None:
        receipts, one_by_one = dispatch.send_simulated(notification_ids)
        for notification_id in one_by_one:
            deliver(notification_id)
        if receipts:
            post_simulated_receipts(receipts)

    simulated_outbox("sends").flush(flush_id, send_batch, functools.partial(start_flush, flush_simulated_sends))


def delay_until(when: datetime.datetime | None) -> int | None:
    if when is None:
        return None
    return max(0, int((when - utcnow()).total_seconds() * 1000)) or None


def enqueue_deliveries(notifications: list[Notification]) -> None:
    """Once the current transaction commits, start the delivery of each notification.

    Test-key sends due now go straight into the simulated gateway's outbox, all in one round trip:
    they reach no provider, so they need no message of their own to claim and send them. Live sends
    due now travel in groups (_enqueue_grouped); a scheduled one has a message of its own, delayed
    until it falls due. Each message is its own enqueue through Dramatiq's public API (a group
    commit's rows are still enqueued in one call, pipeline/infrastructure/throughput).
    """
    with enqueued_together():
        due_now = [str(n.id) for n in notifications if n.key_type == "test" and n.scheduled_for is None]
        if due_now:
            add_after_commit(simulated_outbox("sends"), due_now, flush_simulated_sends)
        grouped: dict[Actor, list[str]] = defaultdict(list)
        for notification in notifications:
            if notification.key_type == "test":
                if notification.scheduled_for is not None:
                    enqueue_after_commit(deliver_simulated, str(notification.id),
                                         delay_ms=delay_until(notification.scheduled_for))
                continue
            one = deliver_sms if notification.notification_type == "sms" else deliver_email
            delay_ms = delay_until(notification.scheduled_for)
            if delay_ms is None:
                grouped[one].append(str(notification.id))
            else:
                enqueue_after_commit(one, str(notification.id), delay_ms=delay_ms)
        for one, notification_ids in grouped.items():
            _enqueue_grouped(one, notification_ids)


def enqueue_job_deliveries(notifications: list[Notification]) -> None:
    """Once the current transaction commits, start the delivery of a job chunk's texts and emails,
    on the jobs' own queues, in groups (_enqueue_grouped)."""
    grouped: dict[Actor, list[str]] = defaultdict(list)
    for notification in notifications:
        grouped[deliver_job_sms if notification.notification_type == "sms" else deliver_job_email].append(
            str(notification.id))
    for one, notification_ids in grouped.items():
        _enqueue_grouped(one, notification_ids)


def _enqueue_grouped(one: Actor, notification_ids: list[str]) -> None:
    """Sends due now, up to SENDS_PER_MESSAGE to a message of one's group actor; a lone one on one."""
    for start in range(0, len(notification_ids), SENDS_PER_MESSAGE):
        part = notification_ids[start:start + SENDS_PER_MESSAGE]
        if len(part) == 1:
            enqueue_after_commit(one, part[0])
        else:
            enqueue_after_commit(GROUP_OF[one], part)
