"""Actors of the callbacks queue: tell services about final statuses and received texts.

A status change reaches the queue through the status-change hook of pipeline/stages/status_changes.py:
the listener below (workers.wire registers it) writes a callback in the change's transaction when the
new status is final (`sent` included) and the notification's service has a delivery-status callback,
sent once it commits (workers.enqueue.follow_up: the follow-up outbox). Received texts are written by
the inbound route, events by their listener, the same way. Delivery is at least once: each attempt
carries the callback's stable id (pipeline.stages.callbacks.callback_id) for the receiver to drop a
repeat, and is recorded (CallbackAttempt); a message that finds its callback arrived posts nothing.
The payload is built from the row at each attempt, so a retry reports the current state, and a
purged row is not reported at all.
"""
from __future__ import annotations

import logging
from typing import Any

import dramatiq
import peewee
from dramatiq.common import compute_backoff

from config import get_settings
from models import cache
from models.callback_attempt import CallbackAttempt
from models.crypto import decrypt
from models.notification import Notification, ReceivedText
from models.notification_event import NotificationEvent
from models.service import ServiceCallback
from observability.metrics import callback_attempts
from pipeline.domain import statuses
from pipeline.stages import callbacks
from pipeline.stages.callbacks import DELIVERY_STATUS, INBOUND_SMS
from workers.actors import actor
from workers.enqueue import follow_up

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6  # the first try and 5 retries: with the default 30 s backoff, about half an hour
MAX_BACKOFF_MS = 3_600_000
RECEIVED = "received"  # the event of an inbound-sms callback


def _retry_when(retries: int, exc: BaseException) -> bool:
    # Retry is raised below for a receiver's 5xx/429/no answer (already recorded); a database that
    # is briefly away is worth waiting for too. Anything else is a bug: reported once, not retried.
    return isinstance(exc, (dramatiq.Retry, peewee.OperationalError, peewee.InterfaceError)) \
        and retries < MAX_ATTEMPTS


RETRIES: dict[str, Any] = {"max_retries": MAX_ATTEMPTS, "retry_when": _retry_when}


def find_callback(service_id: object, kind: str) -> ServiceCallback | None:
    return ServiceCallback.get_or_none((ServiceCallback.service == service_id) & (ServiceCallback.kind == kind))


def has_callback(service_id: object, kind: str) -> bool:
    """Cached (2 s): checked on every final status change and every received text."""
    return cache.cached(("callback", str(service_id), kind), lambda: find_callback(service_id, kind) is not None)


def _any_callback(kind: str) -> bool:
    # While no service has a callback of this kind, a status change costs no query at all.
    return cache.cached(("callback-any", kind),
                        lambda: ServiceCallback.select().where(ServiceCallback.kind == kind).exists())


def _backoff_ms(attempt: int, retry_after_ms: int | None) -> int:
    _, delay = compute_backoff(attempt - 1, factor=get_settings().callback_min_backoff_ms, max_backoff=MAX_BACKOFF_MS)
    return min(max(delay, retry_after_ms or 0), MAX_BACKOFF_MS)


def _deliver(callback: ServiceCallback, subject_id: str, event: str, payload: dict[str, Any]) -> None:
    """One attempt of this callback; raises Retry when another one is due."""
    earlier = list(CallbackAttempt.select(CallbackAttempt.status_code).where(
        (CallbackAttempt.subject_id == subject_id) & (CallbackAttempt.kind == callback.kind)
        & (CallbackAttempt.event == event)))
    if any(row.delivered for row in earlier) or len(earlier) >= MAX_ATTEMPTS:
        return  # a redelivered message: it arrived already, or it was given up on
    attempt = len(earlier) + 1
    outcome = callbacks.post(callback.url, decrypt(callback.bearer_token_encrypted), payload,
                             callbacks.callback_id(callback.kind, subject_id, event))
    CallbackAttempt.create(service=callback.service_id, kind=callback.kind, subject_id=subject_id, event=event,
                           url=callback.url, attempt=attempt, status_code=outcome.status_code, error=outcome.error,
                           duration_ms=outcome.duration_ms)
    callback_attempts.labels(callback.kind, "delivered" if outcome.delivered else
                             "retryable" if outcome.retryable else "failed").inc()
    if outcome.delivered:
        return
    if outcome.retryable and attempt < MAX_ATTEMPTS:
        raise dramatiq.Retry(f"{callback.kind} callback answered {outcome.status_code or outcome.error}",
                             delay=_backoff_ms(attempt, outcome.retry_after_ms))
    log.warning("%s callback for %s to %s given up after attempt %d: %s", callback.kind, subject_id,
                callback.url, attempt, outcome.status_code or outcome.error)


@actor(queue_name="callbacks", **RETRIES)
def send_delivery_status(notification_id: str, status: str) -> None:
    """Report a notification's status; `status` is the change that caused it (one callback each)."""
    notification = Notification.get_or_none(Notification.id == notification_id)
    if notification is None:
        return  # purged before it could be reported: nothing left to tell
    callback = find_callback(notification.service_id, DELIVERY_STATUS)
    if callback is not None:  # None: removed since the status changed
        _deliver(callback, notification_id, status, callbacks.delivery_status_payload(notification))


@actor(queue_name="callbacks", **RETRIES)
def send_inbound_sms(received_text_id: str) -> None:
    text = ReceivedText.get_or_none(ReceivedText.id == received_text_id)
    if text is None:
        return
    callback = find_callback(text.service_id, INBOUND_SMS)
    if callback is not None:
        _deliver(callback, received_text_id, RECEIVED, callbacks.inbound_sms_payload(text))


def may_call_back(new_status: str) -> bool:
    """Whether a change to new_status may have a callback to write: asked before every change, so it
    costs nothing while no service has a delivery-status callback (a cached flag)."""
    return new_status in statuses.FINAL and _any_callback(DELIVERY_STATUS)


def status_changed(notification_id: str, new_status: str) -> None:
    """The status-change listener (workers.wire registers it), inside the change's transaction."""
    if not may_call_back(new_status):
        return
    # One primary-key read, only for final statuses and only once some service has such a callback.
    row = Notification.select(Notification.service).where(Notification.id == notification_id).first()
    if row is not None and has_callback(row.service_id, DELIVERY_STATUS):
        follow_up(send_delivery_status, notification_id, new_status)


def enqueue_inbound_sms(text: ReceivedText) -> None:
    """Call inside the transaction that stores the text: its callback is written with it, sent once
    it commits."""
    if has_callback(text.service_id, INBOUND_SMS):
        follow_up(send_inbound_sms, str(text.id))


@actor(queue_name="callbacks", **RETRIES)
def send_event_callback(event_id: str) -> None:
    """A complaint, unsubscribe request or returned letter, to the service's callback of that kind."""
    event = NotificationEvent.get_or_none(NotificationEvent.id == event_id)
    if event is None:
        return
    callback = find_callback(event.service_id, event.kind)
    if callback is not None:
        _deliver(callback, str(event.notification_id), event.kind, callbacks.event_payload(event))


def event_recorded(event: NotificationEvent) -> None:
    """The recorded-event listener (workers.wire registers it), inside the event's transaction."""
    if has_callback(event.service_id, event.kind):
        follow_up(send_event_callback, str(event.id))
