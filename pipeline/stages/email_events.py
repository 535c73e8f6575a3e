"""The email-events stage: what an email provider (or a bounce report) says became of a message.

Events come from the provider webhook (api/providers/email_events.py) and from bounce and complaint
reports read off an MTA pipe (pipeline/infrastructure/providers/email/reports.py). Delivery and bounces move the
notification along the transition table; a complaint leaves the status alone and is recorded for the
service (its `complaint` callback).
"""
from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Sequence

from models.notification import Notification
from pipeline.domain import statuses
from pipeline.infrastructure.providers.email.events import (
    COMPLAINT,
    DELIVERED,
    PERMANENT_BOUNCE,
    TEMPORARY_BOUNCE,
    EmailEvent,
)
from pipeline.stages import notification_events, status_changes

log = logging.getLogger(__name__)

_STATUS = {DELIVERED: statuses.DELIVERED, PERMANENT_BOUNCE: statuses.PERMANENT_FAILURE,
           TEMPORARY_BOUNCE: statuses.TEMPORARY_FAILURE}
# Our Message-IDs carry the notification id before the "@" (pipeline/infrastructure/providers/email/message.py).
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def _candidate_ids(event: EmailEvent) -> list[str]:
    ids = []
    for text in (event.reference, (event.message_id or "").partition("@")[0]):
        match = _UUID.search(text or "")
        if match:
            ids.append(str(uuid.UUID(match.group())))
    return ids


def find_notification(event: EmailEvent) -> Notification | None:
    """The email this event is about: by our id (given, or inside the Message-ID), else by the
    Message-ID the provider recorded for it."""
    for notification_id in _candidate_ids(event):
        found = Notification.get_or_none((Notification.id == notification_id)
                                         & (Notification.notification_type == "email"))
        if found is not None:
            return found
    if event.message_id:
        message_id = f"<{event.message_id.strip().strip('<>')}>"
        return Notification.get_or_none(Notification.provider_reference == message_id)
    return None


def apply_email_events(provider: str, events: Sequence[EmailEvent]) -> int:
    """Apply each event in order; the number of notifications changed or complaints recorded."""
    changed = 0
    for event in events:
        notification = find_notification(event)
        if notification is None:
            log.warning("%s event from %s for an unknown email: %s", event.type, provider, event)
            continue
        if event.type == COMPLAINT:
            recorded = notification_events.record(notification, COMPLAINT, occurred_at=event.occurred_at,
                                                  detail={"complaint_type": event.detail or "abuse"})
            changed += recorded is not None
            continue
        # Refused for, say, a late "delivered" after a bounce.
        changed += status_changes.transition_if_allowed(notification.id, _STATUS[event.type])
        if event.type != DELIVERED and event.detail:
            log.info("%s of %s: %s", event.type, notification.id, event.detail)
    return changed
