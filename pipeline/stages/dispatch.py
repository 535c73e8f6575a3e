"""The provider dispatch stage for sms and email: at most one provider call per notification.

A worker first claims the notification (a compare-and-set on dispatch_started_at); only the claimer
calls the provider. A failure that certainly did not reach the provider gives the claim back for
Dramatiq's retry. A send whose outcome is unknown (or a worker that dies holding a claim) keeps the
claim and waits for the receipt, which moves it on (pipeline/stages/receipts.py); the sweep fails it only
when none comes within OUTCOME_UNKNOWN_TIMEOUT_SECONDS, rather than risk a second send.

Delivery (pipeline/stages/delivery.py) takes two of its steps here: the claim (take()) and the
record of what the provider answered (record_sent(), record_together()). A send the simulator
takes has no effect outside this service, so it needs no claim: its one write is the move out of
`created`, a compare-and-set that only one worker wins, and only the winner queues the receipt
(record_together()). Test-key sends are moved a batch at a time (send_simulated).
"""
from __future__ import annotations

import datetime
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from peewee import PeeweeException, fn

from models import crypto
from models.db import database, utcnow
from models.notification import Notification
from observability import logs, metrics
from pipeline.domain import statuses
from pipeline.domain.cost import sms_fragments
from pipeline.infrastructure import throughput
from pipeline.infrastructure.providers.simulated import SimulatedSmsProvider, simulated_receipt
from pipeline.stages import status_changes
from pipeline.stages.receipts import apply_held_for

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Dispatched:
    provider: str
    reference: str


def awaiting_dispatch(notification_id: str) -> Notification | None:
    """The notification while it is created and unclaimed; None once dispatched or claimed."""
    [found] = throughput.seam().awaiting_dispatch([uuid.UUID(str(notification_id))])
    return None if found is None else found()


def claim_awaiting(notification_id: str) -> Notification | None:
    """claim() and awaiting_dispatch() in one statement, for a live send bound for a real provider:
    the notification, now this worker's to send, while it was created and unclaimed; None
    otherwise, and for a test key's (whose send needs no claim)."""
    [found] = throughput.seam().claim_awaiting([uuid.UUID(str(notification_id))])
    return None if found is None else found()


def send_simulated(notification_ids: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Test-key sends, a batch in one statement: the simulated provider has no effect outside this
    service, so the move out of `created`, with the cost worked out at accept, is the whole
    dispatch. (receipts to post, ids to send one by one: international, or from before fragment
    counts). Safe to repeat: receipts come for every notification of the batch the simulator sent,
    whichever run moved it, so a batch retried after a crash still gets its receipts.
    """
    now = utcnow()
    status_changes.transition_many(
        notification_ids, statuses.SENDING,
        where={Notification.key_type: "test", Notification.dispatch_started_at: None,
               Notification.international: False, Notification.fragment_count: status_changes.NOT_NULL},
        sent_at=now, sent_by=SimulatedSmsProvider.name, billable_units=Notification.fragment_count,
        dispatch_started_at=now,
    )
    rows = (Notification.select(Notification.id, Notification.status, Notification.sent_by, Notification.normalised_to)
            .where(Notification.id.in_(notification_ids)))
    receipts, one_by_one = [], []
    for row in rows:
        if row.status == statuses.SENDING and row.sent_by == SimulatedSmsProvider.name:
            assert row.normalised_to is not None  # set at accept for every text and email
            reference = SimulatedSmsProvider.reference_for(row.id)
            receipts.append(simulated_receipt(reference, str(row.id), row.normalised_to))
        elif row.status == statuses.CREATED:
            one_by_one.append(str(row.id))
    return receipts, one_by_one


def take(notification_id: str) -> Notification | None:
    """The claim step of delivery: the notification, now this worker's to send (claimed as it is read,
    in one statement); None when there is nothing to send: already dispatched, claimed by another
    worker, gone (reported), or content that no longer decrypts (a technical failure)."""
    key, claimed_at = uuid.UUID(str(notification_id)), None
    [loaded] = throughput.seam().claim_awaiting([key])
    if loaded is None:  # a test key's, which claim_awaiting leaves; or not awaiting dispatch
        [loaded], claimed_at = throughput.seam().awaiting_dispatch([key]), utcnow()
        if loaded is not None and not throughput.seam().claim(key, claimed_at):
            return None
    if loaded is None:
        report_gone([notification_id])
        return None
    try:
        notification = loaded()
    except crypto.UNREADABLE:
        unreadable(notification_id)
        return None
    notification.dispatch_started_at = notification.dispatch_started_at or claimed_at
    return notification


def unreadable(notification_id: str) -> None:
    """Content that no longer decrypts (SECRET_KEY changed, a damaged row) can never be sent."""
    log.exception("content of %s cannot be read; marking technical-failure", notification_id)
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


def claim(notification: Notification) -> bool:
    """True when this worker now owns the notification's provider call."""
    notification.dispatch_started_at = utcnow()
    return throughput.seam().claim(notification.id, notification.dispatch_started_at)


def release(notification_id: str, retry_at: datetime.datetime | None = None) -> None:
    """Give the claim back; retry_at: when its delayed message tries again (the sweeps wait for it)."""
    throughput.seam().release(notification_id, retry_at)


def _by_status(asked: Sequence[tuple[str, Any, dict[str, Any]]]) -> dict[str, list[int]]:
    """The positions of the asked records, by the status each moves to (one statement each)."""
    by_status: dict[str, list[int]] = {}
    for index, (new_status, _, _) in enumerate(asked):
        by_status.setdefault(new_status, []).append(index)
    return by_status


def _record_sent_together(sends: list[tuple[str, Any, dict[str, Any]]]) -> list[bool | BaseException]:
    """The sends that a worker's threads record at the same moment: one statement per new status
    (each its own commit), where one each cost the database a commit per send."""
    outcomes: list[bool | BaseException] = [False] * len(sends)
    for new_status, indexes in _by_status(sends).items():
        moved: Sequence[bool | BaseException]
        try:
            moved = status_changes.transition_each(new_status, [sends[index][1:] for index in indexes])
        except PeeweeException as exc:  # this status's sends raise it; another status's, already committed, stand
            moved = [exc] * len(indexes)
        for index, outcome in zip(indexes, moved, strict=True):
            outcomes[index] = outcome
    return outcomes


# Two milliseconds' wait under load, as the accept path's writer waits: batches of about four sends
# at the pipeline benchmark's load, where a statement each cost the database a commit per send.
_sent_together = throughput.grouped("record-sent", _record_sent_together, linger_seconds=0.002)


def record_sent(notification: Notification, dispatched: Dispatched) -> bool:
    """Move to sending (sent for international sms, where no receipt will come) with cost data,
    then apply any receipt that came before this answer.

    False when another worker recorded this send first (a duplicated message), or a receipt did (it
    moved the notification on): then only the details still missing are filled in.
    """
    return record_all_sent([(notification, dispatched)])[0]


def record_all_sent(sends: Sequence[tuple[Notification, Dispatched]]) -> list[bool]:
    """record_sent() for a group's sends, in one round (usually one statement per new status)."""
    now = utcnow()
    asked = _asked(sends, now)
    moved = _sent_together.submit_all(asked)
    _fill_in_details(sends, asked, moved, now)
    for _, dispatched in sends:
        apply_held_for(dispatched.provider, dispatched.reference)
    return moved


def record_together(sends: Sequence[tuple[Notification, Dispatched]],
                    then: Callable[[list[tuple[Notification, Dispatched]]], None]) -> None:
    """record_all_sent() in one transaction of its own, for sends whose provider reports from here
    (the simulator): then(the sends this record moved out of `created`) queues their receipts inside
    the transaction, after its UPDATE.

    Queued before the record, a receipt could overtake a slow record, record the send itself and
    leave the record refused (delivered -> sending). Queued here, one applied before the commit
    waits for the record's lock (the row's, or SQLite's one writer) and finds the notification
    `sending`; a worker killed before the commit leaves it `created` for its redelivered message,
    any receipt already queued recording the send itself
    (docs/architecture.md#unknown-outcomes-wait-for-their-receipt); one that cannot queue (Redis
    away) records nothing. Only the record that moved a notification queues its receipt.
    """
    now = utcnow()
    asked = _asked(sends, now)
    with database.atomic():
        moved = [False] * len(asked)
        for new_status, indexes in _by_status(asked).items():
            each = status_changes.transition_each(new_status, [asked[index][1:] for index in indexes])
            for index, was_moved in zip(indexes, each, strict=True):
                moved[index] = was_moved
        _fill_in_details(sends, asked, moved, now)
        taken = [send for send, was_moved in zip(sends, moved, strict=True) if was_moved]
        if taken:
            then(taken)


def _asked(sends: Sequence[tuple[Notification, Dispatched]],
           now: datetime.datetime) -> list[tuple[str, Any, dict[str, Any]]]:
    """Each send's record: (its new status, its id, the send's details)."""
    asked: list[tuple[str, Any, dict[str, Any]]] = []
    for notification, dispatched in sends:
        if notification.notification_type == "sms":
            units = sms_fragments(notification.body or "").fragments
            new_status = statuses.SENT if notification.international else statuses.SENDING
        else:
            units, new_status = 0, statuses.SENDING
        asked.append((new_status, notification.id, {  # refused when its receipt already moved it on
            "sent_at": now, "sent_by": dispatched.provider, "provider_reference": dispatched.reference,
            "billable_units": units, "dispatch_started_at": notification.dispatch_started_at or now,
        }))
    return asked


def _fill_in_details(sends: Sequence[tuple[Notification, Dispatched]], asked: list[tuple[str, Any, dict[str, Any]]],
                     moved: Sequence[bool], now: datetime.datetime) -> None:
    """Not a status change: the details of the sends not moved, where a receipt that came first left
    them out."""
    for (notification, dispatched), (_, _, details), was_moved in zip(sends, asked, moved, strict=True):
        if not was_moved:
            Notification.update(
                provider_reference=fn.COALESCE(Notification.provider_reference, dispatched.reference),
                sent_at=fn.COALESCE(Notification.sent_at, now),
                billable_units=fn.COALESCE(Notification.billable_units, details["billable_units"]),
            ).where(Notification.id == notification.id).execute()
