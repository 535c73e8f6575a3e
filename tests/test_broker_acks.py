"""Acks of processed messages wait a moment and reach Redis together; none is lost on the way."""
from __future__ import annotations

import uuid

import dramatiq
import pytest
import redis

from config import get_settings, redis_url
from tests.conftest import _free_port, running_worker, wait_for
from workers.broker import Broker, current_broker

broker = current_broker()  # conftest built it through the web app's factory

pytestmark = pytest.mark.skipif(not isinstance(broker, Broker),
                                reason="acks are sent together by the Redis broker, not RabbitMQ's")
QUEUE = f"acks-test-{uuid.uuid4().hex[:8]}"
ran: list[str] = []


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def note(label: str) -> None:
    ran.append(label)


@pytest.fixture
def own_broker() -> Broker:
    """A broker of the test's own, whose acks wait until the test sends them."""
    own = Broker(idle_poll_ms=100, quiet_poll_ms=100, url=redis_url(get_settings()),
                 namespace=f"acks-test-{uuid.uuid4().hex[:8]}")
    own.ack_every_seconds = 3600
    own.declare_queue("q")
    yield own
    own.flush_all()


def _taken(own: Broker) -> tuple[dramatiq.Consumer, dramatiq.MessageProxy]:
    """The queue's one message, taken by a consumer of the test's broker."""
    own.enqueue(dramatiq.Message(queue_name="q", actor_name="noted", args=(), kwargs={}, options={}))
    consumer = own.consume("q")
    return consumer, wait_for(lambda: next(consumer))


def test_messages_a_worker_processed_leave_nothing_behind_in_redis():
    ran.clear()
    for i in range(20):
        note.send(f"m{i}")
    with running_worker():
        wait_for(lambda: len(ran) == 20)
        wait_for(lambda: broker.do_qsize(QUEUE) == 0)
    assert broker.client.hlen(f"{broker.namespace}:{QUEUE}.msgs") == 0


def test_an_ack_waits_and_the_broker_sends_it_when_it_closes(own_broker):
    consumer, message = _taken(own_broker)
    consumer.ack(message)
    assert own_broker.do_qsize("q") > 0  # taken, its ack not yet sent
    own_broker.close()  # as a worker process does when it stops
    assert own_broker.do_qsize("q") == 0


def test_acks_that_meet_an_unreachable_redis_are_sent_on_the_next_try(own_broker):
    consumer, message = _taken(own_broker)
    consumer.ack(message)
    reachable = own_broker.client
    own_broker.client = redis.Redis(host="127.0.0.1", port=_free_port())  # nothing listens: an outage
    with pytest.raises(redis.ConnectionError):
        own_broker.send_acks()
    own_broker.client = reachable
    assert own_broker.do_qsize("q") > 0
    own_broker.send_acks()
    assert own_broker.do_qsize("q") == 0
