"""Amazon SES notifications (the JSON inside an SNS Notification's Message) as our email events.

SES posts either identity notifications (`notificationType`) or configuration-set event publishing
(`eventType`), both with a `mail` object and one of `bounce`, `complaint`, `delivery`:
    Bounce, bounceType Permanent          -> permanent-bounce
    Bounce, bounceType Transient or Undetermined -> temporary-bounce (as GOV.UK Notify does)
    Complaint                             -> complaint
    Delivery                              -> delivered
Any other event type (Send, Reject, Open, Click, DeliveryDelay, ...) is not ours to act on.

SES replaces the Message-ID header of what it sends with its own, and its `mail.messageId` is an id
our SMTP sending never sees. The original headers come back in `mail.headers` and
`mail.commonHeaders` (always with event publishing; with identity notifications once "Include
original headers" is on), and our Message-ID carries the notification id: that is what finds the
email (pipeline/stages/email_events.py).
"""
from __future__ import annotations

from typing import Any

from pipeline.infrastructure.providers.email.events import COMPLAINT, DELIVERED, PERMANENT_BOUNCE, TEMPORARY_BOUNCE


class UnknownSesEvent(Exception):
    """A notification that is not a bounce, complaint or delivery, or lacks what one needs."""


def original_message_id(mail: dict[str, Any]) -> str | None:
    """The Message-ID header as we sent it, from the original headers SES hands back."""
    common = mail.get("commonHeaders")
    if isinstance(common, dict) and isinstance(common.get("messageId"), str):
        return common["messageId"]
    for header in mail.get("headers") or []:
        if isinstance(header, dict) and str(header.get("name", "")).lower() == "message-id":
            return str(header.get("value", "")) or None
    return None


def event_from_ses(notification: dict[str, Any]) -> dict:
    """The webhook's JSON shape of an email event (api/providers/email_events.py) for one SES
    notification; raises UnknownSesEvent for anything else."""
    kind = notification.get("eventType") or notification.get("notificationType")
    mail = notification.get("mail")
    if not isinstance(mail, dict):
        raise UnknownSesEvent(f"SES {kind} without a mail object")
    if kind == "Bounce":
        bounce = _object(notification, "bounce")
        event_type = PERMANENT_BOUNCE if bounce.get("bounceType") == "Permanent" else TEMPORARY_BOUNCE
        recipients = bounce.get("bouncedRecipients") or [{}]
        detail = recipients[0].get("diagnosticCode") if isinstance(recipients[0], dict) else None
        detail = detail or f"{bounce.get('bounceType')} {bounce.get('bounceSubType')}"
    elif kind == "Complaint":
        complaint = _object(notification, "complaint")
        event_type, detail = COMPLAINT, complaint.get("complaintFeedbackType")
    elif kind == "Delivery":
        event_type, detail = DELIVERED, None
    else:
        raise UnknownSesEvent(f"SES event type {kind!r} is not one we act on")
    happened = _object(notification, kind.lower()).get("timestamp")
    message_id = original_message_id(mail) or mail.get("messageId")
    if not isinstance(message_id, str) or not message_id.strip():
        raise UnknownSesEvent(f"SES {kind} without a message id")
    event = {"type": event_type, "message_id": message_id.strip(), "timestamp": happened, "detail": detail}
    return {key: str(value)[:2000] for key, value in event.items() if value}


def _object(notification: dict[str, Any], name: str) -> dict[str, Any]:
    value = notification.get(name)
    if not isinstance(value, dict):
        raise UnknownSesEvent(f"SES notification without its {name} object")
    return value
