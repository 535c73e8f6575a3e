"""The 72-hour sending timeout moves overdue email and sms to temporary-failure, batch by batch."""
from __future__ import annotations

import datetime

from models.db import utcnow
from models.notification import Notification
from pipeline.domain import statuses
from pipeline.stages import status_changes
from pipeline.stages.sending_timeout import time_out_overdue
from tests.factories import create_notification


def test_overdue_rows_move_in_batches_and_nothing_else_does(service, monkeypatch):
    now = utcnow()
    old = now - datetime.timedelta(hours=73)
    # Many rows share one timestamp, so the walk must continue by id within it.
    overdue = [create_notification(service=service, notification_type=kind, status=status, created_at=old)
               for kind in ("sms", "email") for status in (statuses.SENDING, statuses.PENDING) for _ in range(4)]
    kept = [
        create_notification(service=service, status=statuses.SENDING, created_at=now - datetime.timedelta(hours=71)),
        create_notification(service=service, status=statuses.DELIVERED, created_at=old),
        create_notification(service=service, status=statuses.CREATED, created_at=old),
        create_notification(service=service, notification_type="letter", status=statuses.SENDING, created_at=old),
    ]
    moved_to = []
    monkeypatch.setattr(status_changes, "_listeners", [*status_changes._listeners])  # this test's listener goes with it
    status_changes.on_change(lambda notification_id, status: moved_to.append((notification_id, status)))
    assert time_out_overdue(now=now, batch_size=3) == 16
    assert {Notification.get_by_id(n.id).status for n in overdue} == {statuses.TEMPORARY_FAILURE}
    assert [Notification.get_by_id(n.id).status for n in kept] == [n.status for n in kept]
    # Each moved once, each announced to the status listeners (callbacks) once.
    assert sorted(moved_to) == sorted((str(n.id), statuses.TEMPORARY_FAILURE) for n in overdue)
    assert Notification.get_by_id(overdue[0].id).completed_at is not None
    assert time_out_overdue(now=now, batch_size=3) == 0
