"""The text and email delivery stage: claim a notification, choose its provider, call it once, record.

The actors of the send queues (workers/sending.py) are thin: they call deliver() or
simulate_together() and turn TryAgain into their broker's retry. What a worker process shares with
the others about the SMS gateways (their circuit breaker, pace and slow verdicts, kept in Redis) and
how it queues a simulated receipt come in as a Gateways value, so this stage never imports a worker.
"""
from __future__ import annotations

import datetime
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from config import get_settings
from models import crypto
from models.db import utcnow
from models.notification import Notification
from models.outages import UNAVAILABLE
from observability import logs, metrics
from pipeline.domain import retry_window, statuses
from pipeline.infrastructure import throughput
from pipeline.infrastructure.providers import (
    EmailProvider,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsProvider,
    simulated_receipt,
)
from pipeline.infrastructure.providers.errors import Paced, RateLimited
from pipeline.infrastructure.providers.sms.circuit import CircuitBreaker
from pipeline.infrastructure.providers.sms.pacing import Pacing
from pipeline.stages import dispatch, failover, status_changes

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


@dataclass(frozen=True)
class Gateways:
    """What the workers agree on about the SMS gateways, and where simulated receipts go."""

    circuit: Callable[[], CircuitBreaker]
    pacing: Callable[[CircuitBreaker], Pacing]
    slow: Callable[[], set[str]]
    queue_receipts: Callable[[list[dict]], None]


def deliver(notification_id: str, channel: str | None, gateways: Gateways) -> None:
    """Send one notification. channel: "sms" or "email" on the live sends' queues; None for a test
    key's send, which is never claimed. Raises TryAgain when it must wait and try again."""
    # A send bound for a real provider is claimed as it is read, in one statement. One bound for the
    # simulator is not claimed (see dispatch), nor is a test key's, which is read apart.
    claim_first = channel is not None and not failover.only_simulated(channel, get_settings())
    if channel is not None and not claim_first and not simulate_together([notification_id], gateways):
        return  # sent with the other threads' sends of this moment (or no longer awaiting dispatch)
    try:
        notification = dispatch.claim_awaiting(notification_id) if claim_first else None
        if notification is None:
            claim_first = False
            notification = dispatch.awaiting_dispatch(notification_id)
    except crypto.UNREADABLE:
        _unreadable(notification_id)
        return
    if notification is None:  # already dispatched, or another worker holds it; or gone
        report_gone([notification_id])
        return
    try:
        rotation, providers = _route(notification, gateways)
        # The gateways' pace, where a real gateway is called (not on the simulator's path).
        real = rotation is not None and bool(providers) and not dispatch.is_simulated(providers[0])
        pace = gateways.pacing(rotation) if rotation is not None and real else None
    except BaseException:
        if claim_first:
            # Nothing was sent: a claim kept now would leave the notification `created` with no
            # message to move it (its retry finds it claimed) until the unknown-outcome timeout.
            dispatch.release(notification_id)
        raise
    if len(providers) == 1 and dispatch.is_simulated(providers[0]):
        # Its receipt is queued inside the record's transaction: never before the send is recorded,
        # nor `sending` with no receipt to come should the worker be killed between the two.
        sent = dispatch.send(notification, providers[0])
        dispatch.record_simulated([(notification, sent)], _receipts_queuer(gateways))
        return
    if not claim_first and not dispatch.claim(notification):
        return
    _send_claimed(notification, providers, rotation, pace)


def _send_claimed(notification: Notification, providers: list[SmsProvider | EmailProvider],
                  rotation: CircuitBreaker | None, pace: Pacing | None) -> None:
    notification_id = str(notification.id)
    try:
        sent = failover.send(notification, providers, circuit=rotation, pacing=pace)
    except Paced as exc:  # no room at the gateways' pace now: not an outage, so no window runs out
        _hold_back(notification, exc)
    except RetryableProviderError as exc:  # no provider took it, and certainly none has it
        _wait_out(notification, exc, at_least=exc.retry_after if isinstance(exc, RateLimited) else None)
    except OutcomeUnknownError as exc:
        if isinstance(exc, failover.RetryAtSameProvider):  # that gateway drops repeats: safe to wait
            _wait_out(notification, exc)
            return
        # Sending again could deliver it twice: the claim stays, and the receipt moves it on.
        log.warning("outcome of the send of %s unknown, waiting for its receipt: %s", notification_id, exc)
    except FinalProviderError as exc:
        status_changes.transition(notification_id, exc.status)
    else:
        dispatch.record_sent(notification, sent)
        if notification.notification_type == "email" and get_settings().smtp_delivered_on_accept:
            # A plain SMTP relay reports nothing after accepting: its acceptance is the delivery.
            # Moved on here rather than by a queued receipt, which a Redis outage at this moment
            # would lose. A bounce that came first stands.
            status_changes.transition_if_allowed(notification_id, statuses.DELIVERED)


def simulate_together(notification_ids: Sequence[str], gateways: Gateways) -> list[str]:
    """A group's sends bound for the simulator, each step made for all of them at once, and for the
    groups the worker's other threads hand in at the same moment: read in one round, recorded with
    their receipts queued in one transaction, as deliver() does. The ids that must go one by one
    instead (routed elsewhere) are returned."""
    one_by_one, gone = _simulated_together.submit((tuple(notification_ids), gateways))
    report_gone(gone)  # in this thread: logged with its own message's id
    return one_by_one


Group = tuple[tuple[str, ...], Gateways]


Outcome = tuple[list[str], list[str]]  # a group's ids to send one by one, and those no longer awaiting dispatch


def _simulate_groups(groups: list[Group]) -> list[Outcome | BaseException]:
    """simulate_together() for the groups of several threads. A thread waits once for all of it,
    where a round for the read and another for the record each cost its threads a hand-over (some
    15 µs of CPU each). A group that breaks the round (an id that is none) must not fail the
    others: then each group goes again on its own, and only its own error is raised in its thread;
    nothing was recorded (one transaction), and a simulated send has no effect elsewhere."""
    try:
        return list(_simulate(groups))
    except UNAVAILABLE:
        raise  # an outage: every group's thread retries as it would alone
    except Exception:
        if len(groups) == 1:
            raise
    outcomes: list[Outcome | BaseException] = []
    for group in groups:
        try:
            outcomes.extend(_simulate([group]))
        except Exception as exc:
            outcomes.append(exc)
    return outcomes


def _simulate(groups: list[Group]) -> list[Outcome]:
    ids = [notification_id for notification_ids, _ in groups for notification_id in notification_ids]
    found = iter(dispatch.awaiting_all(ids))
    outcomes: list[Outcome] = []
    sends: dict[Gateways, list[tuple[Notification, dispatch.Dispatched]]] = {}
    for notification_ids, gateways in groups:
        one_by_one: list[str] = []
        gone: list[str] = []
        for notification_id in notification_ids:
            loaded = next(found)
            if loaded is None:
                gone.append(notification_id)  # already dispatched, or no such notification
                continue
            try:
                notification = loaded()
            except crypto.UNREADABLE:
                _unreadable(notification_id)
                continue
            _, providers = _route(notification, gateways)
            if len(providers) == 1 and dispatch.is_simulated(providers[0]):
                sends.setdefault(gateways, []).append((notification, dispatch.send(notification, providers[0])))
            else:
                one_by_one.append(notification_id)
        outcomes.append((one_by_one, gone))
    for gateways, taken in sends.items():
        dispatch.record_simulated(taken, _receipts_queuer(gateways))
    return outcomes


_simulated_together = throughput.grouped("simulate-together", _simulate_groups)


def give_up(notification_id: str) -> None:
    """Its retries are over: a technical failure."""
    log.warning("provider retries exhausted for %s", notification_id)
    status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)


def report_gone(notification_ids: list[str]) -> None:
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


def _unreadable(notification_id: str) -> None:
    # Content that no longer decrypts (SECRET_KEY changed, a damaged row) can never be sent.
    log.exception("content of %s cannot be read; marking technical-failure", notification_id)
    status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)


def _route(notification: Notification,
           gateways: Gateways) -> tuple[CircuitBreaker | None, list[SmsProvider | EmailProvider]]:
    rotation = gateways.circuit() if notification.notification_type == "sms" else None
    return rotation, failover.route(notification, get_settings(), circuit=rotation, slow=gateways.slow,
                                    draw=random.random())


def _receipts_queuer(gateways: Gateways) -> Callable[[list[tuple[Notification, dispatch.Dispatched]]], None]:
    def queue(sends: list[tuple[Notification, dispatch.Dispatched]]) -> None:
        gateways.queue_receipts([_receipt_of(notification, sent) for notification, sent in sends])
    return queue


def _receipt_of(notification: Notification, sent: dispatch.Dispatched) -> dict:
    assert notification.normalised_to is not None  # set at accept for every text and email
    return simulated_receipt(sent.reference, str(notification.id), notification.normalised_to)


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
