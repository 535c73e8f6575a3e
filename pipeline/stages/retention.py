"""The retention purge: notifications past their service's retention, received texts and callback
attempts past 7 days are deleted; notification counts and billable units survive in the daily store
(models/daily_rollup.py).

Deletes go in batches of at most `batch_size` ids, each its own short transaction, so the database
stays responsive and a purge stopped half-way (a worker killed, a deploy) is simply resumed by the
next run. Files sent by email have their own expiry job (pipeline/stages/documents/cleanup.py).
"""
from __future__ import annotations

import datetime
import functools
import logging
import operator
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

import peewee

from models.api_key import KEY_TYPES
from models.callback_attempt import CallbackAttempt
from models.daily_rollup import BillingKey, CountKey, add_purged, billing_key
from models.db import database, utcnow
from models.notification import Notification, ReceivedText
from models.queries import RECEIVED_TEXT_DAYS, retention_cutoff
from models.service import CHANNELS, Service
from pipeline.infrastructure.storage import Storage, letter_pdf_key, letter_storage
from pipeline.stages.callbacks import KINDS as CALLBACK_KINDS
from pipeline.stages.daily_rollup import is_billable

log = logging.getLogger(__name__)

BATCH = 5000
CALLBACK_ATTEMPT_DAYS = 7


@dataclass
class Purged:
    notifications: int = 0
    letter_pdfs: int = 0
    received_texts: int = 0
    callback_attempts: int = 0


def _purge_notification_batch(rows: list[Notification], storage: Storage, purged: Purged) -> bool:
    """Count and delete one batch; False when it must be selected again (see below)."""
    ids = [row.id for row in rows]
    letters = [row.id for row in rows if row.notification_type == "letter"]
    # Files first: a letter row left without its PDF is already past retention (never read again),
    # while a PDF left without its row could never be found again.
    for letter_id in letters:
        storage.delete(letter_pdf_key(letter_id))
        storage.delete(f"quarantine/{letter_pdf_key(letter_id)}")
    counts: Counter[CountKey] = Counter(
        (row.service_id, row.created_at.date(), row.notification_type, row.key_type, row.status) for row in rows)
    # Live sends with a cost: what usage reports price after the rows are gone.
    billing: Counter[BillingKey] = Counter(
        billing_key(row.service_id, row.created_at, row.notification_type, row.postage, row.rate_multiplier,
                    row.billable_units)
        for row in rows
        if row.billable_units is not None
        and is_billable(row.notification_type, row.key_type, row.status, row.billable_units))
    with database.atomic() as transaction:
        if Notification.delete().where(Notification.id.in_(ids)).execute() != len(ids):
            # A concurrent purge took some of these rows: counting them here would count them twice.
            transaction.rollback()
            return False
        # Counted in the transaction that deletes: a rerun finds the rows gone and adds nothing.
        add_purged(counts, billing)
    purged.notifications += len(ids)
    purged.letter_pdfs += len(letters)
    return True


def expired_batch_query(service: Service, key_type: str, cutoffs: dict[str, datetime.datetime],
                        after: tuple[datetime.datetime, uuid.UUID] | None, batch_size: int) -> peewee.Select:
    """The next batch of the service's expired rows of one key type, in index order after `after`.

    Equality on service and key type, then (created_at, id) ascending from the last row handled:
    a range of the list index (service, key_type, created_at, id), so each row is read once
    whatever the table's size, and a finished walk ends on an empty range instead of a scan.
    """
    condition = ((Notification.service == service) & (Notification.key_type == key_type)
                 & (Notification.created_at < max(cutoffs.values())))
    if len(set(cutoffs.values())) > 1:
        # Channels with a shorter retention expire earlier: filtered within the range.
        condition &= functools.reduce(operator.or_, [
            (Notification.notification_type == channel) & (Notification.created_at < cutoff)
            for channel, cutoff in cutoffs.items()])
    if after is not None:
        condition &= peewee.Tuple(Notification.created_at, Notification.id) > peewee.Tuple(
            Notification.created_at.db_value(after[0]), Notification.id.db_value(after[1]))
    return (Notification.select(Notification.id, Notification.service, Notification.created_at,
                                Notification.notification_type, Notification.key_type, Notification.status,
                                Notification.postage, Notification.rate_multiplier, Notification.billable_units)
            .where(condition).order_by(Notification.created_at, Notification.id).limit(batch_size))


def purge_notifications(*, now: datetime.datetime | None = None, batch_size: int = BATCH,
                        storage: Storage | None = None, purged: Purged | None = None) -> Purged:
    """Delete each service's notifications created before its retention cutoff for their channel."""
    now, storage, purged = now or utcnow(), storage or letter_storage(), purged or Purged()
    for service in list(Service.select()):  # read up front: the loop commits between batches
        cutoffs = {channel: retention_cutoff(service, channel, now) for channel in CHANNELS}
        for key_type in KEY_TYPES:
            after = None
            while rows := list(expired_batch_query(service, key_type, cutoffs, after, batch_size)):
                if not _purge_notification_batch(rows, storage, purged):
                    continue  # a concurrent purge took some of them: the same range again finds the rest
                if len(rows) < batch_size:
                    break  # the walk's end, known without reading an empty range
                after = (rows[-1].created_at, rows[-1].id)
    return purged


# The tables purged a batch of ids at a time.
Batched = TypeVar("Batched", ReceivedText, CallbackAttempt)


def _delete_in_batches(model: type[Batched], condition: peewee.Expression, batch_size: int) -> int:
    deleted = 0
    while ids := [row.id for row in model.select(model.id).where(condition).limit(batch_size)]:
        with database.atomic():
            deleted += model.delete().where(model.id.in_(ids)).execute()
    return deleted


def purge_received_texts(*, now: datetime.datetime | None = None, batch_size: int = BATCH) -> int:
    """Received texts are readable for 7 days whatever the service's retention; then they go."""
    cutoff = (now or utcnow()) - datetime.timedelta(days=RECEIVED_TEXT_DAYS)
    # Per service, so the (service, created_at, id) index bounds each range.
    return sum(_delete_in_batches(ReceivedText, (ReceivedText.service == service)
                                  & (ReceivedText.created_at < cutoff), batch_size)
               for service in list(Service.select(Service.id)))


def purge_callback_attempts(*, now: datetime.datetime | None = None, batch_size: int = BATCH) -> int:
    cutoff = (now or utcnow()) - datetime.timedelta(days=CALLBACK_ATTEMPT_DAYS)
    # Per service and kind, so the (service, kind, attempted_at) index bounds each range.
    return sum(_delete_in_batches(CallbackAttempt, (CallbackAttempt.service == service)
                                  & (CallbackAttempt.kind == kind) & (CallbackAttempt.attempted_at < cutoff),
                                  batch_size)
               for service in list(Service.select(Service.id)) for kind in CALLBACK_KINDS)


def purge_expired(*, now: datetime.datetime | None = None, batch_size: int = BATCH) -> Purged:
    """The nightly job: everything past its retention, in batches."""
    now = now or utcnow()
    purged = purge_notifications(now=now, batch_size=batch_size)
    purged.received_texts = purge_received_texts(now=now, batch_size=batch_size)
    purged.callback_attempts = purge_callback_attempts(now=now, batch_size=batch_size)
    log.info("retention purge: %s", purged)
    return purged
