"""Print stages: claim accepted letters into batches, hand a batch to the printer, apply its answers.

A batch is claimed with one compare-and-set UPDATE (dispatch_started_at and the batch id in
provider_reference), so two schedulers never put one letter in two batches. A claimed letter
leaves `created` only when its batch has been handed over; a batch whose hand-over keeps failing
ends technical-failure, and so does one whose worker vanished (the claim sweep), since whether the
printer got it is then unknown: a letter is never printed twice. A batch the provider refuses before
anything is sent (PrintHeld) is held instead (pipeline/stages/letters/held.py).
"""
from __future__ import annotations

import datetime
import logging
import uuid

from models.db import utcnow
from models.notification import Notification, unindexed_status
from pipeline.domain import statuses
from pipeline.domain.letters.content import DOMESTIC_COUNTRY
from pipeline.infrastructure.print_provider import (
    DISPATCHED,
    PrintBatch,
    PrintHeld,
    PrintLetter,
    PrintProvider,
    PrintTransferError,
)
from pipeline.infrastructure.storage import BlobNotFound, Storage, letter_pdf_key
from pipeline.stages import status_changes
from pipeline.stages.letters import held

log = logging.getLogger(__name__)

BATCH_SIZE = 500  # letters per batch folder, so one hand-over stays a few hundred MB at most
ANSWER_STATUS = {DISPATCHED: statuses.DELIVERED}  # anything else the provider says is a refusal


def _ready_letters(now: datetime.datetime) -> list[Notification]:
    return list(
        Notification.select(Notification.id, Notification.key_type)
        .where((Notification.status == statuses.CREATED) & (Notification.notification_type == "letter")
               & Notification.billable_units.is_null(False) & Notification.dispatch_started_at.is_null()
               & (Notification.scheduled_for.is_null() | (Notification.scheduled_for <= now)))
        .order_by(Notification.created_at)
        .limit(BATCH_SIZE * 4)
    )


def claim_batches(now: datetime.datetime | None = None, *, live: bool = True) -> list[tuple[str, bool]]:
    """Claim the letters ready to print into batches; returns (batch id, simulated) for each.
    Test-key letters make their own batches, for the simulated printer; with live=False (the real
    printer's batches are held) only those are claimed."""
    now = now or utcnow()
    groups: dict[bool, list[uuid.UUID]] = {}
    for row in _ready_letters(now):
        if live or row.key_type == "test":
            groups.setdefault(row.key_type == "test", []).append(row.id)
    batches = []
    for simulated, ids in groups.items():
        for start in range(0, len(ids), BATCH_SIZE):
            batch_id = f"{now:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:12]}"
            claimed = (
                Notification.update(dispatch_started_at=now, provider_reference=batch_id)
                .where(Notification.id.in_(ids[start:start + BATCH_SIZE]) & (unindexed_status() == statuses.CREATED)
                       & Notification.dispatch_started_at.is_null())
                .execute()
            )
            if claimed:
                batches.append((batch_id, simulated))
    return batches


def _letters_of(batch_id: str) -> list[Notification]:
    return list(Notification.select().where(
        (Notification.provider_reference == batch_id) & (unindexed_status() == statuses.CREATED)
        & (Notification.notification_type == "letter")))


def _country(notification: Notification) -> str:
    # Precompiled letters only take domestic postage, so their country is the Netherlands too.
    return (notification.address or {}).get("country") or DOMESTIC_COUNTRY


def send_batch(batch_id: str, provider: PrintProvider, storage: Storage) -> int:
    """Hand the claimed letters of a batch to the printer; returns how many moved to sending.

    Raises PrintTransferError (the caller retries, then calls fail_batch); a refusal before anything
    was sent (PrintHeld) holds the batch. A redelivered message finds the letters already sending and
    does nothing.
    """
    letters = []
    for row in _letters_of(batch_id):
        try:
            pdf = storage.get(letter_pdf_key(row.id))
        except BlobNotFound:
            log.error("letter %s of batch %s has no stored PDF", row.id, batch_id)
            status_changes.transition(row.id, statuses.TECHNICAL_FAILURE)
            continue
        assert row.billable_units is not None  # claimed into a batch only once its sheets were counted
        letters.append(PrintLetter(str(row.id), row.postage or "second", row.billable_units, _country(row), pdf))
    if not letters:
        held.release(batch_id)
        return 0
    try:
        provider.send_batch(PrintBatch(batch_id, letters))
    except PrintHeld as refusal:
        log.error("print batch %s held: %s", batch_id, refusal)
        held.hold(batch_id, str(refusal))
        return 0
    except PrintTransferError:
        held.release(batch_id)  # not refused: retried, then failed, as any hand-over
        raise
    now = utcnow()
    moved = 0
    for letter in letters:  # one cancelled while being handed over stays cancelled
        moved += status_changes.transition_if_allowed(letter.id, statuses.SENDING, sent_at=now, sent_by=provider.name)
    held.release(batch_id)
    log.info("print batch %s: %d letters handed to %s", batch_id, moved, provider.name)
    return moved


def fail_batch(batch_id: str) -> int:
    """The batch could not be handed over: its letters still waiting become technical-failure."""
    failed = 0
    for row in _letters_of(batch_id):
        failed += status_changes.transition_if_allowed(row.id, statuses.TECHNICAL_FAILURE)
    return failed


def apply_answers(provider: PrintProvider) -> int:
    """Apply the printer's answers: dispatched -> delivered ("received"), refused -> permanent-failure.

    An answer naming a letter still `created` (its batch's hand-over not yet recorded) is kept for
    the next run; every other answer is acknowledged once applied. Returns the status changes made.
    """
    changed = 0
    for response in provider.responses():
        keep = False
        for answer in response.letters:
            new_status = ANSWER_STATUS.get(answer.status, statuses.PERMANENT_FAILURE)
            try:
                changed += status_changes.transition(answer.id, new_status)
            except status_changes.IllegalTransition:
                current = Notification.get_or_none(Notification.id == answer.id)
                if current is not None and current.status in statuses.ALLOWED[new_status]:
                    # Its hand-over was recorded between the two reads (a simulated printer answers
                    # before send_batch moves its letters to sending): the answer applies now.
                    changed += status_changes.transition_if_allowed(answer.id, new_status)
                else:
                    keep = keep or (current is not None and current.status == statuses.CREATED)
            if answer.reason and new_status == statuses.PERMANENT_FAILURE:
                log.info("printer refused letter %s: %s", answer.id, answer.reason)
        if not keep:
            provider.acknowledge(response)
    return changed
