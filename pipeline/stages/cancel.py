"""Cancelling a message before it leaves: a letter until it is handed to the printer, a scheduled sms or
email until it is due. The status becomes `cancelled`; the caller gives the daily counts back.

Race-free by construction: the cancel is one conditional transition (pipeline/domain/statuses.py) that needs the
notification still unclaimed (dispatch_started_at IS NULL), and the print batch (printing.claim_batches)
and the sender (dispatch.claim, send_simulated) claim only unclaimed notifications still `created`. Of a
cancel and a claim racing, exactly one changes the row; a claimed letter is never cancelled, and a
cancelled one is never claimed, so it never reaches the printer. A scheduled send must also not yet be
due, checked by the database in the same statement.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

from models.db import utcnow
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.domain.errors import BadRequestError, Refusal
from pipeline.stages import status_changes

# Why a cancel was refused: a code for the console's translation, and the words of the admin API.
ALREADY_CANCELLED = "already-cancelled"
TOO_LATE_LETTER = "too-late-letter"
LETTER_NOT_PRINTABLE = "letter-not-printable"
NOT_SCHEDULED = "not-scheduled"
TOO_LATE_SCHEDULED = "too-late-scheduled"


class CancelRefused(BadRequestError):
    def __init__(self, reason: str, message: str, when: datetime.datetime | None = None) -> None:
        super().__init__(Refusal(reason, message, {"when": when}))
        self.reason, self.when = reason, when


@dataclass(frozen=True)
class Cancelled:
    notification: Notification
    daily_limits: tuple[str, ...]  # the daily counts its send took (none for a test key's)
    counted_on: datetime.date  # the day (UTC) they were counted on


def _at(moment: datetime.datetime) -> str:
    return f"{moment:%Y-%m-%d} at {moment:%H:%M} UTC"


def refusal(notification: Notification, now: datetime.datetime) -> CancelRefused | None:
    """Why this notification cannot be cancelled now; None when it still can."""
    status = notification.status
    if status == statuses.CANCELLED:
        return CancelRefused(ALREADY_CANCELLED, "This message has already been cancelled")
    if notification.notification_type == "letter":
        started = notification.dispatch_started_at or notification.sent_at
        if started is not None:
            return CancelRefused(TOO_LATE_LETTER, f"It’s too late to cancel this letter. Printing started on "
                                                  f"{_at(started)}", started)
        if status not in statuses.ALLOWED[statuses.CANCELLED]:
            return CancelRefused(LETTER_NOT_PRINTABLE, "This letter cannot be cancelled because it will not be "
                                                       f"printed: its status is {status}")
        return None
    if notification.scheduled_for is None:
        return CancelRefused(NOT_SCHEDULED, "Only a scheduled message can be cancelled. This message was sent "
                                            "straight away")
    if notification.scheduled_for <= now or notification.dispatch_started_at is not None \
            or status not in statuses.ALLOWED[statuses.CANCELLED]:
        return CancelRefused(TOO_LATE_SCHEDULED, "It’s too late to cancel this message. It was due to be sent on "
                                                 f"{_at(notification.scheduled_for)}", notification.scheduled_for)
    return None


def daily_limits_of(notification: Notification) -> tuple[str, ...]:
    """The daily limits its accept counted it against (as the API's accept paths reserve them)."""
    if notification.key_type == "test":
        return ()
    kind = notification.notification_type
    return (kind, "international_sms") if kind == "sms" and notification.international else (kind,)


def cancel(notification: Notification, now: datetime.datetime | None = None) -> Cancelled:
    """Cancel it, or raise CancelRefused saying why not (also when a claim won a race with this cancel)."""
    now = now or utcnow()
    refused = refusal(notification, now)
    if refused is None:
        also = None if notification.notification_type == "letter" else Notification.scheduled_for > now
        moved = status_changes.transition_many([notification.id], statuses.CANCELLED,
                                         where={Notification.dispatch_started_at: None}, also=also)
        if moved:
            return Cancelled(Notification.get_by_id(notification.id), daily_limits_of(notification),
                             notification.created_at.date())
        # Claimed for printing or sending between the read and the cancel: say what happened.
        refused = refusal(Notification.get_by_id(notification.id), now)
    raise refused or CancelRefused(TOO_LATE_SCHEDULED, "It’s too late to cancel this message")
