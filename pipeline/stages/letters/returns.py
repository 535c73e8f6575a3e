"""The returned-letters stage: letters the post brought back move to `returned-letter`, with the date
they came back recorded for the service (its `returned-letter` callback)."""
from __future__ import annotations

import datetime
import logging

from models.db import database
from models.notification import Notification
from models.notification_event import RETURNED_LETTER
from pipeline.domain import statuses
from pipeline.infrastructure.print_provider import PrintProvider
from pipeline.infrastructure.print_provider.returns import ReturnedLetter
from pipeline.stages import notification_events, status_changes

log = logging.getLogger(__name__)

# A letter can come back once it is with the printer, whether or not its "dispatched" answer was read.
_RETURNABLE = (statuses.SENDING, statuses.DELIVERED, statuses.RETURNED_LETTER)


def _find(letter: ReturnedLetter) -> Notification | None:
    letters = Notification.select().where((Notification.notification_type == "letter")
                                          & Notification.status.in_((*_RETURNABLE, statuses.CREATED)))
    if letter.id is not None:
        return letters.where(Notification.id == letter.id).first()
    matches = list(letters.where(Notification.reference == letter.reference).limit(2))
    if len(matches) > 1:
        log.error("returned letter reference %r names more than one letter: not applied", letter.reference)
        return None
    return matches[0] if matches else None


def apply_returns(provider: PrintProvider) -> int:
    """Apply the provider's returned-letters files; the letters moved. A file naming a letter still
    `created` (its hand-over not yet recorded) is kept for the next run, like an early answer."""
    moved = 0
    for returned in provider.returns():
        keep = False
        returned_on = datetime.datetime.combine(returned.returned_on, datetime.time())
        for letter in returned.letters:
            notification = _find(letter)
            if notification is None:
                log.error("returned letter %s not found among letters sent", letter.id or letter.reference)
                continue
            if notification.status == statuses.CREATED:
                keep = True
                continue
            with database.atomic():  # the status and the event together, so a rerun completes either
                moved += status_changes.transition(notification.id, statuses.RETURNED_LETTER)
                notification_events.record(notification, RETURNED_LETTER, occurred_at=returned_on)
        if not keep:
            provider.acknowledge_returns(returned)
    return moved
