"""The dispatch stage's reads: sends that threads of a worker read at the same moment share one
SELECT, and each still gets only its own notification, or its own failure."""
from __future__ import annotations

import threading
import uuid

from models import crypto
from models.db import utcnow
from pipeline import dispatch
from tests.factories import create_notification
from tests.faults import make_unreadable
from tests.batching_helpers import call_under_way, wait_until_queued


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

    batcher = dispatch._read_awaiting
    with call_under_way(batcher, uuid.uuid4()):  # every read waits, then one SELECT takes them all
        threads = [threading.Thread(target=read_one, args=(str(n.id),)) for n in wanted]
        for thread in threads:
            thread.start()
        wait_until_queued(batcher, len(wanted))
    for thread in threads:
        thread.join(10)

    assert read == {**{str(n.id): f"Your code is {i}" for i, n in enumerate(waiting)},
                    str(claimed.id): None, str(delivered.id): None, str(unreadable.id): "unreadable"}



def test_a_send_read_twice_at_once_goes_on_once(service):
    send = create_notification(service=service)
    found: list[object] = []
    with call_under_way(dispatch._read_awaiting, uuid.uuid4()):
        threads = [threading.Thread(target=lambda: found.append(dispatch.awaiting_dispatch(str(send.id))))
                   for _ in range(2)]
        for thread in threads:
            thread.start()
        wait_until_queued(dispatch._read_awaiting, 2)
    for thread in threads:
        thread.join(10)
    assert sorted(map(bool, found)) == [False, True]
