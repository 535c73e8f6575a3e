"""What the sweep picks up of case events: the event row is the truth, the queue's message only its
prompt. An event still open, or a klantcontact due, whose time came more than GRACE ago lost its message
(Redis away at the commit, a process killed, a retry dropped) and is sent again; the stage's claims make
a second run harmless. Events are kept KEEP_DAYS, then deleted."""
from __future__ import annotations

import datetime

from models.case_event import CaseEvent
from models.db import utcnow
from pipeline.domain import case_events as domain

GRACE = datetime.timedelta(minutes=5)
SWEPT_AT_ONCE = 1000
KEEP_DAYS = 90


def overdue(now: datetime.datetime) -> tuple[list[str], list[str]]:
    """(events to process, events whose klantcontact to record), along the partial index of due rows."""
    rows = CaseEvent.select(CaseEvent.id, CaseEvent.state, CaseEvent.contact_state).where(
        CaseEvent.next_attempt_at.is_null(False) & (CaseEvent.next_attempt_at < now - GRACE)).limit(SWEPT_AT_ONCE)
    to_process, to_record = [], []
    for row in rows:
        if row.state in domain.OPEN:
            to_process.append(str(row.id))
        elif row.contact_state == domain.CONTACT_DUE:
            to_record.append(str(row.id))
    return to_process, to_record


def purge(now: datetime.datetime | None = None) -> int:
    """Delete events received more than KEEP_DAYS ago that nothing is due for."""
    before = (now or utcnow()) - datetime.timedelta(days=KEEP_DAYS)
    return CaseEvent.delete().where((CaseEvent.received_at < before) & CaseEvent.next_attempt_at.is_null()).execute()
