"""A notification's status changes with their times, read back from what the row already records.

No table of transitions is written: the send path's every status change is one compare-and-set UPDATE
(pipeline/domain/statuses.py), and a second write per change would double the cost of the hottest path. The
row keeps when it was accepted (created_at), handed to a provider or the printer (sent_at), reached a
final status (completed_at) and last changed (updated_at); a returned letter keeps its own date as a
delivery event. That is every change a notification makes, save an intermediate `pending` (an sms
whose provider reported it on the way), whose time is the last change when it is the current status.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

from models.notification import Notification
from models.notification_event import RETURNED_LETTER, NotificationEvent
from pipeline.domain import statuses

ACCEPTED = "accepted"  # the first step, whatever the row's first internal status was
HANDED_OVER = "handed-over"  # to the provider (sms, email) or the printer (letters)


@dataclass(frozen=True)
class Step:
    kind: str  # ACCEPTED, HANDED_OVER, or the internal status reached
    at: datetime.datetime


def timeline(notification: Notification) -> list[Step]:
    """The notification's steps, oldest first."""
    steps = [Step(ACCEPTED, notification.created_at)]
    status = notification.status
    if status == statuses.PENDING_VIRUS_CHECK:
        return steps
    if notification.sent_at is not None:
        steps.append(Step(HANDED_OVER, notification.sent_at))
    if status == statuses.RETURNED_LETTER:
        # The return overwrote the time it was received (completed_at); the event keeps the return's date.
        returned = NotificationEvent.get_or_none((NotificationEvent.notification_id == notification.id)
                                                 & (NotificationEvent.kind == RETURNED_LETTER))
        steps.append(Step(status, returned.occurred_at if returned else notification.completed_at
                          or notification.created_at))
    elif status in statuses.FINAL:
        steps.append(Step(status, notification.completed_at or notification.updated_at or notification.created_at))
    elif status not in (statuses.CREATED, statuses.SENDING):
        steps.append(Step(status, notification.updated_at or notification.created_at))
    return steps


def is_final(notification: Notification) -> bool:
    """Whether the message page may stop watching: a late receipt after a final status (a bounce after
    delivery, a returned letter) is rare and shows on the next visit."""
    return notification.status in statuses.FINAL
