"""What an email provider can tell us about a message after accepting it, as plain data (no database)."""
from __future__ import annotations

import datetime
from dataclasses import dataclass

DELIVERED = "delivered"
PERMANENT_BOUNCE = "permanent-bounce"
TEMPORARY_BOUNCE = "temporary-bounce"
COMPLAINT = "complaint"
EVENT_TYPES = (DELIVERED, PERMANENT_BOUNCE, TEMPORARY_BOUNCE, COMPLAINT)


@dataclass(frozen=True)
class EmailEvent:
    type: str  # one of EVENT_TYPES
    message_id: str | None = None  # the Message-ID header of the email we sent
    reference: str | None = None  # our notification id, when the provider hands it back
    occurred_at: datetime.datetime | None = None  # naive UTC
    detail: str | None = None  # a bounce's diagnostic, or a complaint's feedback type


def from_json(event: dict) -> EmailEvent:
    """An event as posted to the webhook (api/providers/email_events.py), already validated."""
    return EmailEvent(type=event["type"], message_id=event.get("message_id"), reference=event.get("reference"),
                      occurred_at=_timestamp(event.get("timestamp")), detail=event.get("detail"))


def _timestamp(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None  # when it happened is a detail; the event itself still counts
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.UTC).replace(tzinfo=None)
    return parsed


def to_json(event: EmailEvent) -> dict:
    """The webhook's shape of an event, for reports read elsewhere (an MTA pipe) to take the same way."""
    body = {"type": event.type, "message_id": event.message_id, "reference": event.reference, "detail": event.detail,
            "timestamp": event.occurred_at.isoformat() + "Z" if event.occurred_at else None}
    return {key: value for key, value in body.items() if value is not None}
