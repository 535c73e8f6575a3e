"""Bounce and complaint reports for a plain SMTP set-up, read with the standard library's `email`.

- RFC 3464 delivery status notifications (multipart/report; report-type=delivery-status): per
  recipient, Action "failed" with a 5.x.x Status is a permanent bounce, with 4.x.x a temporary one;
  Action "delivered" is a delivery. "delayed", "relayed" and "expanded" say nothing final.
- RFC 5965 abuse reports (multipart/report; report-type=feedback-report): a complaint, its
  Feedback-Type (abuse, fraud, ...) kept as the complaint's type.
The email they are about is found by the Message-ID in the returned message or its headers (the
report's third part), which holds our notification id.
"""
from __future__ import annotations

import datetime
import email
import email.policy
from email.message import Message
from email.parser import HeaderParser
from email.utils import parsedate_to_datetime

from pipeline.infrastructure.providers.email.events import (
    COMPLAINT,
    DELIVERED,
    PERMANENT_BOUNCE,
    TEMPORARY_BOUNCE,
    EmailEvent,
)


def read_report(raw: bytes) -> list[EmailEvent]:
    """The events a report tells of; [] for a message that is not a DSN or abuse report."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    if message.get_content_type() != "multipart/report":
        return []
    report_type = message.get_param("report-type")
    parts = _subparts(message)
    if not isinstance(report_type, str) or not parts:  # an RFC 2231-encoded type is no report we read
        return []
    report_type = report_type.lower()
    message_id = _original_message_id(parts)
    if report_type == "delivery-status":
        return _delivery_status(parts, message_id)
    if report_type == "feedback-report":
        return _feedback(parts, message_id)
    return []


def _subparts(message: Message) -> list[Message]:
    """A multipart's parts (or a delivery-status part's header blocks); [] for a single part."""
    payload = message.get_payload()
    return [part for part in payload if isinstance(part, Message)] if isinstance(payload, list) else []


def _part(parts: list[Message], content_type: str) -> Message | None:
    return next((part for part in parts if part.get_content_type() == content_type), None)


def _original_message_id(parts: list[Message]) -> str | None:
    returned = _part(parts, "message/rfc822")
    returned_parts = _subparts(returned) if returned is not None else []
    if returned_parts:
        headers = returned_parts[0]
    else:
        text = _part(parts, "text/rfc822-headers")
        raw = text.get_payload(decode=True) if text is not None else None
        if not isinstance(raw, bytes):
            return None
        headers = HeaderParser().parsestr(raw.decode("utf-8", "replace"))
    value = headers.get("Message-ID")
    return str(value).strip() if value else None


def _date(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.UTC).replace(tzinfo=None)
    return parsed


def _delivery_status(parts: list[Message], message_id: str | None) -> list[EmailEvent]:
    status_part = _part(parts, "message/delivery-status")
    blocks = _subparts(status_part) if status_part is not None else []
    if len(blocks) < 2:
        return []
    per_message, recipients = blocks[0], blocks[1:]
    events = []
    for recipient in recipients:
        action = str(recipient.get("Action", "")).strip().lower()
        status = str(recipient.get("Status", "")).strip()
        if action == "failed":
            kind = PERMANENT_BOUNCE if status.startswith("5") else TEMPORARY_BOUNCE
        elif action == "delivered":
            kind = DELIVERED
        else:
            continue
        diagnostic = " ".join(str(recipient.get("Diagnostic-Code", "")).split()) or None
        when = _date(recipient.get("Last-Attempt-Date") or per_message.get("Arrival-Date"))
        events.append(EmailEvent(kind, message_id=message_id, occurred_at=when,
                                 detail=f"{status} {diagnostic or ''}".strip() or None))
    return events


def _feedback(parts: list[Message], message_id: str | None) -> list[EmailEvent]:
    report = _part(parts, "message/feedback-report")
    if report is None:
        return []
    fields = next(iter(_subparts(report)), report)
    feedback_type = str(fields.get("Feedback-Type", "abuse")).strip().lower() or "abuse"
    return [EmailEvent(COMPLAINT, message_id=message_id, occurred_at=_date(fields.get("Arrival-Date")),
                       detail=feedback_type)]
