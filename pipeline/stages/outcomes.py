"""The record step of delivery: what a provider's answer (or its error) leaves a send in.

Taken: recorded (`sending`, or `sent` for an international text), with the simulator's receipts
queued inside the record's transaction. Certainly not there (or unknown at a gateway that drops
repeats): the claim handed back, to try again at the gateways' pace, or after a growing delay while
the send's window lasts (TryAgain). Final:
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
from pipeline.infrastructure.providers import FinalProviderError, OutcomeUnknownError, RetryableProviderError
from pipeline.infrastructure.providers.errors import Paced, RateLimited
from pipeline.stages import dispatch, status_changes
from pipeline.stages.failover import Answer, RetryAtSameProvider
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


def record(notification: Notification, answer: Answer, route: Route) -> None:
    """Record what the send came back with; raises TryAgain when it must wait and try again."""
    if isinstance(answer, RetryableProviderError | RetryAtSameProvider):
        # Certainly not there, or unknown at a gateway that drops repeats: safe to send again.
        _try_again(notification, answer)
    elif isinstance(answer, FinalProviderError):
        status_changes.transition(str(notification.id), answer.status)
    elif isinstance(answer, OutcomeUnknownError):
        # Sending again could deliver it twice: the claim stays, and the receipt moves it on.
        log.warning("outcome of the send of %s unknown, waiting for its receipt: %s", notification.id, answer)
    elif route.reports is not None:
        # Its receipt is queued inside the record's transaction: never before the send is recorded,
        # nor `sending` with no receipt to come should the worker be killed between the two.
        dispatch.record_together([(notification, answer)], route.reports)
    else:
        dispatch.record_sent(notification, answer)
        if notification.notification_type == "email" and get_settings().smtp_delivered_on_accept:
            # A plain SMTP relay reports nothing after accepting: its acceptance is the delivery.
            # Moved on here rather than by a queued receipt, which a Redis outage at this moment
            # would lose. A bounce that came first stands.
            status_changes.transition_if_allowed(str(notification.id), statuses.DELIVERED)


def _try_again(notification: Notification, reason: RetryableProviderError | RetryAtSameProvider) -> None:
    """Hand the claim back and try again later (raises TryAgain). At the gateways' pace (Paced: not an
    outage, so no window runs out), after a wait its thread holds back in part, so a backlog stays in its
    queue rather than cycling through retries faster than the gateways take it. Otherwise after a
    growing delay (at least a 429's Retry-After) while the send's window lasts; past it the send is a
    technical failure (returns). One line either way, never a traceback: an outage is expected, and each
    of its retries would log one."""
    notification_id, settings, now = str(notification.id), get_settings(), utcnow()
    paced = max(reason.retry_after, PACED_RETRY_SECONDS) * (1 + random.random()) if isinstance(reason, Paced) else 0.0
    if isinstance(reason, Paced):
        retry_at: datetime.datetime | None = now + datetime.timedelta(seconds=paced)
    else:
        retry_at = retry_window.next_attempt(notification, now, settings, random.random())
        at_least = reason.retry_after if isinstance(reason, RateLimited) else None
        if retry_at is not None and at_least is not None:
            retry_at = max(retry_at, now + datetime.timedelta(seconds=at_least * (1 + random.random() / 4)))
    if retry_at is None:
        log.warning("%s reached no provider within %d s, the last time: %s; marking technical-failure",
                    notification_id, settings.send_retry_window_seconds, reason)
        status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)
        return
    dispatch.release(notification_id, retry_at)
    if isinstance(reason, Paced):
        log.info("%s not sent yet, at the gateways' pace: trying again in %.1f s (%s)", notification_id, paced, reason)
        held = min(paced, HOLD_BACK_SECONDS)
        time.sleep(held)
        raise TryAgain(str(reason), int((paced - held) * 1000))
    delay_ms = max(0, int((retry_at - utcnow()).total_seconds() * 1000))
    log.warning("%s not sent, trying again in %.1f s: %s", notification_id, delay_ms / 1000, reason)
    raise TryAgain(str(reason), delay_ms)
