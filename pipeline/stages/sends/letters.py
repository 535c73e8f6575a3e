"""Sending a letter, from a template or as a precompiled PDF: check, record, enqueue after commit.

Mirrors sending.py (sms and email) and shares its checks and limits; the body comes in already in
the v2 API's shape. The slow work (rendering the PDF, the virus scan, printing) is left to the
letter stages.
"""
from __future__ import annotations

import base64
import binascii
import re
import uuid
from typing import Any

from models.notification import Notification
from models.service import Service
from models.template import TemplateVersion
from pipeline.domain import statuses
from pipeline.domain.errors import BadRequestError, Refusal
from pipeline.domain.letters.content import DEFAULT_POSTAGE, filled_letter, postage_of
from pipeline.domain.letters.precompiled import NotAPdf, check_is_pdf
from pipeline.domain.recipients import PostalAddress
from pipeline.infrastructure import throughput
from pipeline.infrastructure.daily_limits import DailyCount, daily_counts
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from pipeline.infrastructure.throughput import Enqueue
from pipeline.stages import send_checks
from pipeline.stages.documents import prepare_files
from pipeline.stages.new_notification import new_notification
from pipeline.stages.sends.sender import Sender
from pipeline.stages.sends.sending import scheduled_for_utc

# As GOV.UK Notify does until it reads the address off the PDF: the recipient of an uploaded letter.
PRECOMPILED_RECIPIENT = "Provided as PDF"
PRECOMPILED_SUBJECT = "Pre-compiled PDF"
NOT_A_PDF = Refusal("not_a_pdf", "Letter content is not a valid PDF")
_WHITESPACE = re.compile(rb"\s+")


def _check_can_send_letters(sender: Sender) -> None:
    service = sender.service
    send_checks.check_permission(service, "letter")
    throughput.seam().check_rate_limit(service.id, sender.key_type, service.rate_limit)
    send_checks.check_letter_key_and_mode(service, sender.key_type)


def check_may_send_letters(sender: Sender) -> None:
    """What the send checks of the sender before the letter itself, without counting a request
    against the rate limit: a console upload is refused before its file is looked at."""
    send_checks.check_permission(sender.service, "letter")
    send_checks.check_letter_key_and_mode(sender.service, sender.key_type)


def _daily_counts(sender: Sender) -> tuple[DailyCount, ...]:
    if sender.key_type == "test":
        return ()
    return daily_counts(sender.service.id, {"letter": sender.service.daily_limit("letter")})


def _letter_content(service: Service, body: dict) -> tuple[TemplateVersion, PostalAddress, str | None]:
    return send_checks.letter_content(service, body["template_id"], body["personalisation"],
                                     body.get("letter_contact_id"))


def checked_letter_address(sender: Sender, body: dict[str, Any]) -> PostalAddress:
    """What send_letter checks of the sender and the letter itself (template, address, personalisation),
    without recording or counting it: a console preview refuses what the send would."""
    check_may_send_letters(sender)
    return _letter_content(sender.service, body)[1]


def send_letter(sender: Sender, body: dict[str, Any], enqueue_pdf: Enqueue) -> Notification:
    """Check and record a letter from a template, for an API key or a console user; raises
    pipeline.domain.errors' refusals. The body has the v2 API's shape."""
    service = sender.service
    _check_can_send_letters(sender)
    version, address, contact_block = _letter_content(service, body)
    values = body["personalisation"]
    prepare_files(service, "letter", uuid.uuid4(), values)  # a prepared file here is refused
    rendered, contact = filled_letter(version, contact_block, values)
    notification = new_notification(
        service, "letter", address, body=rendered.body, subject=rendered.subject, version=version,
        key_type=sender.key_type, api_key_id=sender.api_key_id, created_by_user_id=sender.created_by_user_id,
        reference=body.get("reference"), reply_to_text=contact, scheduled_for=scheduled_for_utc(body),
        personalisation=values,  # the PDF stage fills in a bilingual letter's English part and "Uw kenmerk"
        postage=postage_of(address, version),
    )
    throughput.seam().record([notification], enqueue_pdf, _daily_counts(sender))
    return notification


def _decode_pdf(content: str) -> bytes:
    try:
        # Line breaks inside base64 are common (MIME encoders wrap at 76): ignored, as decoders do.
        data = base64.b64decode(_WHITESPACE.sub(b"", content.encode("ascii")), validate=True)
        check_is_pdf(data)
    except (UnicodeEncodeError, binascii.Error, NotAPdf):
        raise BadRequestError(NOT_A_PDF) from None
    return data


def checked_pdf(data: bytes) -> int:
    """The page count of a PDF the letter stages can read; refused as the API refuses its content."""
    try:
        return check_is_pdf(data)
    except NotAPdf:
        raise BadRequestError(NOT_A_PDF) from None


def send_precompiled_letter(sender: Sender, reference: str, content: str, postage: str | None,
                            enqueue_scan: Enqueue) -> Notification:
    """Check, store and record a precompiled letter (content: the PDF in base64), for the virus scan
    to take on; raises pipeline.domain.errors' refusals."""
    _check_can_send_letters(sender)
    return _record_precompiled(sender, reference, _decode_pdf(content), postage, enqueue_scan)


def send_precompiled_pdf(sender: Sender, reference: str, data: bytes, postage: str | None,
                         enqueue_scan: Enqueue) -> Notification:
    """send_precompiled_letter for the PDF's bytes (a console upload): the same checks, the same scan."""
    _check_can_send_letters(sender)
    checked_pdf(data)
    return _record_precompiled(sender, reference, data, postage, enqueue_scan)


def _record_precompiled(sender: Sender, reference: str, data: bytes, postage: str | None,
                        enqueue_scan: Enqueue) -> Notification:
    notification = new_notification(
        sender.service, "letter", PRECOMPILED_RECIPIENT, body="", subject=PRECOMPILED_SUBJECT,
        key_type=sender.key_type, api_key_id=sender.api_key_id, created_by_user_id=sender.created_by_user_id,
        reference=reference, status=statuses.PENDING_VIRUS_CHECK, postage=postage or DEFAULT_POSTAGE,
        precompiled=True)
    storage = letter_storage()
    # Stored before the row commits, so the scan stage always finds the file it is sent for.
    storage.put(letter_pdf_key(notification.id), data)
    try:
        throughput.seam().record([notification], enqueue_scan, _daily_counts(sender))
    except BaseException:
        storage.delete(letter_pdf_key(notification.id))
        raise
    return notification
