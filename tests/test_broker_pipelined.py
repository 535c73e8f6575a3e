"""Broker.pipelined(): what a thread enqueues inside the block is in Redis, in order, when it ends."""
from __future__ import annotations

import threading
import uuid

import dramatiq
import pytest

from tests.conftest import running_worker, wait_for
from workers.broker import current_broker

broker = current_broker()  # conftest built it through the web app's factory

QUEUE = f"pipelined-test-{uuid.uuid4().hex[:8]}"
ran: list[str] = []  # list.append is atomic: the worker's threads may append at once


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def remember(label: str) -> None:
    ran.append(label)


@pytest.fixture(autouse=True)
def _nothing_ran_yet():
    ran.clear()


def _in_redis(queue: str = QUEUE) -> list[str]:
    """The ids of the messages waiting in a queue, in the order they were enqueued."""
    return [raw.decode() for raw in broker.client.lrange(f"{broker.namespace}:{queue}", 0, -1)]


def _ids(messages) -> list[str]:
    return [message.options["redis_message_id"] for message in messages]


def _all_run(labels) -> None:
    with running_worker():
        wait_for(lambda: sorted(ran) == sorted(labels))


def test_messages_reach_redis_by_the_end_of_the_block_and_are_consumed():
    with broker.pipelined():
        sent = [remember.send(f"m{i}") for i in range(5)]
    assert _in_redis() == _ids(sent)
    _all_run([f"m{i}" for i in range(5)])


def test_messages_outside_a_block_go_at_once():
    first = remember.send("before")
    assert _in_redis() == _ids([first])
    with broker.pipelined():
        inside = remember.send("inside")
    after = remember.send("after")
    assert _in_redis() == _ids([first, inside, after])
    _all_run(["before", "inside", "after"])


def test_other_threads_are_not_held_back_by_a_block():
    with broker.pipelined():
        mine = remember.send("mine")
        theirs = []
        other = threading.Thread(target=lambda: theirs.append(remember.send("theirs")))
        other.start()
        other.join(10)
        assert _ids(theirs)[0] in _in_redis()
    assert sorted(_in_redis()) == sorted(_ids([*theirs, mine]))
    _all_run(["theirs", "mine"])


def test_messages_sent_before_an_error_in_the_block_are_not_lost():
    # A message is sent for a row already committed; an error afterwards must not drop it.
    with pytest.raises(RuntimeError), broker.pipelined():
        sent = remember.send("committed")
        raise RuntimeError("a later enqueue failed")
    assert _in_redis() == _ids([sent])
    _all_run(["committed"])


def test_delayed_messages_in_a_block():
    with broker.pipelined():
        remember.send_with_options(args=("later",), delay=200)
        remember.send("now")
    assert len(_in_redis(f"{QUEUE}.DQ")) == 1
    _all_run(["now", "later"])


def test_a_nested_block_s_messages_keep_their_place():
    with broker.pipelined():
        first = remember.send("outer")
        with broker.pipelined():
            inner = remember.send("inner")
        later = remember.send("later")
    assert _in_redis() == _ids([first, inner, later])
    _all_run(["outer", "inner", "later"])


def test_a_block_to_several_queues_keeps_each_queue_in_order():
    with broker.pipelined():
        first = remember.send("now")
        delayed = remember.send_with_options(args=("later",), delay=200)
        second = remember.send("now too")
    assert _in_redis() == _ids([first, second])
    assert _in_redis(f"{QUEUE}.DQ") == _ids([delayed])
    _all_run(["now", "now too", "later"])
