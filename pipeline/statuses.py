"""The one place that knows which status changes are allowed.

Every status change is a compare-and-set UPDATE guarded by the allowed predecessors, so two
workers racing on one notification cannot both move it, and an illegal move is refused and logged.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from models.db import utcnow
from models.notification import Notification

log = logging.getLogger(__name__)

CREATED = "created"
SENDING = "sending"
PENDING = "pending"
SENT = "sent"
DELIVERED = "delivered"
PERMANENT_FAILURE = "permanent-failure"
TEMPORARY_FAILURE = "temporary-failure"
TECHNICAL_FAILURE = "technical-failure"
PENDING_VIRUS_CHECK = "pending-virus-check"
VIRUS_SCAN_FAILED = "virus-scan-failed"
VALIDATION_FAILED = "validation-failed"
CANCELLED = "cancelled"
RETURNED_LETTER = "returned-letter"

FAILURES = (PERMANENT_FAILURE, TEMPORARY_FAILURE, TECHNICAL_FAILURE, VIRUS_SCAN_FAILED, VALIDATION_FAILED)
FINAL = frozenset({DELIVERED, SENT, CANCELLED, RETURNED_LETTER, *FAILURES})
COMPLETED = frozenset({DELIVERED, CANCELLED, RETURNED_LETTER, *FAILURES})

# new status -> statuses it may be reached from
ALLOWED: dict[str, frozenset[str]] = {
    SENDING: frozenset({CREATED}),
    SENT: frozenset({CREATED, SENDING}),
    PENDING: frozenset({SENDING}),
    DELIVERED: frozenset({SENDING, PENDING, SENT}),
    PERMANENT_FAILURE: frozenset({CREATED, SENDING, PENDING, SENT}),
    TEMPORARY_FAILURE: frozenset({SENDING, PENDING, SENT}),
    TECHNICAL_FAILURE: frozenset({CREATED, SENDING, PENDING_VIRUS_CHECK}),
    CREATED: frozenset({PENDING_VIRUS_CHECK}),  # a precompiled letter that passed scan and checks
    VIRUS_SCAN_FAILED: frozenset({PENDING_VIRUS_CHECK}),
    VALIDATION_FAILED: frozenset({CREATED, PENDING_VIRUS_CHECK}),
    CANCELLED: frozenset({CREATED, PENDING_VIRUS_CHECK}),
    RETURNED_LETTER: frozenset({SENDING, DELIVERED}),
}

# Public names of the letter statuses over the internal ones (wire contract).
LETTER_PUBLIC = {CREATED: "accepted", SENDING: "accepted", DELIVERED: "received"}
# Status filter values of the spec and the internal statuses each one covers.
FILTER_VALUES: dict[str, tuple[str, ...]] = {
    "cancelled": (CANCELLED,),
    "created": (CREATED,),
    "sending": (SENDING,),
    "sent": (SENT,),
    "delivered": (DELIVERED,),
    "pending": (PENDING,),
    "failed": FAILURES,
    "technical-failure": (TECHNICAL_FAILURE,),
    "temporary-failure": (TEMPORARY_FAILURE,),
    "permanent-failure": (PERMANENT_FAILURE,),
    "pending-virus-check": (PENDING_VIRUS_CHECK,),
    "validation-failed": (VALIDATION_FAILED,),
    "virus-scan-failed": (VIRUS_SCAN_FAILED,),
    "returned-letter": (RETURNED_LETTER,),
    "accepted": (CREATED, SENDING),
    "received": (DELIVERED,),
}


class IllegalTransition(Exception):
    pass


# Called as listener(notification_id, new_status) after every transition that changed a row (callbacks
# to services hang off this). A listener may run inside the caller's transaction, so anything it sends
# out must wait for the commit (workers.enqueue.enqueue_after_commit).
StatusListener = Callable[[str, str], None]
_listeners: list[StatusListener] = []


def on_change(listener: StatusListener) -> StatusListener:
    """Register a listener for status changes; usable as a decorator."""
    if listener not in _listeners:  # registering the same function twice still notifies it once
        _listeners.append(listener)
    return listener


def public_status(notification_type: str, status: str) -> str:
    if notification_type == "letter":
        return LETTER_PUBLIC.get(status, status)
    return status


def transition(notification_id: Any, new_status: str, **fields: Any) -> bool:
    """Move a notification to new_status when its current status allows it.

    Returns True when this call made the change, False when the notification is already in
    new_status (a redelivered message: nothing to do). Raises IllegalTransition otherwise.
    """
    allowed = ALLOWED[new_status]
    now = utcnow()
    values: dict[str, Any] = {"status": new_status, "updated_at": now, **fields}
    if new_status in COMPLETED and "completed_at" not in fields:
        values["completed_at"] = now
    changed = (
        Notification.update(values)
        .where((Notification.id == notification_id) & (Notification.status.in_(allowed)))
        .execute()
    )
    if changed:
        for listener in _listeners:
            listener(str(notification_id), new_status)
        return True
    current = Notification.select(Notification.status).where(Notification.id == notification_id).first()
    if current is not None and current.status == new_status:
        return False
    log.warning(
        "refused status change of %s from %s to %s",
        notification_id, current.status if current else "<missing>", new_status,
    )
    raise IllegalTransition(f"{current.status if current else 'missing'} -> {new_status}")
