"""The record step of delivery: what a provider's answer (or its error) leaves a send in.

Taken: recorded (`sending`, or `sent` for an international text), with the simulator's receipts
queued inside the record's transaction. Certainly not there: the claim handed back, to try again
after a growing delay while the send's window lasts (TryAgain), or at the gateways' pace. Final:
the status the provider named. Unknown: the claim kept, waiting for the receipt
(docs/architecture.md#unknown-outcomes-wait-for-their-receipt).
"""
from __future__ import annotations

import datetime
import logging
import random
import time

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.domain import retry_window, statuses
from pipeline.infrastructure.providers import FinalProviderError, OutcomeUnknownError, ProviderError
from pipeline.infrastructure.providers.errors import Paced, RateLimited
from pipeline.stages import dispatch, status_changes
from pipeline.stages.failover import RetryAtSameProvider
from pipeline.stages.routing import Route

log = logging.getLogger(__name__)

# A send the gateways' pace turned away waits this long at least (spread by as much again), and its
# thread holds back up to HOLD_BACK_SECONDS of it before taking its next message: a backlog then
# stays in its queue instead of cycling through retries faster than the gateways take it.
PACED_RETRY_SECONDS = 1.0
HOLD_BACK_SECONDS = 1.0


class TryAgain(Exception):
    """Nothing was sent and the claim is handed back: try this send again after delay_ms."""

    def __init__(self, reason: str, delay_ms: int) -> None:
        super().__init__(reason)
        self.delay_ms = delay_ms


def record(notification: Notification, outcome: dispatch.Dispatched | ProviderError, route: Route) -> None:
    """Record the send's outcome; raises TryAgain when it must wait and try again."""
    notification_id = str(notification.id)
    if isinstance(outcome, dispatch.Dispatched):
        _record_sent(notification, outcome, route)
    elif isinstance(outcome, Paced):  # no room at the gateways' pace now: not an outage, so no window runs out
        _hold_back(notification, outcome)
    elif isinstance(outcome, FinalProviderError):
        status_changes.transition(notification_id, outcome.status)
    elif isinstance(outcome, RetryAtSameProvider):  # that gateway drops repeats: safe to wait
        _wait_out(notification, outcome)
    elif isinstance(outcome, OutcomeUnknownError):
        # Sending again could deliver it twice: the claim stays, and the receipt moves it on.
        log.warning("outcome of the send of %s unknown, waiting for its receipt: %s", notification_id, outcome)
    else:  # no provider took it, and certainly none has it
        _wait_out(notification, outcome, at_least=outcome.retry_after if isinstance(outcome, RateLimited) else None)


def _record_sent(notification: Notification, sent: dispatch.Dispatched, route: Route) -> None:
    if route.reports is not None:
        # Its receipt is queued inside the record's transaction: never before the send is recorded,
        # nor `sending` with no receipt to come should the worker be killed between the two.
        dispatch.record_together([(notification, sent)], route.reports)
        return
    dispatch.record_sent(notification, sent)
    if notification.notification_type == "email" and get_settings().smtp_delivered_on_accept:
        # A plain SMTP relay reports nothing after accepting: its acceptance is the delivery.
        # Moved on here rather than by a queued receipt, which a Redis outage at this moment
        # would lose. A bounce that came first stands.
        status_changes.transition_if_allowed(str(notification.id), statuses.DELIVERED)


def _wait_out(notification: Notification, reason: Exception, at_least: float | None = None) -> None:
    """Hand the claim back and try again later (raises TryAgain), with a growing delay (at least
    `at_least` seconds: a 429's Retry-After), while the send's window lasts; past it the send is a
    technical failure (returns). One WARNING line either way, never a traceback: an outage is
    expected, and each of its retries would log one."""
    notification_id, settings = str(notification.id), get_settings()
    now = utcnow()
    retry_at = retry_window.next_attempt(notification, now, settings, random.random())
    if retry_at is not None and at_least is not None:
        retry_at = max(retry_at, now + datetime.timedelta(seconds=at_least * (1 + random.random() / 4)))
    if retry_at is None:
        log.warning("%s reached no provider within %d s, the last time: %s; marking technical-failure",
                    notification_id, settings.send_retry_window_seconds, reason)
        status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)
        return
    dispatch.release(notification_id, retry_at)
    delay_ms = max(0, int((retry_at - utcnow()).total_seconds() * 1000))
    log.warning("%s not sent, trying again in %.1f s: %s", notification_id, delay_ms / 1000, reason)
    raise TryAgain(str(reason), delay_ms)


def _hold_back(notification: Notification, reason: Paced) -> None:
    delay = max(reason.retry_after, PACED_RETRY_SECONDS) * (1 + random.random())
    dispatch.release(str(notification.id), utcnow() + datetime.timedelta(seconds=delay))
    log.info("%s not sent yet, at the gateways' pace: trying again in %.1f s (%s)", notification.id, delay, reason)
    held = min(delay, HOLD_BACK_SECONDS)
    time.sleep(held)
    raise TryAgain(str(reason), int((delay - held) * 1000))
