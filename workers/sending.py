"""Actors of the send-sms and send-email queues: claim, call the provider once, record."""
from __future__ import annotations

import datetime
import functools
import logging
import random
import time
from collections import defaultdict

import dramatiq

from config import get_settings
from models import crypto
from models.db import row_model, utcnow
from models.notification import Notification
from models.outages import UNAVAILABLE
from observability import logs, metrics
from pipeline import dispatch, failover, retry_window, statuses
from pipeline.providers import (
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsProvider,
    simulated_receipt,
)
from pipeline.providers.errors import Paced, RateLimited
from pipeline.providers.sms.circuit import CircuitBreaker
from workers.actors import actor
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
    # (pipeline/retry_window.py). A database or Redis that is briefly unreachable is retried a few
    # times; anything else is a bug, reported once and failed rather than retried for hours.
    "retry_when": lambda retries, exc: isinstance(exc, dramatiq.Retry)
    or (isinstance(exc, UNAVAILABLE) and retries < _settings.provider_max_retries),
    "on_retry_exhausted": "delivery_retries_exhausted",
}


def _deliver(notification_id: str, channel: str | None = None) -> None:
    """Send one notification. channel: "sms" or "email" on the live sends' queues; None for a test
    key's send, which is never claimed."""
    # A send bound for a real provider is claimed as it is read, in one statement. One bound for the
    # simulator is not claimed (see pipeline/dispatch.py), nor is a test key's, which is read apart.
    claim_first = channel is not None and not failover.only_simulated(channel, get_settings())
    try:
        notification = dispatch.claim_awaiting(notification_id) if claim_first else None
        if notification is None:
            claim_first = False
            notification = dispatch.awaiting_dispatch(notification_id)
    except crypto.UNREADABLE:
        _unreadable(notification_id)
        return
    if notification is None:  # already dispatched, or another worker holds it; or gone
        _report_gone([notification_id])
        return
    try:
        rotation, providers = _route(notification)
        # The gateways' pace, where a real gateway is called (not on the simulator's path).
        real = rotation is not None and bool(providers) and not dispatch.is_simulated(providers[0])
        pace = pacing(rotation) if rotation is not None and real else None
    except BaseException:
        if claim_first:
            # Nothing was sent: a claim kept now would leave the notification `created` with no
            # message to move it (its retry finds it claimed) until the unknown-outcome timeout.
            dispatch.release(notification_id)
        raise
    if len(providers) == 1 and dispatch.is_simulated(providers[0]):
        # Its receipt is queued inside the record's transaction: never before the send is recorded,
        # nor `sending` with no receipt to come should the worker be killed between the two.
        dispatch.record_simulated([(notification, dispatch.send(notification, providers[0]))], _queue_receipts)
        return
    if not claim_first and not dispatch.claim(notification):
        return
    try:
        sent = failover.send(notification, providers, circuit=rotation, pacing=pace)
    except Paced as exc:  # no room at the gateways' pace now: not an outage, so no window runs out
        _hold_back(notification, exc)
        return
    except RetryableProviderError as exc:  # no provider took it, and certainly none has it
        _wait_out(notification, exc, at_least=exc.retry_after if isinstance(exc, RateLimited) else None)
        return
    except OutcomeUnknownError as exc:
        if isinstance(exc, failover.RetryAtSameProvider):  # that gateway drops repeats: safe to wait
            _wait_out(notification, exc)
            return
        # Sending again could deliver it twice: the claim stays, and the receipt moves it on.
        log.warning("outcome of the send of %s unknown, waiting for its receipt: %s", notification_id, exc)
        return
    except FinalProviderError as exc:
        statuses.transition(notification_id, exc.status)
        return
    dispatch.record_sent(notification, sent)
    if notification.notification_type == "email" and _settings.smtp_delivered_on_accept:
        # A plain SMTP relay reports nothing after accepting: its acceptance is the delivery. Moved on
        # here rather than by a queued receipt, which a Redis outage at this moment would lose. A
        # bounce that came first stands.
        statuses.transition_if_allowed(notification_id, statuses.DELIVERED)


def _unreadable(notification_id: str) -> None:
    # Content that no longer decrypts (SECRET_KEY changed, a damaged row) can never be sent.
    log.exception("content of %s cannot be read; marking technical-failure", notification_id)
    statuses.transition(notification_id, statuses.TECHNICAL_FAILURE)


def _route(notification: Notification) -> tuple[CircuitBreaker | None, list[SmsProvider | EmailProvider]]:
    rotation = circuit() if notification.notification_type == "sms" else None
    return rotation, failover.route(notification, get_settings(), circuit=rotation, slow=slow, draw=random.random())


def _receipt_of(notification: Notification, sent: dispatch.Dispatched) -> dict:
    assert notification.normalised_to is not None  # set at accept for every text and email
    return simulated_receipt(sent.reference, str(notification.id), notification.normalised_to)


def _queue_receipts(sends: list[tuple[Notification, dispatch.Dispatched]]) -> None:
    queue_simulated_receipts([_receipt_of(notification, sent) for notification, sent in sends])


def _simulate_together(notification_ids: list[str]) -> list[str]:
    """A group's sends bound for the simulator, each step made for all of them at once: read in one
    round, recorded with their receipts queued in one transaction, as _deliver does. The ids that
    must go one by one instead (routed elsewhere) are returned."""
    sends, one_by_one, gone = [], [], []
    for notification_id, row in zip(notification_ids, dispatch.awaiting_rows(notification_ids), strict=True):
        if row is None:
            gone.append(notification_id)  # already dispatched, or no such notification
            continue
        try:
            notification = row_model(Notification, *row)
        except crypto.UNREADABLE:
            _unreadable(notification_id)
            continue
        _, providers = _route(notification)
        if len(providers) == 1 and dispatch.is_simulated(providers[0]):
            sends.append((notification, dispatch.send(notification, providers[0])))
        else:
            one_by_one.append(notification_id)
    if sends:
        dispatch.record_simulated(sends, _queue_receipts)
    _report_gone(gone)
    return one_by_one


def _report_gone(notification_ids: list[str]) -> None:
    """Of the notifications a message named that were not awaiting dispatch, those that do not exist
    at all (deleted by retention, or never in this database: a deployment sharing the queues) are
    logged and counted, never dropped in silence. One query, only on this path."""
    if not notification_ids:
        return
    found = {str(row.id) for row in Notification.select(Notification.id).where(Notification.id.in_(notification_ids))}
    for notification_id in notification_ids:
        if notification_id not in found:
            log.warning("no notification %s for message %s: nothing sent", notification_id, logs.current("message_id"))
            metrics.messages_without_notification.labels(logs.current("actor") or "").inc()


def _wait_out(notification: Notification, reason: Exception, at_least: float | None = None) -> None:
    """Hand the claim back and try again later (raises dramatiq.Retry), with a growing delay (at
    least `at_least` seconds: a 429's Retry-After), while the send's window lasts; past it the send
    is a technical failure (returns). One WARNING line either way, never a traceback: an outage is
    expected, and each of its retries would log one."""
    notification_id, settings = str(notification.id), get_settings()
    now = utcnow()
    retry_at = retry_window.next_attempt(notification, now, settings, random.random())
    if retry_at is not None and at_least is not None:
        retry_at = max(retry_at, now + datetime.timedelta(seconds=at_least * (1 + random.random() / 4)))
    if retry_at is None:
        log.warning("%s reached no provider within %d s, the last time: %s; marking technical-failure",
                    notification_id, settings.send_retry_window_seconds, reason)
        statuses.transition(notification_id, statuses.TECHNICAL_FAILURE)
        return
    dispatch.release(notification_id, retry_at)
    delay_ms = max(0, int((retry_at - utcnow()).total_seconds() * 1000))
    log.warning("%s not sent, trying again in %.1f s: %s", notification_id, delay_ms / 1000, reason)
    raise dramatiq.Retry(str(reason), delay=delay_ms)


# A send the gateways' pace turned away waits this long at least (spread by as much again), and its
# thread holds back up to HOLD_BACK_SECONDS of it before taking its next message: a backlog then
# stays in its queue instead of cycling through retries faster than the gateways take it.
PACED_RETRY_SECONDS = 1.0
HOLD_BACK_SECONDS = 1.0


def _hold_back(notification: Notification, reason: Paced) -> None:
    delay = max(reason.retry_after, PACED_RETRY_SECONDS) * (1 + random.random())
    dispatch.release(str(notification.id), utcnow() + datetime.timedelta(seconds=delay))
    log.info("%s not sent yet, at the gateways' pace: trying again in %.1f s (%s)", notification.id, delay, reason)
    held = min(delay, HOLD_BACK_SECONDS)
    time.sleep(held)
    raise dramatiq.Retry(str(reason), delay=int((delay - held) * 1000))


@actor(queue_name="send-sms", **RETRIES)
def deliver_sms(notification_id: str) -> None:
    _deliver(notification_id, "sms")


@actor(queue_name="send-email", **RETRIES)
def deliver_email(notification_id: str) -> None:
    _deliver(notification_id, "email")


# The sends of bulk jobs: queues of their own, so the API's sends never wait behind a 100,000-row
# job's, and a lower priority (a larger number), so a worker holding both takes the API's first.
JOB_SEND_PRIORITY = 10


@actor(queue_name="send-job-sms", priority=JOB_SEND_PRIORITY, **RETRIES)
def deliver_job_sms(notification_id: str) -> None:
    _deliver(notification_id, "sms")


@actor(queue_name="send-job-email", priority=JOB_SEND_PRIORITY, **RETRIES)
def deliver_job_email(notification_id: str) -> None:
    _deliver(notification_id, "email")


# The sends recorded together (by a web process's requests of a moment, or a job's chunk) travel in
# one message, up to this many: each message costs
# a worker about as much as a send's own work, and one thread sends them one after another, so a
# larger group would hold back the last of them for little more saving.
SENDS_PER_MESSAGE = 8
# A group's message is never retried as a whole: what it cannot do is handed to messages of one send
# each (below). Only handing them over can fail, and then the sweeps send them again.
GROUP_RETRIES = {"max_retries": 0}


def _deliver_each(notification_ids: list[str], channel: str, one: dramatiq.Actor) -> None:
    """Send each notification of a group's message as its own message would. One that must wait out
    an outage, or meets an error, goes on (with those after it, for an error: the database or Redis
    may be away) on messages of one send each, which retry and give up as a lone send's does. Where
    only the simulator sends, the group's sends go through each step together."""
    if failover.only_simulated(channel, get_settings()):
        try:
            notification_ids = _simulate_together(notification_ids)
        except Exception as exc:
            log.warning("sending %s together failed (%r): %d sends of its group retry on messages of their own",
                        notification_ids[0], exc, len(notification_ids))
            _on_their_own(one, notification_ids, _settings.provider_min_backoff_ms)
            return
    for position, notification_id in enumerate(notification_ids):
        try:
            _deliver(notification_id, channel)
        except dramatiq.Retry as retry:
            _on_their_own(one, [notification_id], retry.delay)
        except Exception as exc:
            rest = notification_ids[position:]
            log.warning("sending %s failed (%r): %d sends of its group retry on messages of their own",
                        notification_id, exc, len(rest))
            _on_their_own(one, rest, _settings.provider_min_backoff_ms)
            return


def _on_their_own(one: dramatiq.Actor, notification_ids: list[str], delay_ms: int | None) -> None:
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
    notification_id = message_data["args"][0]
    log.warning("provider retries exhausted for %s", notification_id)
    statuses.transition(notification_id, statuses.TECHNICAL_FAILURE)


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
            _deliver(notification_id)
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
        grouped: dict[dramatiq.Actor, list[str]] = defaultdict(list)
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
    grouped: dict[dramatiq.Actor, list[str]] = defaultdict(list)
    for notification in notifications:
        grouped[deliver_job_sms if notification.notification_type == "sms" else deliver_job_email].append(
            str(notification.id))
    for one, notification_ids in grouped.items():
        _enqueue_grouped(one, notification_ids)


def _enqueue_grouped(one: dramatiq.Actor, notification_ids: list[str]) -> None:
    """Sends due now, up to SENDS_PER_MESSAGE to a message of one's group actor; a lone one on one."""
    for start in range(0, len(notification_ids), SENDS_PER_MESSAGE):
        part = notification_ids[start:start + SENDS_PER_MESSAGE]
        if len(part) == 1:
            enqueue_after_commit(one, part[0])
        else:
            enqueue_after_commit(GROUP_OF[one], part)
