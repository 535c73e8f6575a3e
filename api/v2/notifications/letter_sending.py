"""Accepting a letter, from a template or as a precompiled PDF: check, record, enqueue after commit.

Mirrors sending.py (sms and email) and reuses its checks, limits and response members. The slow
work (rendering the PDF, the virus scan, printing) is left to the letter stages.
"""
from __future__ import annotations

import base64
import binascii
import re
import uuid
from typing import Any, Callable

from flask import request

from api.auth import Caller
from api.errors import BadRequestError, ValidationError
from api.request_body import json_body
from api.schema import validate
from api.v2.notifications import checks
from api.v2.notifications.letter_schemas import post_letter_request, post_precompiled_letter_request
from api.v2.notifications.sender import Sender
from api.v2.notifications.sending import response_base, scheduled_for_utc, without_nulls
from config import get_settings
from core.idempotency import answer_once
from core.limits import check_rate_limit, release_daily, reserve_daily
from models.db import database, utcnow
from models.notification import Notification
from models.service import LetterContact, Service
from models.template import TemplateVersion, contact_block_of
from pipeline import statuses
from pipeline.letters.precompiled import NotAPdf, check_is_pdf
from pipeline.recipients import AddressErrors, PostalAddress, validate_postal_address
from pipeline.documents import prepare_files
from pipeline.rendering import missing_personalisation, render
from pipeline.storage import letter_pdf_key, letter_storage

Enqueue = Callable[[Notification], None]
OPTIONAL_NULLABLE = ("personalisation", "reference", "letter_contact_id", "scheduled_for", "postage")
DEFAULT_POSTAGE = "second"
DOMESTIC_COUNTRY = "Netherlands"
# As GOV.UK Notify does until it reads the address off the PDF: the recipient of an uploaded letter.
PRECOMPILED_RECIPIENT = "Provided as PDF"
PRECOMPILED_SUBJECT = "Pre-compiled PDF"
_WHITESPACE = re.compile(rb"\s+")


def accept_letter(caller: Caller, enqueue_pdf: Enqueue, enqueue_scan: Enqueue) -> tuple[dict, int]:
    """201 and the send response; a retry with the same Idempotency-Key gets the first answer."""
    def make() -> dict[str, Any]:
        sender = Sender.of_key(caller)
        raw = without_nulls(json_body(), OPTIONAL_NULLABLE)
        if isinstance(raw, dict) and "content" in raw and "template_id" not in raw:
            return _accept_precompiled(sender, raw, enqueue_scan)
        notification = send_letter(sender, raw, enqueue_pdf)
        return {**response_base(notification),
                "content": {"subject": notification.subject, "body": notification.body}}

    return answer_once(caller.service.id, request.headers.get("Idempotency-Key"), make)


def _check_can_send_letters(sender: Sender) -> None:
    service = sender.service
    checks.check_permission(service, "letter")
    check_rate_limit(service.id, sender.key_type, service.rate_limit)
    if sender.key_type == "team":
        raise BadRequestError("Cannot send letters with a team api key", status_code=403)
    if service.trial_mode and sender.key_type != "test":
        raise BadRequestError(
            f"Cannot send letters when service is in trial mode - see {get_settings().admin_url}/trial-mode")


def _reserve_daily(sender: Sender) -> list[str]:
    if sender.key_type == "test":
        return []
    return reserve_daily(sender.service.id, {"letter": sender.service.daily_limit("letter")})


def _contact_block(service: Service, version: TemplateVersion, letter_contact_id: str | None) -> str | None:
    if not letter_contact_id:
        return contact_block_of(version)
    contact = LetterContact.get_or_none((LetterContact.id == letter_contact_id) & (LetterContact.service == service))
    if contact is None:
        raise BadRequestError(
            f"letter_contact_id {letter_contact_id} does not exist in database for service id {service.id}")
    return contact.contact_block


def _letter_content(service: Service, body: dict) -> tuple[TemplateVersion, PostalAddress, str | None]:
    version = checks.find_template(service, body["template_id"], "letter")
    values = body["personalisation"]
    try:
        address = validate_postal_address(values)
    except AddressErrors as errors:
        raise ValidationError(*errors.messages) from None
    contact_block = _contact_block(service, version, body.get("letter_contact_id"))
    missing = missing_personalisation([*version.content_texts(), contact_block or ""], values)
    if missing:
        raise BadRequestError(f"Missing personalisation: {', '.join(missing)}")
    return version, address, contact_block


def checked_letter_address(service: Service, raw: Any) -> PostalAddress:
    """What send_letter checks of the letter itself (body, template, address, personalisation),
    without recording it: a console preview refuses what the send would."""
    body = validate(post_letter_request, without_nulls(raw, OPTIONAL_NULLABLE))
    return _letter_content(service, body)[1]


def send_letter(sender: Sender, raw: Any, enqueue_pdf: Enqueue) -> Notification:
    """Validate, check and record a letter from a template as the v2 API does, for an API key or a
    console user; raises the API's errors."""
    body = validate(post_letter_request, without_nulls(raw, OPTIONAL_NULLABLE))
    service = sender.service
    _check_can_send_letters(sender)
    version, address, contact_block = _letter_content(service, body)
    values = body["personalisation"]
    prepare_files(service, "letter", uuid.uuid4(), values)  # a prepared file here is refused
    rendered = render("letter", version.body, version.subject, values)
    contact = render("letter", contact_block, None, values).body if contact_block else None
    to = "\n".join(address.lines)
    counted = _reserve_daily(sender)
    try:
        with database.atomic():
            notification = Notification.create(
                service=service, api_key_id=sender.api_key_id, key_type=sender.key_type,
                created_by_user_id=sender.created_by_user_id,
                notification_type="letter", template_id=version.template.id, template_version=version.version,
                to=to, normalised_to="".join(to.split()).lower(), reference=body.get("reference"),
                status=statuses.CREATED, body=rendered.body, subject=rendered.subject, reply_to_text=contact,
                personalisation=values,  # the PDF stage fills in a bilingual letter's English part and "Uw kenmerk"
                created_at=utcnow(), scheduled_for=scheduled_for_utc(body), international=address.international,
                # International mail is charged by zone; Dutch mail goes at the template's class.
                postage=address.postage_zone or version.postage or DEFAULT_POSTAGE,
                address={"lines": address.lines, "postcode": address.postcode,
                         "country": address.country or DOMESTIC_COUNTRY},
            )
            enqueue_pdf(notification)
    except BaseException:
        release_daily(counted)
        raise
    return notification


def _decode_pdf(content: str) -> bytes:
    try:
        # Line breaks inside base64 are common (MIME encoders wrap at 76): ignored, as decoders do.
        data = base64.b64decode(_WHITESPACE.sub(b"", content.encode("ascii")), validate=True)
        check_is_pdf(data)
    except (UnicodeEncodeError, binascii.Error, NotAPdf):
        raise BadRequestError("Letter content is not a valid PDF") from None
    return data


def _accept_precompiled(sender: Sender, raw: dict, enqueue_scan: Enqueue) -> dict[str, Any]:
    body = validate(post_precompiled_letter_request, raw)
    _check_can_send_letters(sender)
    data = _decode_pdf(body["content"])
    postage = body.get("postage") or DEFAULT_POSTAGE
    notification_id = uuid.uuid4()
    storage = letter_storage()
    counted = _reserve_daily(sender)
    try:
        # Stored before the row commits, so the scan stage always finds the file it is sent for.
        storage.put(letter_pdf_key(notification_id), data)
        with database.atomic():
            notification = Notification.create(
                id=notification_id, service=sender.service, api_key_id=sender.api_key_id,
                key_type=sender.key_type, notification_type="letter", to=PRECOMPILED_RECIPIENT,
                reference=body["reference"], status=statuses.PENDING_VIRUS_CHECK, body="",
                subject=PRECOMPILED_SUBJECT, created_at=utcnow(), postage=postage, precompiled=True,
            )
            enqueue_scan(notification)
    except BaseException:
        release_daily(counted)
        storage.delete(letter_pdf_key(notification_id))
        raise
    return {"id": str(notification.id), "reference": notification.reference, "postage": postage}
