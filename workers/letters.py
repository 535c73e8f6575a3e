"""Actors of the letter stages: create-letter-pdf, virus-scan, send-letters, and the periodic print jobs."""
from __future__ import annotations

import datetime
import logging

import peewee

from config import get_settings
from models.db import database, utcnow
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.infrastructure.print_provider import PrintHeld, PrintTransferError, answering_providers, provider_for
from pipeline.infrastructure.storage import letter_storage
from pipeline.infrastructure.virus_scan import ScannerUnavailable, scanner_from_url
from pipeline.stages import status_changes
from pipeline.stages.letters import held, printing, returns, stages
from workers.actors import actor
from workers.enqueue import enqueue_after_commit, enqueued_together, follow_up

log = logging.getLogger(__name__)
_settings = get_settings()
_DATABASE_ERRORS = (peewee.OperationalError, peewee.InterfaceError)
# A letter this long in a stage has lost its message (STUCK_AFTER_SECONDS, as for sms and email).
STUCK_AFTER = datetime.timedelta(seconds=_settings.stuck_after_seconds)


def _retries(retryable: tuple[type[BaseException], ...], exhausted: str) -> dict:
    # Only the named errors are retried; anything else is a bug, failed at once by `exhausted`.
    return {"max_retries": _settings.provider_max_retries, "min_backoff": _settings.provider_min_backoff_ms,
            "max_backoff": _settings.provider_max_backoff_ms, "on_retry_exhausted": exhausted,
            "retry_when": lambda retries, exc: isinstance(exc, retryable) and retries < _settings.provider_max_retries}


@actor(queue_name="create-letter-pdf", **_retries(_DATABASE_ERRORS, "letter_stage_failed"))
def create_letter_pdf(notification_id: str) -> None:
    stages.create_letter_pdf(notification_id, letter_storage())


@actor(queue_name="virus-scan", **_retries((ScannerUnavailable, *_DATABASE_ERRORS), "letter_stage_failed"))
def scan_precompiled_letter(notification_id: str) -> None:
    stages.scan_precompiled(notification_id, letter_storage(), scanner_from_url(get_settings().clamd_url))


@actor(queue_name="create-letter-pdf", max_retries=3)
def letter_stage_failed(message_data: dict, retry_info: dict) -> None:
    log.warning("%s gave up on letter %s", message_data["actor_name"], message_data["args"][0])
    # Unless moved on meanwhile.
    status_changes.transition_if_allowed(message_data["args"][0], statuses.TECHNICAL_FAILURE)


@actor(queue_name="periodic", max_retries=0)
def print_letters() -> None:
    """Claim the letters ready to print into batches, each sent on to send_print_batch. Held batches
    are tried again instead of claiming new live ones (pipeline/stages/letters/held.py)."""
    for batch_id in held.take_due():  # each taken by an UPDATE of its own, so queued at once
        enqueue_after_commit(send_print_batch, batch_id, False)
    waiting = held.held_batch_ids()
    with database.atomic():
        for batch_id, simulated in printing.claim_batches(live=not waiting):
            # Written with the claim: a lost hand-over would leave its letters claimed until the claim
            # sweep failed them, though they certainly never reached the printer.
            follow_up(send_print_batch, batch_id, simulated)


@actor(queue_name="send-letters", **_retries((PrintTransferError, *_DATABASE_ERRORS), "print_batch_failed"))
def send_print_batch(batch_id: str, simulated: bool) -> None:
    try:
        provider = provider_for(_settings, simulated=simulated)
    except ValueError as error:  # settings that cannot work: held until put right, as a refused host key
        log.error("print batch %s held: %s", batch_id, error)
        held.hold(batch_id, str(error))
        return
    if printing.send_batch(batch_id, provider, letter_storage()) and provider.name == "simulated":
        enqueue_after_commit(read_print_answers)  # the simulator has answered already: don't wait for the poll


@actor(queue_name="send-letters", max_retries=3)
def print_batch_failed(message_data: dict, retry_info: dict) -> None:
    batch_id = message_data["args"][0]
    log.warning("print batch %s could not be handed over: %d letters failed", batch_id, printing.fail_batch(batch_id))


@actor(queue_name="periodic", max_retries=0)
def read_print_answers() -> None:
    for provider in answering_providers(_settings):
        try:
            printing.apply_answers(provider)
            returns.apply_returns(provider)  # after the answers: a letter comes back once it was dispatched
        except (PrintTransferError, PrintHeld) as error:  # the other provider's answers are still read
            log.error("answers of print provider %s not read: %s", provider.name, error)


@actor(queue_name="periodic", max_retries=0)
def sweep_stuck_letters() -> None:
    """Letters whose stage message was lost (Redis restarted empty) get it again; stages are idempotent."""
    before = utcnow() - STUCK_AFTER
    letters = Notification.select(Notification.id, Notification.status).where(
        (Notification.notification_type == "letter") & (Notification.created_at < before)
        & (((Notification.status == statuses.CREATED) & Notification.billable_units.is_null()
            & (Notification.precompiled == False))  # noqa: E712
           | (Notification.status == statuses.PENDING_VIRUS_CHECK))
    ).limit(10_000)
    for row in letters:
        stage = scan_precompiled_letter if row.status == statuses.PENDING_VIRUS_CHECK else create_letter_pdf
        enqueue_after_commit(stage, str(row.id))


def enqueue_letter_pdf(notifications: list[Notification]) -> None:
    """Once the current transaction commits, start each letter's PDF."""
    with enqueued_together():
        for notification in notifications:
            enqueue_after_commit(create_letter_pdf, str(notification.id))


def enqueue_virus_scan(notifications: list[Notification]) -> None:
    """Once the current transaction commits, start each precompiled letter's virus scan."""
    with enqueued_together():
        for notification in notifications:
            enqueue_after_commit(scan_precompiled_letter, str(notification.id))
