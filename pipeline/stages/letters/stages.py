"""Letter stages before printing: render a template letter's PDF; scan and check a precompiled one.

A letter's PDF is ready when its billable_units are set and the PDF is stored under its id: each
stage stores first and sets billable_units last, so a redelivered message finds the work done, and
a worker dying in between leaves a PDF that is simply rendered (identically) again.
"""
from __future__ import annotations

import logging
import uuid

from models.db import utcnow
from models.notification import Notification, unindexed_status
from pipeline.domain import statuses
from pipeline.domain.letters.pdf import MAX_SHEETS, LetterLayoutError
from pipeline.domain.letters.precompiled import NotAPdf, validate_precompiled
from pipeline.infrastructure.storage import BlobNotFound, Storage, letter_pdf_key
from pipeline.infrastructure.virus_scan import Scanner
from pipeline.stages import status_changes
from pipeline.stages.letters.template_letters import render_notification_letter

log = logging.getLogger(__name__)

NOT_CHARGED = 0  # billable sheets of a letter that failed validation: it is never printed


def _fail_validation(notification_id: uuid.UUID | str, reason: str) -> None:
    # The reason rides on the status change itself: the sender reads it on the message's page.
    status_changes.transition(notification_id, statuses.VALIDATION_FAILED, billable_units=NOT_CHARGED,
                        validation_failure=reason)


def pdf_ready(notification: Notification, storage: Storage) -> bool:
    return notification.billable_units is not None and storage.exists(letter_pdf_key(notification.id))


def create_letter_pdf(notification_id: uuid.UUID | str, storage: Storage) -> str | None:
    """Render and store a template letter's PDF; returns what happened, None when there was nothing to do."""
    notification = Notification.get_or_none(Notification.id == notification_id)
    if notification is None or notification.precompiled or notification.status != statuses.CREATED:
        return None  # gone (retention), uploaded rather than rendered, or past this stage
    if pdf_ready(notification, storage):
        return None  # a redelivered message
    try:
        pdf = render_notification_letter(notification)
    except LetterLayoutError as error:
        log.info("letter %s cannot be laid out: %s", notification_id, error)
        _fail_validation(notification_id, str(error))
        return statuses.VALIDATION_FAILED
    # Kept even when too long, so the sender can read back what failed validation.
    storage.put(letter_pdf_key(notification_id), pdf.data)
    if pdf.sheets > MAX_SHEETS:
        log.info("letter %s has %d sheets, over the limit of %d", notification_id, pdf.sheets, MAX_SHEETS)
        _fail_validation(notification_id, f"letter is longer than {MAX_SHEETS} sheets ({pdf.sheets} sheets)")
        return statuses.VALIDATION_FAILED
    # Not a status change: the letter stays accepted (created) until it is handed to the printer.
    Notification.update(billable_units=pdf.sheets, updated_at=utcnow()).where(
        (Notification.id == notification_id) & (unindexed_status() == statuses.CREATED)
    ).execute()
    return "rendered"


def scan_precompiled(notification_id: uuid.UUID | str, storage: Storage, scanner: Scanner) -> str | None:
    """Virus scan, then print checks, of an uploaded letter.

    Raises ScannerUnavailable (the caller retries): a file is never passed unscanned.
    """
    notification = Notification.get_or_none(Notification.id == notification_id)
    if notification is None or notification.status != statuses.PENDING_VIRUS_CHECK:
        return None  # past this stage: a redelivered message
    key = letter_pdf_key(notification_id)
    try:
        data = storage.get(key)
    except BlobNotFound:
        log.error("precompiled letter %s has no stored upload", notification_id)
        status_changes.transition(notification_id, statuses.TECHNICAL_FAILURE)
        return statuses.TECHNICAL_FAILURE
    result = scanner.scan(data)
    if not result.clean:
        log.warning("precompiled letter %s carries %s: quarantined", notification_id, result.signature)
        # Copy, change status, then delete: a redelivery at any point rescans or finds it done.
        storage.put(f"quarantine/{key}", data)
        status_changes.transition(notification_id, statuses.VIRUS_SCAN_FAILED)
        storage.delete(key)
        return statuses.VIRUS_SCAN_FAILED
    try:
        check = validate_precompiled(data)
    except NotAPdf as error:
        log.info("precompiled letter %s is not a readable PDF: %s", notification_id, error)
        _fail_validation(notification_id, f"the file is not a readable PDF ({error})")
        return statuses.VALIDATION_FAILED
    if not check.ok:
        log.info("precompiled letter %s failed validation: %s", notification_id, "; ".join(check.problems))
        _fail_validation(notification_id, "; ".join(check.problems))
        return statuses.VALIDATION_FAILED
    status_changes.transition(notification_id, statuses.CREATED, billable_units=check.sheets)
    return statuses.CREATED
