"""Record what happened to a notification after it left us (complaint, unsubscribe request,
returned letter), once per notification and kind, and tell the listeners (the service's callbacks).

Listeners are called inside the transaction that records the event, like status listeners
(pipeline/stages/status_changes.py): what they write (a callback, in the follow-up outbox) commits
with the event, and anything they send out waits for the commit.
"""
from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import peewee

from models.db import database, utcnow
from models.notification import Notification
from models.notification_event import NotificationEvent

EventListener = Callable[[NotificationEvent], None]
_listeners: list[EventListener] = []


def on_record(listener: EventListener) -> EventListener:
    """Register a listener for newly recorded events; usable as a decorator."""
    if listener not in _listeners:
        _listeners.append(listener)
    return listener


def notification_detail(notification: Notification) -> dict[str, Any]:
    """What a report or callback about this notification needs once the notification is purged."""
    return {
        "to": notification.to,
        "reference": notification.reference,
        "notification_type": notification.notification_type,
        "template_id": str(notification.template_id) if notification.template_id else None,
        "template_version": notification.template_version,
        "sent_at": notification.sent_at.isoformat() if notification.sent_at else None,
    }


def record(notification: Notification, kind: str, *, occurred_at: datetime.datetime | None = None,
           detail: dict[str, Any] | None = None) -> NotificationEvent | None:
    """Record the event; None when this notification already has one of this kind (a repeat)."""
    fields = {**notification_detail(notification), **(detail or {})}
    with database.atomic():
        try:
            with database.atomic():  # a savepoint: a repeat's failed INSERT leaves the transaction usable
                event = NotificationEvent.create(service=notification.service_id, notification_id=notification.id,
                                                 kind=kind, occurred_at=occurred_at or utcnow(), detail=fields)
        except peewee.IntegrityError:
            return None
        for listener in _listeners:
            listener(event)
    return event
