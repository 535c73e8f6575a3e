"""A message's place in a fallback chain (issue 44), as its page shows it: the message it stands in
for, the one sent instead of it, the alternatives still to try, and the refusal that ended the chain."""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from console.messages import labels
from console.services.refusals import translated
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from pipeline.domain.errors import restored
from pipeline.domain.recipients import written_recipient
from pipeline.stages.fallback import FALLS_BACK_ON, link_of


@dataclass(frozen=True)
class Link:
    """Another message of the chain: its id, channel (in the reader's words) and first recipient line."""
    id: uuid.UUID
    channel: str
    to: str


def _link(service_id: object, notification_id: uuid.UUID | None) -> Link | None:
    if notification_id is None:
        return None
    found = (Notification.select(Notification.id, Notification.notification_type, Notification.to)
             .where((Notification.id == notification_id) & (Notification.service == service_id)).first())
    if found is None:  # purged after its retention period
        return None
    to = (found.to or "").split("\n")[0] if found.notification_type == "letter" \
        else written_recipient(found.notification_type, found.to)
    return Link(found.id, str(labels.CHANNELS[found.notification_type]), to)


def step_coming(notification: Notification, link: NotificationFallback | None) -> bool:
    """Whether the message failed and its next alternative is still to be sent: its page keeps watching."""
    return (link is not None and notification.status in FALLS_BACK_ON and bool(link.alternatives)
            and notification.key_type != "test" and link.sent_as is None and link.refused is None)


def chain(notification: Notification) -> dict[str, Any]:
    """What the page says of the chain; every value is empty for a message sent without alternatives."""
    link = link_of(notification.id)
    if link is None:
        return {"stands_in_for": None, "sent_instead": None, "next_channels": [], "fallback_refused": [],
                "step_coming": False}
    return {
        "stands_in_for": _link(notification.service_id, link.fallback_for),
        "sent_instead": _link(notification.service_id, link.sent_as),
        "next_channels": [str(labels.CHANNELS[alternative["type"]]) for alternative in link.alternatives or []
                          if alternative.get("type") in labels.CHANNELS],
        "fallback_refused": [translated(restored(record)) for record in link.refused or []],
        "step_coming": step_coming(notification, link),
    }
