"""Held print batches: batches the print provider refused before anything was sent (its SFTP server
offered a host key other than the one pinned, or refused our key).

A held batch keeps its letters claimed under its id, `created`: a batch whose earlier try dropped
mid-way may have been renamed on the server, so only the same batch id, looked for there, can
resume it without printing a letter twice. Each print run sends the held batches to be tried again
(one try at a time per batch: a try is taken with a compare-and-set, and lapses after TRY_LEASE if
its message was lost) and claims no new live batch while one is held, so a refusing server is asked
once per batch per run. A try that gets past the refusal ends the hold: handed over, or failing as
any hand-over does (retried, then technical-failure). The claim sweep leaves held letters alone;
the worker dashboard lists the held batches with the refusal.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

from models.db import utcnow
from models.held_print_batch import HeldPrintBatch
from models.notification import Notification
from pipeline.domain import statuses

TRY_LEASE = datetime.timedelta(minutes=15)  # a try not answered by then lost its message: it is sent again


@dataclass(frozen=True)
class HeldBatch:
    batch_id: str
    letters: int
    reason: str
    held_since: datetime.datetime
    tried_at: datetime.datetime


def hold(batch_id: str, reason: str) -> None:
    """Record (or refresh) the hold of a batch: since when, why, and when it was last tried."""
    now = utcnow()
    HeldPrintBatch.insert(batch_id=batch_id, reason=reason, held_since=now, tried_at=now).on_conflict(
        conflict_target=[HeldPrintBatch.batch_id],
        update={HeldPrintBatch.reason: reason, HeldPrintBatch.tried_at: now, HeldPrintBatch.trying_since: None},
    ).execute()


def release(batch_id: str) -> None:
    HeldPrintBatch.delete().where(HeldPrintBatch.batch_id == batch_id).execute()


def take_due(now: datetime.datetime | None = None) -> list[str]:
    """The held batches to try again now, each taken so that no other print run tries it meanwhile."""
    now = now or utcnow()
    taken = []
    for batch_id in held_batch_ids():
        idle = HeldPrintBatch.trying_since.is_null() | (HeldPrintBatch.trying_since < now - TRY_LEASE)
        if HeldPrintBatch.update(trying_since=now).where((HeldPrintBatch.batch_id == batch_id) & idle).execute():
            taken.append(batch_id)
    return taken


def held_batch_ids() -> list[str]:
    return [row.batch_id for row in HeldPrintBatch.select(HeldPrintBatch.batch_id).order_by(HeldPrintBatch.held_since)]


def held_batches() -> list[HeldBatch]:
    """Every held batch, oldest first, with the number of its letters still waiting."""
    found = []
    for row in HeldPrintBatch.select().order_by(HeldPrintBatch.held_since):
        letters = Notification.select().where((Notification.provider_reference == row.batch_id)
                                              & (Notification.status == statuses.CREATED)).count()
        found.append(HeldBatch(row.batch_id, letters, row.reason, row.held_since, row.tried_at))
    return found
