"""Acks of processed messages reach Redis: a worker leaves nothing of them behind."""
from __future__ import annotations

import uuid

import dramatiq
import pytest

from tests.conftest import running_worker, wait_for
from workers.broker import Broker, current_broker

broker = current_broker()  # conftest built it through the web app's factory

pytestmark = pytest.mark.skipif(not isinstance(broker, Broker), reason="the Redis broker's keys")
QUEUE = f"acks-test-{uuid.uuid4().hex[:8]}"
ran: list[str] = []


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def note(label: str) -> None:
    ran.append(label)


def test_messages_a_worker_processed_leave_nothing_behind_in_redis():
    ran.clear()
    for i in range(20):
        note.send(f"m{i}")
    with running_worker():
        wait_for(lambda: len(ran) == 20)
        wait_for(lambda: broker.do_qsize(QUEUE) == 0)
    assert broker.client.hlen(f"{broker.namespace}:{QUEUE}.msgs") == 0
