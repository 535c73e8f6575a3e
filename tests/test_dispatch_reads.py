"""The dispatch stage's reads and claims: sends that threads of a worker read (or claim) at the same
moment share one statement, and each still gets only its own notification, or its own failure."""
from __future__ import annotations

import functools
import uuid

import pytest

from models import crypto
from models.db import utcnow
from models.migrations import migrate
from models.notification import Notification
from pipeline.infrastructure.throughput.fast import dispatch as fast_dispatch
from pipeline.stages import dispatch
from tests.batching_helpers import fast_only, taken_together
from tests.factories import create_notification, create_service
from tests.faults import make_unreadable
from tests.private_databases import private_database, using


@pytest.fixture(autouse=True)
def _reads_taken_together_by_the_fast_implementation() -> None:
    fast_only()

def test_sends_read_together_each_get_their_own_row_and_one_unreadable_fails_alone(service):
    waiting = [create_notification(service=service, body=f"Your code is {n}") for n in range(8)]
    claimed = create_notification(service=service, dispatch_started_at=utcnow())
    delivered = create_notification(service=service, status="delivered")
    unreadable = create_notification(service=service)
    make_unreadable(unreadable)
    wanted = [*waiting, claimed, delivered, unreadable]
    read: dict[str, object] = {}

    def read_one(notification_id: str) -> None:
        try:
            found = dispatch.awaiting_dispatch(notification_id)
            read[notification_id] = found.body if found else None
        except crypto.UNREADABLE:
            read[notification_id] = "unreadable"

    # Every read waits, then one SELECT takes them all.
    taken_together(fast_dispatch._read_awaiting, uuid.uuid4(),
                   [functools.partial(read_one, str(n.id)) for n in wanted])

    assert read == {**{str(n.id): f"Your code is {i}" for i, n in enumerate(waiting)},
                    str(claimed.id): None, str(delivered.id): None, str(unreadable.id): "unreadable"}


@pytest.mark.parametrize("asks", ["awaiting_dispatch", "claim_awaiting"])
def test_a_send_read_or_claimed_twice_at_once_goes_on_once(service, asks):
    """Its message delivered twice at once: one request gets the notification, the other None."""
    send = create_notification(service=service)
    ask = getattr(dispatch, asks)
    batcher = fast_dispatch._read_awaiting if asks == "awaiting_dispatch" else fast_dispatch._claim_awaiting
    found: list[object] = []
    taken_together(batcher, uuid.uuid4(), [lambda: found.append(ask(str(send.id)))] * 2)
    assert sorted(map(bool, found)) == [False, True]


def test_sends_claimed_together_each_get_their_own_row_and_only_the_claimable_are_claimed(service):
    waiting = [create_notification(service=service, body=f"Your code is {n}") for n in range(6)]
    claimed = create_notification(service=service, dispatch_started_at=utcnow())
    delivered = create_notification(service=service, status="delivered")
    test_key = create_notification(service=service, key_type="test")
    wanted = [*waiting, claimed, delivered, test_key]
    found: dict[str, object] = {}

    def claim_one(notification_id: str) -> None:
        notification = dispatch.claim_awaiting(notification_id)
        found[notification_id] = notification.body if notification else None

    taken_together(fast_dispatch._claim_awaiting, uuid.uuid4(),
                   [functools.partial(claim_one, str(n.id)) for n in wanted])

    assert found == {**{str(n.id): f"Your code is {i}" for i, n in enumerate(waiting)},
                     str(claimed.id): None, str(delivered.id): None, str(test_key.id): None}
    rows = {row.id: row for row in Notification.select()}
    assert all(rows[n.id].dispatch_started_at is not None for n in waiting)
    assert rows[test_key.id].dispatch_started_at is None and rows[delivered.id].dispatch_started_at is None


def test_a_column_a_later_release_adds_does_not_stop_the_reads():
    """During a rolling upgrade the next release's migration may add a column to `notification`; the
    reads that take rows whole (`SELECT *`) skip what they do not know, and the send goes on."""
    with private_database("added_column") as db, using(db):
        migrate()
        service = create_service()
        send = create_notification(service=service, body="Your code is 7")
        db.execute_sql('ALTER TABLE "notification" ADD COLUMN "added_by_a_later_release" TEXT')
        db.execute_sql("UPDATE \"notification\" SET \"added_by_a_later_release\" = 'x'")
        assert dispatch.awaiting_dispatch(str(send.id)).body == "Your code is 7"
        assert dispatch.claim_awaiting(str(send.id)).body == "Your code is 7"
